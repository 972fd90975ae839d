package integration

import (
	"errors"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	rbacv1ac "k8s.io/client-go/applyconfigurations/rbac/v1"
	"k8s.io/client-go/kubernetes"
)

// TestRoleRefChangeNamesRoleRef pins what the deployment controller relies
// on (pkg/controller roleRefChanged): applying another roleRef to a
// RoleBinding is refused with 422 Invalid and a cause on field roleRef.
func TestRoleRefChangeNamesRoleRef(t *testing.T) {
	ns := cp.CreateNamespace(t, "rolebinding")
	kube, err := kubernetes.NewForConfig(restConfig)
	if err != nil {
		t.Fatal(err)
	}
	rb := func(role string) *rbacv1ac.RoleBindingApplyConfiguration {
		return rbacv1ac.RoleBinding("demo-rb", ns).
			WithRoleRef(rbacv1ac.RoleRef().WithAPIGroup(rbacv1.GroupName).WithKind("ClusterRole").WithName(role)).
			WithSubjects(rbacv1ac.Subject().WithKind("ServiceAccount").WithName("demo-sa").WithNamespace(ns))
	}
	opts := metav1.ApplyOptions{FieldManager: "ogx-controller", Force: true}
	if _, err := kube.RbacV1().RoleBindings(ns).Apply(t.Context(), rb("view"), opts); err != nil {
		t.Fatal(err)
	}
	_, err = kube.RbacV1().RoleBindings(ns).Apply(t.Context(), rb("edit"), opts)
	var status apierrors.APIStatus
	if !apierrors.IsInvalid(err) || !errors.As(err, &status) || status.Status().Details == nil {
		t.Fatalf("changing roleRef: %v, want 422 Invalid with details", err)
	}
	for _, c := range status.Status().Details.Causes {
		if c.Field == "roleRef" {
			return
		}
	}
	t.Errorf("no cause on roleRef: %+v", status.Status().Details.Causes)
}
