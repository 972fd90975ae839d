package caches

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	networkingv1ac "k8s.io/client-go/applyconfigurations/networking/v1"

	"github.com/ogx-k8s/ogx-controller/pkg/controller/apply"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

// The child caches hold an apply.CachedChild per child, not the whole object
// (docs/performance.md, Memory, "What the cache transforms keep"): the digest
// of the fields ogx-controller owns (computed from the whole object, or, for
// the answer to our own apply, what that apply sent: KnowWrites), the
// object's metadata and a body with what the other readers of a cached
// child use besides metadata:
//
//   - metadata, with managedFields reduced to who has an entry (the
//     ownership guard, the event handlers, recentWrites, hasManagerEntry):
//     no field set and no time, in a list shared by every view with the
//     same entries (entryLists);
//   - the Deployment's status (of its conditions only failures),
//     spec.replicas and strategy type (status, switchStrategy) and the
//     user-config volume of its template (config retention);
//   - the Ingress's spec and status (status: the external URL);
//   - of a Service, a ServiceAccount and the kinds controller packages add
//     (ViewOf), nothing.
//
// An object with an entry of a takeover manager, or one whose owned fields
// cannot be extracted, is kept whole, without a digest: the takeover must
// see every managedFields entry, and the applier extracts from a whole
// object as from a live one. PVCs, never applied again, are kept as they are.

// childView is the transform of the child caches.
type childView struct {
	fields managedFieldsFilter
	// share shares equal label maps and managedFields lists between views.
	share *sharing
	// kinds are the views of the kinds controller packages added
	// (Caches.AddChildKind), by Go type; written only before the caches
	// start.
	kinds map[reflect.Type]KindView
	// prior finds the view a Deployment event replaces (reuse.go); nil
	// reuses nothing.
	prior *priorViews
	// sent finds, by Go type, the digest our write sent for the object it
	// returned (KnowWrites); written only before the caches start.
	sent map[reflect.Type]func(metav1.Object) apply.Digest
}

// KnowWrites makes the child caches take the digest of an object our write
// returned from what the write sent (r.SentFor) rather than extract it: the
// applier already knows that object by the sent digest (apply.Known.Sent),
// and its event is the same object. Extraction on child events was 14% of
// the operator's CPU in a fleet start, half of it on these events, and 6%
// after (docs/performance.md, Where the CPU goes). One registration per Go
// type, the last wins; the ConfigMaps' applier registers to no effect, as
// their cache is not a child cache. Call it before Start.
func KnowWrites[O metav1.Object](c *Caches, r *apply.RecentWrites[O]) {
	c.sent[reflect.TypeFor[O]()] = r.SentFor
}

// sentDigest is the digest our write sent for obj, or zero (KnowWrites).
func (v childView) sentDigest(obj metav1.Object) apply.Digest {
	if f := v.sent[reflect.TypeOf(obj)]; f != nil {
		return f(obj)
	}
	return apply.Digest{}
}

// KindView is how the child caches view one kind a controller package
// adds (Caches.AddChildKind).
type KindView struct {
	typ  reflect.Type
	view func(obj apply.ChildObject, share *sharing, sent apply.Digest) (*apply.CachedChild, error)
}

// ViewOf is the view of kind O, whose controller reads only metadata (a
// kind whose readers use more gets a body of its own, as the Deployment
// does): the metadata and the digest of the fields ogx-controller owns,
// extracted by extract. A kind without embedded ObjectMeta fails here, when
// it is registered, not in a pass.
func ViewOf[O apply.ChildObject, AC any](extract func(O, string) (AC, error)) KindView {
	typ := reflect.TypeFor[O]().Elem()
	body := metaOnly{newObject: func() apply.ChildObject { return reflect.New(typ).Interface().(apply.ChildObject) }}
	if _, ok := objectMetaOf(body.newObject()); !ok {
		panic(fmt.Sprintf("caches.ViewOf: %v has no embedded ObjectMeta", typ))
	}
	return KindView{typ: reflect.TypeFor[O](), view: func(obj apply.ChildObject, share *sharing, sent apply.Digest) (*apply.CachedChild, error) {
		return viewWith(obj.(O), extract, body, share, sent)
	}}
}

// metaOnly is the body of a view whose readers use only metadata: each
// read is a new empty object of the kind with the view's metadata. One
// function field, so a view holds it without allocating.
type metaOnly struct{ newObject func() apply.ChildObject }

func (b metaOnly) Object(meta metav1.ObjectMeta) apply.ChildObject {
	out := b.newObject()
	if m, ok := objectMetaOf(out); ok {
		*m = meta
	}
	return out
}

// objectMetaOf is the ObjectMeta a typed object embeds.
func objectMetaOf(obj apply.ChildObject) (*metav1.ObjectMeta, bool) {
	a, ok := obj.(metav1.ObjectMetaAccessor)
	if !ok {
		return nil, false
	}
	m, ok := a.GetObjectMeta().(*metav1.ObjectMeta)
	return m, ok
}

