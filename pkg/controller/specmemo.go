package controller

import (
	"sync"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

// specMemo keeps the re-validation verdict of each server's current
// generation (docs/admission.md, Re-validation in the controllers): the
// child controllers all check the spec before they act, and without it
// each of them would run the validator on every pass. The verdict depends
// only on the spec and the (immutable) name, so the generation is its key;
// the adoption annotations, which change without a new generation, are not
// part of it (specErrors leaves them out).
type specMemo struct {
	mu       sync.Mutex
	verdicts map[types.UID]specVerdict
}

type specVerdict struct {
	generation int64
	errs       field.ErrorList
}

func newSpecMemo() *specMemo {
	return &specMemo{verdicts: map[types.UID]specVerdict{}}
}

// errors returns specErrors(s), computing it once per generation.
func (m *specMemo) errors(s *ogxv1beta1.OGXServer) field.ErrorList {
	if m == nil {
		return specErrors(s)
	}
	m.mu.Lock()
	v, ok := m.verdicts[s.UID]
	m.mu.Unlock()
	if ok && v.generation == s.Generation {
		return v.errs
	}
	errs := specErrors(s)
	m.mu.Lock()
	if cur, ok := m.verdicts[s.UID]; !ok || cur.generation <= s.Generation {
		m.verdicts[s.UID] = specVerdict{generation: s.Generation, errs: errs}
	}
	m.mu.Unlock()
	return errs
}

// forget drops a deleted server's verdict.
func (m *specMemo) forget(uid types.UID) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.verdicts, uid)
}

// retain is forget for every server that is not live (Manager.sweep).
func (m *specMemo) retain(live func(types.UID) bool) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return retainLive(m.verdicts, live)
}
