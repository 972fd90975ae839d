package base

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/record"
)

// SpecMemo keeps the re-validation verdict of each server's current
// generation (docs/admission.md, Re-validation in the controllers): the
// child controllers all check the spec before they act, and without it
// each of them would run the validator on every pass. The verdict depends
// only on the spec and the (immutable) name, so the generation is its key;
// the adoption annotations, which change without a new generation, are not
// part of it (specErrors leaves them out).
type SpecMemo struct {
	record.Slot[specVerdict]
}

type specVerdict struct {
	generation int64
	errs       field.ErrorList
}

// NewSpecMemo keeps its verdicts in r.
func NewSpecMemo(r *record.Store) *SpecMemo {
	return &SpecMemo{Slot: record.NewSlot[specVerdict](r)}
}

// Errors returns specErrors(s), computing it once per generation.
func (m *SpecMemo) Errors(s *ogxv1beta1.OGXServer) field.ErrorList {
	if m == nil {
		return specErrors(s)
	}
	if v, ok := m.Get(s.UID); ok && v.generation == s.Generation {
		return v.errs
	}
	errs := specErrors(s)
	m.Update(s.UID, func(cur specVerdict, ok bool) (specVerdict, bool) {
		if ok && cur.generation > s.Generation {
			return cur, true
		}
		return specVerdict{generation: s.Generation, errs: errs}, true
	})
	return errs
}