// ingressBody is what an Ingress view keeps besides metadata: its spec and
// status (status: the external URL).
type ingressBody struct {
	spec   networkingv1.IngressSpec
	status networkingv1.IngressStatus
}

func (b *ingressBody) Object(meta metav1.ObjectMeta) apply.ChildObject {
	return &networkingv1.Ingress{ObjectMeta: meta, Spec: b.spec, Status: b.status}
}

func (v childView) transform(obj any) (any, error) {
	// client-go may hand an object to the transform again (the streaming
	// list of the WatchListClient feature does).
	if _, done := obj.(*apply.CachedChild); done {
		return obj, nil
	}
	if pvc, ok := obj.(*corev1.PersistentVolumeClaim); ok {
		v.fields.filter(pvc)
		internMeta(pvc, &v.share.labels)
		return obj, nil
	}
	o, ok := obj.(apply.ChildObject)
	if !ok {
		return obj, nil
	}
	if v.fields.takeoverPending(o, "") {
		return &apply.CachedChild{Whole: o}, nil
	}
	// Before the filter: SentFor reads every managedFields entry.
	sent := v.sentDigest(o)
	v.fields.filter(o)
	out, err := v.view(o, sent)
	if err != nil {
		internMeta(o, &v.share.labels)
		return &apply.CachedChild{Whole: o}, nil
	}
	return out, nil
}

// view trims o and computes its owned-fields digest; sent is what our
// write sent for o, or zero (sentDigest).
func (v childView) view(obj apply.ChildObject, sent apply.Digest) (*apply.CachedChild, error) {
	switch o := obj.(type) {
	case *appsv1.Deployment:
		return v.deploymentView(o, sent)
	case *corev1.Service:
		body := metaOnly{newObject: func() apply.ChildObject { return &corev1.Service{} }}
		return viewWith(o, corev1ac.ExtractService, body, v.share, sent)
	case *corev1.ServiceAccount:
		body := metaOnly{newObject: func() apply.ChildObject { return &corev1.ServiceAccount{} }}
		return viewWith(o, corev1ac.ExtractServiceAccount, body, v.share, sent)
	case *networkingv1.Ingress:
		return viewWith(o, networkingv1ac.ExtractIngress, &ingressBody{spec: o.Spec, status: o.Status}, v.share, sent)
	}
	if k, ok := v.kinds[reflect.TypeOf(obj)]; ok {
		return k.view(obj, v.share, sent)
	}
	return nil, fmt.Errorf("no view of %T", obj)
}

// viewWith builds the view of o: the digest of what we own (sent, when o
// is the answer to our write, else extracted), o's metadata without field
// sets, and body.
func viewWith[O apply.ChildObject, AC any](o O, extract func(O, string) (AC, error), body apply.Body, share *sharing, sent apply.Digest) (*apply.CachedChild, error) {
	digest := sent
	if digest.IsZero() {
		owned, err := extract(o, render.FieldManager)
		if err != nil {
			return nil, err
		}
		if digest, err = apply.DigestOf(owned); err != nil {
			return nil, err
		}
	}
	out := &apply.CachedChild{Body: body, OwnedDigest: digest, OwnWrite: !sent.IsZero()}
	setViewMeta(&out.Meta, o, share)
	return out, nil
}

// deploymentView builds the view of d: the digest of the view it replaces
// when that still holds (reuse.go), or the one our write sent, else
// extracted.
func (v childView) deploymentView(d *appsv1.Deployment, sent apply.Digest) (*apply.CachedChild, error) {
	body := trimDeployment(d)
	out := &apply.CachedChild{Body: body}
	setViewMeta(&out.Meta, d, v.share)
	entry := ourApplyEntry(d.ManagedFields)
	if entry != nil {
		body.fieldSet = fieldSetSum(entry)
		if prior, ok := v.prior.reusable(d, entry, body.fieldSet); ok {
			out.OwnedDigest, out.OwnsReplicas = prior.OwnedDigest, prior.OwnsReplicas
			return out, nil
		}
	}
	if !sent.IsZero() {
		if owns, ok := namesReplicas(entry); ok {
			out.OwnedDigest, out.OwnsReplicas, out.OwnWrite = sent, owns, true
			return out, nil
		}
	}
	owned, err := appsv1ac.ExtractDeployment(d, render.FieldManager)
	if err != nil {
		return nil, err
	}
	if out.OwnedDigest, err = apply.DigestOf(owned); err != nil {
		return nil, err
	}
	out.OwnsReplicas = owned.Spec != nil && owned.Spec.Replicas != nil
	return out, nil
}

