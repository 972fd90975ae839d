package caches

import (
	"crypto/sha256"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/ogx-k8s/ogx-controller/pkg/controller/apply"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

// Most Deployment events are the controller manager's status writes, about
// 3.4 per server during a fleet start, and each reached the transform's
// extraction of the fields we own: with the allocations it drives, that
// extraction was about a third of the operator's CPU. A status write
// changes none of what the owned-fields digest reads, so the transform
// reuses the cached view's digest when nothing it reads has changed
// (docs/performance.md, Where the CPU goes).
//
// The digest reads the object's identity, our Apply entry's field set and
// the values at those fields: metadata (labels, annotations, owner
// references, finalizers) and spec. A label or annotation added or removed
// changes our field set when it is ours, and the digest not at all when it
// is not, so only the values of keys on both sides are compared. The API server raises a Deployment's
// generation on every change to its spec, ours included, so the generation
// stands for the spec values; a change of another manager to a field we own
// moves it out of our field set. An object whose generation is 0 was never
// stored by an API server (a fake's) and is always extracted.

// priorViews finds the cached view a Deployment event replaces. Its indexer
// is set once the informer exists, before it starts; nil means no reuse.
type priorViews struct {
	deployments cache.Indexer
}

// ownedFieldSet is the sha256 of our Apply entry on the main resource (the
// one extraction reads): its API version and field set. ok is false
// without one.
func ownedFieldSet(entries []metav1.ManagedFieldsEntry) (sum [32]byte, ok bool) {
	for _, e := range entries {
		if e.Manager == render.FieldManager && e.Operation == metav1.ManagedFieldsOperationApply && e.Subresource == "" && e.FieldsV1 != nil {
			h := sha256.New()
			h.Write([]byte(e.APIVersion))
			h.Write([]byte{0})
			h.Write(e.FieldsV1.Raw)
			h.Sum(sum[:0])
			return sum, true
		}
	}
	return sum, false
}

// reusable returns the cached view of d when its digest still holds for d,
// whose field set sum is fieldSet.
func (p *priorViews) reusable(d *appsv1.Deployment, fieldSet [32]byte) (*apply.CachedChild, bool) {
	if p == nil || p.deployments == nil || d.Generation == 0 {
		return nil, false
	}
	obj, exists, err := p.deployments.GetByKey(d.Namespace + "/" + d.Name)
	if err != nil || !exists {
		return nil, false
	}
	c, ok := obj.(*apply.CachedChild)
	if !ok || c.OwnedDigest == "" || c.OwnedFieldSet != fieldSet {
		return nil, false
	}
	view, ok := c.Object.(*appsv1.Deployment)
	if !ok || view.UID != d.UID || view.Generation != d.Generation ||
		!sharedKeysEqual(view.Labels, d.Labels) || !sharedKeysEqual(view.Annotations, d.Annotations) ||
		!slices.Equal(view.Finalizers, d.Finalizers) ||
		!apiequality.Semantic.DeepEqual(view.OwnerReferences, d.OwnerReferences) {
		return nil, false
	}
	return c, true
}

// sharedKeysEqual reports whether the keys of a view's labels or
// annotations that obj also has hold the same values in both. A key on one
// side only is not ours, or ours and then our field set changed with it:
// the controller manager's revision annotation does not cost an
// extraction.
func sharedKeysEqual(view, obj map[string]string) bool {
	for k, v := range obj {
		if w, ok := view[k]; ok && w != v {
			return false
		}
	}
	return true
}
