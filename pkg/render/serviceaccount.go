package render

import (
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	rbacv1ac "k8s.io/client-go/applyconfigurations/rbac/v1"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

// AnyUIDClusterRole is the OpenShift ClusterRole that grants use of the
// anyuid SecurityContextConstraints; the server image may run as a fixed UID.
const AnyUIDClusterRole = "system:openshift:scc:anyuid"

// ServiceAccount renders N-sa (docs/children.md, ServiceAccount and
// RoleBinding). It is rendered even when overrides.serviceAccountName points
// the pods elsewhere, as upstream did, so a switch back to the default account
// never waits for its creation.
func ServiceAccount(s *ogxv1beta1.OGXServer, _ *Inputs) *corev1ac.ServiceAccountApplyConfiguration {
	return corev1ac.ServiceAccount(ServiceAccountName(s.Name), s.Namespace).
		WithLabels(ChildLabels()).
		WithOwnerReferences(ownerRefs(s)...)
}

// RoleBinding renders N-rb. The subject is always N-sa, even with
// overrides.serviceAccountName: a user-chosen account gets its SCC from the
// user, as upstream.
func RoleBinding(s *ogxv1beta1.OGXServer, _ *Inputs) *rbacv1ac.RoleBindingApplyConfiguration {
	return rbacv1ac.RoleBinding(RoleBindingName(s.Name), s.Namespace).
		WithLabels(ChildLabels()).
		WithOwnerReferences(ownerRefs(s)...).
		WithRoleRef(rbacv1ac.RoleRef().
			WithAPIGroup("rbac.authorization.k8s.io").
			WithKind("ClusterRole").
			WithName(AnyUIDClusterRole)).
		WithSubjects(rbacv1ac.Subject().
			WithKind("ServiceAccount").
			WithName(ServiceAccountName(s.Name)).
			WithNamespace(s.Namespace))
}
