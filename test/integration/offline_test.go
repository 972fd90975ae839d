package integration

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/ogx-k8s/ogx-controller/config/crd"
	"github.com/ogx-k8s/ogx-controller/pkg/crdvalidate"
)

// offlineValidator is the check render --validate and migrate run without
// a cluster (pkg/crdvalidate), built from the same CRD file the tests
// install.
type offlineValidator struct{ v *crdvalidate.Validator }

func newOfflineValidator(t *testing.T) offlineValidator {
	t.Helper()
	def, err := crd.Definition("ogxservers.ogx.io")
	if err != nil {
		t.Fatal(err)
	}
	v, err := crdvalidate.New(def, "v1beta1")
	if err != nil {
		t.Fatal(err)
	}
	return offlineValidator{v: v}
}

// causes validates obj in place (defaults included) and returns the causes
// the API server's 422 answer would carry for the same errors, converted
// the way the API server converts them.
func (o offlineValidator) causes(t *testing.T, obj map[string]any) []metav1.StatusCause {
	t.Helper()
	errs := o.v.Create(context.Background(), obj)
	if len(errs) == 0 {
		return nil
	}
	causes, _ := apiCauses(apierrors.NewInvalid(schema.GroupKind{Group: "ogx.io", Kind: "OGXServer"}, "offline", errs))
	return causes
}

// sortedCauses orders causes by field and message: the CEL rules of sibling
// fields are evaluated in map order, by the API server as offline.
func sortedCauses(causes []metav1.StatusCause) []metav1.StatusCause {
	out := slices.Clone(causes)
	slices.SortStableFunc(out, func(a, b metav1.StatusCause) int {
		return cmp.Or(strings.Compare(a.Field, b.Field), strings.Compare(a.Message, b.Message))
	})
	return out
}
