package caches

import (
	"bytes"
	"crypto/sha256"
	"maps"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/ogx-k8s/ogx-controller/pkg/controller/apply"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

// Most Deployment events are the controller manager's status writes (about
// 3.4 per server in a fleet start, its revision annotation among them), and
// each reached the transform's extraction of the fields we own; with the
// allocations it drives, that extraction was the largest share of the
// operator's CPU. So the transform keeps the cached view's digest when
// nothing the digest reads has changed: Deployment events fell from 14% to
// 6-8% of the operator's CPU profile, and with protobuf clients its CPU
// per server from 13.7 to 11.3 ms (docs/performance.md, Where the CPU
// goes).
//
// The digest reads the object's identity, our Apply entry's field set and
// the values at those fields: metadata (labels, annotations, owner
// references, finalizers) and spec. The API server raises a Deployment's
// generation on every change to its spec or annotations through the main
// resource, and a write another manager makes to a field we own moves the
// field out of our set. A write through /status keeps the spec and labels
// but may change annotations, owner references and finalizers, which are
// compared: the values of annotation keys on both sides, and a key on one
// side only when our field set names it (a mutating webhook's removal is
// not recorded in managedFields). An object of generation 0 was never
// stored by an API server (a fake's) and is always extracted. After an etcd
// restore that brings back a generation with other contents, a kept digest
// may be stale until the object's generation next moves; restarting the
// operator drops it (docs/operations.md, After restoring etcd from a backup).

// priorViews finds the cached view a Deployment event replaces. Its indexer
// is set once the informer exists, before it starts; nil means no reuse.
type priorViews struct {
	deployments cache.Indexer
}

// ourApplyEntry is our Apply entry on the main resource, the one extraction
// reads; nil without one.
func ourApplyEntry(entries []metav1.ManagedFieldsEntry) *metav1.ManagedFieldsEntry {
	for i, e := range entries {
		if e.Manager == render.FieldManager && e.Operation == metav1.ManagedFieldsOperationApply && e.Subresource == "" && e.FieldsV1 != nil {
			return &entries[i]
		}
	}
	return nil
}

// fieldSetSum is the sha256 of an entry's API version and field set.
func fieldSetSum(e *metav1.ManagedFieldsEntry) (sum [32]byte) {
	h := sha256.New()
	h.Write([]byte(e.APIVersion))
	h.Write([]byte{0})
	h.Write(e.FieldsV1.Raw)
	h.Sum(sum[:0])
	return sum
}

// reusable returns the cached view of d when its digest still holds for d,
// whose Apply entry of ours is entry.
func (p *priorViews) reusable(d *appsv1.Deployment, entry *metav1.ManagedFieldsEntry, sum [32]byte) (*apply.CachedChild, bool) {
	if p == nil || p.deployments == nil || d.Generation == 0 {
		return nil, false
	}
	obj, exists, err := p.deployments.GetByKey(d.Namespace + "/" + d.Name)
	if err != nil || !exists {
		return nil, false
	}
	c, ok := obj.(*apply.CachedChild)
	if !ok || c.OwnedDigest.IsZero() {
		return nil, false
	}
	body, ok := c.Body.(*deploymentBody)
	view := &c.Meta
	if !ok || body.fieldSet != sum || !sameIdentity(view, &d.ObjectMeta) ||
		!sameAnnotations(view.Annotations, d.Annotations, entry.FieldsV1.Raw) {
		return nil, false
	}
	return c, true
}

// sameIdentity reports whether a and b agree on the object's UID,
// generation, labels, finalizers and owner references: what both the
// digest's reuse and the deployment controller's update filter
// (DeploymentNonStatusChanged) read of metadata besides annotations.
func sameIdentity(a, b *metav1.ObjectMeta) bool {
	return a.UID == b.UID && a.Generation == b.Generation && maps.Equal(a.Labels, b.Labels) &&
		slices.Equal(a.Finalizers, b.Finalizers) && apiequality.Semantic.DeepEqual(a.OwnerReferences, b.OwnerReferences)
}

// sameAnnotations reports whether a view's annotations and an object's
// agree on every key our field set may hold: equal values where both have
// the key, and a key on one side only not named in fieldSet. A key JSON
// would escape counts as named; a name found by chance elsewhere in the
// field set only costs an extraction.
func sameAnnotations(view, obj map[string]string, fieldSet []byte) bool {
	oneSided := func(k string) bool {
		return strings.ContainsAny(k, "\"\\<>&") || bytes.Contains(fieldSet, []byte(`"f:`+k+`"`))
	}
	for k, v := range obj {
		if w, ok := view[k]; ok && w != v || !ok && oneSided(k) {
			return false
		}
	}
	for k := range view {
		if _, ok := obj[k]; !ok && oneSided(k) {
			return false
		}
	}
	return true
}
