package controller

import (
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

// A Deployment changes often while it rolls out: the controller manager
// writes its status several times per rollout, and every change reaches the
// cache transform. Extracting the fields we own from Deployments was about
// an eighth of ogx-controller's CPU during a fleet start (docs/performance.md,
// Where the CPU goes), though a status write changes none of them. A relist
// of a fleet's Deployments is the same case.
//
// The owned-fields digest depends on the object's identity, on the field
// set of our Apply entry, and on the values at those fields, which for a
// Deployment are in its metadata (labels, annotations, owner references,
// finalizers) and its spec. So the view keeps a fingerprint of our field
// set and of the spec (deploymentSource: protobuf and sha256, a small part
// of an extraction's cost), and when the UID, that metadata and the
// fingerprint are those of the view already cached, the cached digest
// still holds and the transform reuses it instead of extracting again.
// Anything else, including no cached view, extracts.

// viewLookup finds the cached view a new Deployment event replaces. Its
// func is set once the informer exists, before it starts; nil (in tests,
// or for a transform without a cache) means no reuse.
type viewLookup struct {
	deployment func(key string) (any, bool, error)
}

// digestLen is the length of an owned-fields digest: hex of a sha256.
const digestLen = 2 * sha256.Size

// deploymentSource fingerprints what the owned digest of d reads besides
// its metadata: the field set of our Apply entry on the main resource (its
// API version and FieldsV1; the first such entry, as extraction takes) and
// the spec, in protobuf (deterministic: map keys are written sorted; it
// does not tell a nil list from an empty one, and neither does an object
// that came through the API server's protobuf storage). A Deployment
// without that entry has none ("") and is never reused.
func deploymentSource(d *appsv1.Deployment) string {
	e := ourApplyEntry(d.ManagedFields)
	if e == nil || e.FieldsV1 == nil {
		return ""
	}
	spec, err := d.Spec.Marshal()
	if err != nil {
		return ""
	}
	h := sha256.New()
	h.Write([]byte(e.APIVersion))
	h.Write([]byte{0})
	h.Write(e.FieldsV1.Raw)
	h.Write([]byte{0})
	h.Write(spec)
	return hex.EncodeToString(h.Sum(nil))
}

// ourApplyEntry returns our first Apply entry on the main resource, the one
// extraction reads; nil without one.
func ourApplyEntry(entries []metav1.ManagedFieldsEntry) *metav1.ManagedFieldsEntry {
	for i, e := range entries {
		if e.Manager == render.FieldManager && e.Operation == metav1.ManagedFieldsOperationApply && e.Subresource == "" {
			return &entries[i]
		}
	}
	return nil
}

// reusableDigest returns the owned-fields digest of the cached view of d,
// and whether that view says we own spec.replicas, when nothing either
// depends on has changed since; ok is false otherwise.
func (l *viewLookup) reusableDigest(d *appsv1.Deployment, source string) (digest string, ownsReplicas, ok bool) {
	if l == nil || l.deployment == nil || source == "" {
		return "", false, false
	}
	obj, exists, err := l.deployment(Key(d.Namespace, d.Name))
	if err != nil || !exists {
		return "", false, false
	}
	prior, isDeployment := obj.(*appsv1.Deployment)
	if !isDeployment {
		return "", false, false
	}
	priorDigest, isView := viewDigest(prior)
	if !isView || viewSource(prior) != source || !sameOwnedInputs(prior, d) {
		return "", false, false
	}
	return priorDigest, prior.Annotations[viewOwnsReplicas] == "true", true
}

// sameOwnedInputs reports whether a cached view and a new object agree on
// everything the owned digest of a Deployment reads that is not in its
// source fingerprint.
func sameOwnedInputs(view, d *appsv1.Deployment) bool {
	return view.UID == d.UID &&
		maps.Equal(view.Labels, d.Labels) &&
		slices.Equal(view.Finalizers, d.Finalizers) &&
		apiequality.Semantic.DeepEqual(view.OwnerReferences, d.OwnerReferences) &&
		sameAnnotations(view.Annotations, d.Annotations)
}

// sameAnnotations compares a view's annotations with an object's, leaving
// out what setViewMeta drops (the last-applied annotation, which render
// never sets, so our field set never holds it) and adds (the view's own
// key).
func sameAnnotations(view, obj map[string]string) bool {
	n := 0
	for k, v := range obj {
		if k == corev1.LastAppliedConfigAnnotation {
			continue
		}
		if w, ok := view[k]; !ok || w != v {
			return false
		}
		n++
	}
	for k := range view {
		if k != viewOwnsReplicas {
			n--
		}
	}
	return n == 0
}
