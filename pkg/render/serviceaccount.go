package render

import (
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

// ServiceAccount renders N-sa (docs/children.md, ServiceAccount and
// RoleBinding): labels and owner reference only. It is rendered even when
// overrides.serviceAccountName points the pods elsewhere, as upstream did, so
// a switch back to the default account never waits for its creation.
func ServiceAccount(s *ogxv1beta1.OGXServer, _ *Inputs) *corev1ac.ServiceAccountApplyConfiguration {
	return corev1ac.ServiceAccount(ServiceAccountName(s.Name), s.Namespace).
		WithLabels(ChildLabels()).
		WithOwnerReferences(ownerRefs(s)...)
}
