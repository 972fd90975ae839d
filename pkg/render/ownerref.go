package render

import (
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

// OGXServerKind is the kind named in owner references.
const OGXServerKind = "OGXServer"

// OwnerReference is the controller owner reference every child except the
// PVC carries, for garbage collection and the ownership guard. apiVersion and
// kind are fixed because TypeMeta is empty on objects from informer caches.
func OwnerReference(s *ogxv1beta1.OGXServer) *metav1ac.OwnerReferenceApplyConfiguration {
	return metav1ac.OwnerReference().
		WithAPIVersion(ogxv1beta1.SchemeGroupVersion.String()).
		WithKind(OGXServerKind).
		WithName(s.Name).
		WithUID(s.UID).
		WithController(true).
		WithBlockOwnerDeletion(true)
}

// ownerRefs is the owner reference as a variadic list, or nothing when the
// OGXServer has no UID, which only offline `render` input can lack
// (docs/cli.md, Output).
func ownerRefs(s *ogxv1beta1.OGXServer) []*metav1ac.OwnerReferenceApplyConfiguration {
	if s.UID == "" {
		return nil
	}
	return []*metav1ac.OwnerReferenceApplyConfiguration{OwnerReference(s)}
}