// deploymentBody is what a Deployment view keeps besides metadata: the
// status (of its conditions only failures), spec.replicas and strategy
// type (status, switchStrategy) and the user-config volume of the template
// (config retention).
type deploymentBody struct {
	status   appsv1.DeploymentStatus
	replicas *int32
	strategy appsv1.DeploymentStrategyType
	volumes  []corev1.Volume
	// fieldSet is the sha256 of our Apply entry's API version and field
	// set: with the generation and metadata it tells when the digest still
	// holds (reuse.go).
	fieldSet [32]byte
}

func (b *deploymentBody) Object(meta metav1.ObjectMeta) apply.ChildObject {
	d := &appsv1.Deployment{ObjectMeta: meta, Status: b.status}
	d.Spec.Replicas = b.replicas
	d.Spec.Strategy.Type = b.strategy
	d.Spec.Template.Spec.Volumes = b.volumes
	return d
}

// trimDeployment is the body of d's view.
func trimDeployment(d *appsv1.Deployment) *deploymentBody {
	out := &deploymentBody{status: d.Status, replicas: d.Spec.Replicas, strategy: d.Spec.Strategy.Type}
	// Only failures are read of the conditions (IsDeploymentFailure).
	out.status.Conditions = nil
	for _, c := range d.Status.Conditions {
		if IsDeploymentFailure(c) {
			out.status.Conditions = append(out.status.Conditions, c)
		}
	}
	// Config retention must not delete the ConfigMap the template mounts.
	for _, v := range d.Spec.Template.Spec.Volumes {
		if v.Name == render.VolumeUserConfig && v.ConfigMap != nil {
			out.volumes = append(out.volumes, corev1.Volume{Name: v.Name,
				VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: v.ConfigMap.LocalObjectReference}}})
		}
	}
	// Every read hands these slices out: an append there must not write
	// into the cache's array.
	out.status.Conditions = slices.Clip(out.status.Conditions)
	out.volumes = slices.Clip(out.volumes)
	return out
}

// setViewMeta copies the metadata of from to view, with managedFields
// reduced to who has an entry (a list shared between views) and without
// kubectl's last-applied copy. An object without annotations gets no map.
func setViewMeta(view, from metav1.Object, share *sharing) {
	view.SetName(from.GetName())
	view.SetNamespace(from.GetNamespace())
	view.SetUID(from.GetUID())
	view.SetResourceVersion(from.GetResourceVersion())
	view.SetGeneration(from.GetGeneration())
	view.SetCreationTimestamp(from.GetCreationTimestamp())
	view.SetDeletionTimestamp(from.GetDeletionTimestamp())
	view.SetLabels(from.GetLabels())
	view.SetOwnerReferences(from.GetOwnerReferences())
	view.SetFinalizers(from.GetFinalizers())
	internMeta(view, &share.labels)
	// Set after interning, which would write into the shared list.
	view.SetManagedFields(share.entries.share(from.GetManagedFields()))
	// Set after interning, with canonical keys, so the map is built once.
	a := from.GetAnnotations()
	n := len(a)
	if _, ok := a[corev1.LastAppliedConfigAnnotation]; ok {
		n--
	}
	if n == 0 {
		view.SetAnnotations(nil)
		return
	}
	annotations := make(map[string]string, n)
	for k, val := range a {
		if k != corev1.LastAppliedConfigAnnotation {
			annotations[intern(k)] = val
		}
	}
	view.SetAnnotations(annotations)
}

// namesReplicas reports whether a Deployment's managedFields entry (nil:
// none) owns spec.replicas; ok is false when its field set cannot be read.
// Decoding into this struct keeps none of the rest of the field set.
func namesReplicas(e *metav1.ManagedFieldsEntry) (owns, ok bool) {
	if e == nil {
		return false, true
	}
	var set struct {
		Spec struct {
			Replicas *struct{} `json:"f:replicas"`
		} `json:"f:spec"`
	}
	if err := json.Unmarshal(e.FieldsV1.Raw, &set); err != nil {
		return false, false
	}
	return set.Spec.Replicas != nil, true
}

// OwnsReplicas reports whether ogx-controller owns spec.replicas of d, a
// Deployment as last known (apply.Known).
func OwnsReplicas(d apply.Known[*appsv1.Deployment]) (bool, error) {
	if !d.Digest.IsZero() {
		return d.OwnsReplicas, nil
	}
	owned, err := appsv1ac.ExtractDeployment(d.Obj, render.FieldManager)
	if err != nil {
		return false, err
	}
	return owned.Spec != nil && owned.Spec.Replicas != nil, nil
}

// IsDeploymentFailure: the progress deadline passed, or replicas cannot be
// created. The only Deployment conditions anything here reads (the cached
// view keeps no others).
func IsDeploymentFailure(c appsv1.DeploymentCondition) bool {
	return c.Type == appsv1.DeploymentProgressing && c.Status == corev1.ConditionFalse && c.Reason == "ProgressDeadlineExceeded" ||
		c.Type == appsv1.DeploymentReplicaFailure && c.Status == corev1.ConditionTrue
}
