package render

import (
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

// OGXServerKind is the kind named in owner references.
const OGXServerKind = "OGXServer"

// OwnerReference is the controller owner reference every child except the
// PVC carries, so that garbage collection removes the children with the
// OGXServer and the ownership guard can recognise them. apiVersion and kind
// are fixed rather than read from the object's TypeMeta, which is empty on
// objects served from informer caches.
func OwnerReference(s *ogxv1beta1.OGXServer) *metav1ac.OwnerReferenceApplyConfiguration {
	return metav1ac.OwnerReference().
		WithAPIVersion(ogxv1beta1.SchemeGroupVersion.String()).
		WithKind(OGXServerKind).
		WithName(s.Name).
		WithUID(s.UID).
		WithController(true).
		WithBlockOwnerDeletion(true)
}

// ownerRefs returns the owner reference as a variadic list, or nothing when
// the OGXServer has no UID. In a cluster the UID is always set; offline,
// `ogx-controller render` emits ownerReferences only when the input carries
// metadata.uid (docs/cli.md, Output), and an owner reference with an empty UID
// would be rejected by the API server anyway.
func ownerRefs(s *ogxv1beta1.OGXServer) []*metav1ac.OwnerReferenceApplyConfiguration {
	if s.UID == "" {
		return nil
	}
	return []*metav1ac.OwnerReferenceApplyConfiguration{OwnerReference(s)}
}
