package integration

import (
	"context"
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
