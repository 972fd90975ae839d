package deployment

import (
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/ogx-k8s/ogx-controller/pkg/controller/apply"
)

// TestRoleRefChangeIsChildConflict: the API server's answer to a RoleBinding
// apply with another roleRef (immutable) is recognised, also wrapped as the
// applier wraps it; other invalid writes are not.
func TestRoleRefChangeIsChildConflict(t *testing.T) {
	gk := rbacv1.SchemeGroupVersion.WithKind("RoleBinding").GroupKind()
	immutable := apierrors.NewInvalid(gk, "demo-rb", field.ErrorList{
		field.Invalid(field.NewPath("roleRef"), rbacv1.RoleRef{Name: "other"}, "cannot change roleRef")})
	other := apierrors.NewInvalid(gk, "demo-rb", field.ErrorList{field.Required(field.NewPath("subjects").Index(0).Child("name"), "")})
	if !roleRefChanged(immutable) || !roleRefChanged(apply.ClassifyWriteError("RoleBinding", "demo-rb", immutable)) {
		t.Errorf("a roleRef change was not recognised")
	}
	if roleRefChanged(other) || roleRefChanged(nil) {
		t.Errorf("another invalid write taken for a roleRef change")
	}
}
