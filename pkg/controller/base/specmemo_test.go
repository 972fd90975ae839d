package base_test

import (
	"testing"

	"k8s.io/utils/ptr"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/controllertest"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/record"
)

// TestSpecMemoOncePerGeneration: the verdict of a generation is computed
// once and reused whatever the object carries besides its spec; a new
// generation is validated again; an older generation never replaces a
// newer verdict.
func TestSpecMemoOncePerGeneration(t *testing.T) {
	m := base.NewSpecMemo(record.New())
	bad := controllertest.Server(controllertest.Namespace, controllertest.Name, controllertest.UID, func(sp *ogxv1beta1.OGXServerSpec) { sp.Distribution.Name = ptr.To("no-such") })
	if errs := m.Errors(bad); len(errs) != 1 {
		t.Fatalf("generation 1: %v, want the unknown distribution", errs)
	}
	// The same generation is not validated again: a copy whose spec was
	// fixed without a new generation (impossible on an API server) still
	// gets the stored verdict, which shows it was not recomputed.
	same := bad.DeepCopy()
	same.Spec.Distribution.Name = ptr.To("starter")
	if errs := m.Errors(same); len(errs) != 1 {
		t.Errorf("same generation: %v, want the stored verdict", errs)
	}
	fixed := same.DeepCopy()
	fixed.Generation = 2
	if errs := m.Errors(fixed); len(errs) != 0 {
		t.Errorf("generation 2: %v, want none", errs)
	}
	if errs := m.Errors(bad); len(errs) != 1 {
		t.Errorf("a late pass of generation 1: %v, want its own verdict", errs)
	}
	if errs := m.Errors(fixed); len(errs) != 0 {
		t.Errorf("generation 2 after a late generation 1 pass: %v, want none", errs)
	}
}
