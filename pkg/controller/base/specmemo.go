package base

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1/validation"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/record"
)

// SpecMemo keeps the re-validation verdict of each server's current
// generation, so the child controllers do not each run the validator on
// every pass (docs/admission.md, Re-validation in the controllers).
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

// Errors runs the admission validator on s once per generation. The
// adoption checks A4/A5 are left out: their failures only disable adoption,
// and their annotations change without a new generation.
func (m *SpecMemo) Errors(s *ogxv1beta1.OGXServer) field.ErrorList {
	if m == nil {
		return validation.ValidateSpec(s)
	}
	if v, ok := m.Get(s.UID); ok && v.generation == s.Generation {
		return v.errs
	}
	errs := validation.ValidateSpec(s)
	m.Update(s.UID, func(cur specVerdict, ok bool) (specVerdict, bool) {
		if ok && cur.generation > s.Generation {
			return cur, true
		}
		return specVerdict{generation: s.Generation, errs: errs}, true
	})
	return errs
}
