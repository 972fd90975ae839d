package render

import (
	corev1 "k8s.io/api/core/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

// PVC renders N-pvc (docs/children.md, PersistentVolumeClaim), which the
// controller only ever creates. It has no owner reference: user data must
// survive deletion of the OGXServer, and a recreated OGXServer of the same
// name reuses the claim.
func PVC(s *ogxv1beta1.OGXServer, _ *Inputs) *corev1ac.PersistentVolumeClaimApplyConfiguration {
	return corev1ac.PersistentVolumeClaim(PVCName(s.Name), s.Namespace).
		WithLabels(InstanceChildLabels(s.Name)).
		WithSpec(corev1ac.PersistentVolumeClaimSpec().
			WithAccessModes(corev1.ReadWriteOnce).
			WithResources(corev1ac.VolumeResourceRequirements().
				WithRequests(corev1.ResourceList{corev1.ResourceStorage: s.Spec.StorageSize()})))
}
