package controller

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	autoscalingv2ac "k8s.io/client-go/applyconfigurations/autoscaling/v2"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	networkingv1ac "k8s.io/client-go/applyconfigurations/networking/v1"
	policyv1ac "k8s.io/client-go/applyconfigurations/policy/v1"
	rbacv1ac "k8s.io/client-go/applyconfigurations/rbac/v1"

	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

// The child caches hold views, not whole objects. The applier compares only
// the fields ogx-controller owns with what it would apply, so a view keeps
// that comparison's input as a digest (computed by the cache transform from
// the whole object's managedFields and values) instead of the spec and our
// managedFields entry, which are most of a child's size. Besides the
// digest, a view keeps what the other readers of a cached child use:
//
// The digest is kept as an extra managedFields entry of field type
// viewDigestFieldsType (see viewDigest), not as an annotation: most
// children have no annotations, and a map for one key would cost several
// times the digest. A Deployment's entry also holds, after the digest, the
// fingerprint of what it was computed from, so that later events can
// reuse it (viewreuse.go).
//
//   - metadata without managedFields field sets: the ownership guard
//     (owner references, managed-by label), the event handlers (owner
//     references), recentWrites (resourceVersion, UID) and
//     hasManagerEntry (which of our managers have an entry);
//   - the Deployment's status (of its conditions only failures),
//     spec.replicas and strategy type (status,
//     switchStrategy), whether we own replicas (handOverReplicas) and the
//     user-config volume of its template (config retention);
//   - the Ingress's spec and status (status: the external URL);
//   - the Service's status; HPA and PDB status are not read.
//
// An object with an entry of a takeover manager is kept whole: the takeover
// rewrites managedFields and must see every entry (see managedFieldsFilter).
// Objects the applier gets elsewhere (a live read, the answer to a write)
// are whole; ownedDigest handles both.
const (
	// viewDigestFieldsType marks the managedFields entry holding a view's
	// digest of the fields ogx-controller owns (in FieldsV1.Raw, with no
	// manager; for a Deployment followed by its source fingerprint). The API server accepts no field type but FieldsV1, so no
	// stored object (a live read, a write's answer) carries such an entry:
	// a digest cannot be forged, and an object with one is always a view.
	viewDigestFieldsType = "ogx.io/view-owned-sha256"
	// viewOwnsReplicas is a Deployment view's annotation, "true" when
	// ogx-controller owns spec.replicas. Like every view key it is not a
	// valid annotation key (the name part has a colon), so the API server
	// stores no object with it.
	viewOwnsReplicas = "ogx.io/view:owns-replicas"
)

// digestOf is the digest of an apply configuration: sha256 of its JSON.
// encoding/json writes map keys sorted and every quantity in its canonical
// form, so the same fields with the same values get the same digest. The
// converse is not exact (an integer and its quantity spelling differ), and
// a false difference costs one apply that changes nothing.
func digestOf(ac any) (string, error) {
	b, err := json.Marshal(ac)
	if err != nil {
		return "", fmt.Errorf("encoding apply configuration: %w", err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// viewDigest returns the owned-fields digest of a cached view.
func viewDigest(obj metav1.Object) (string, bool) {
	raw, ok := viewDigestRaw(obj)
	if !ok {
		return "", false
	}
	return raw[:min(len(raw), digestLen)], true
}

// viewSource returns the fingerprint of the field set and spec a
// Deployment view's digest was computed from (see viewreuse.go); "" for
// other views.
func viewSource(obj metav1.Object) string {
	raw, ok := viewDigestRaw(obj)
	if !ok || len(raw) <= digestLen {
		return ""
	}
	return raw[digestLen:]
}

// viewDigestRaw returns the content of a view's digest entry: the digest,
// followed for a Deployment by the fingerprint of what it was computed from.
func viewDigestRaw(obj metav1.Object) (string, bool) {
	for _, e := range obj.GetManagedFields() {
		if e.FieldsType == viewDigestFieldsType && e.FieldsV1 != nil {
			return string(e.FieldsV1.Raw), true
		}
	}
	return "", false
}

// digestEntry is the managedFields entry carrying a view's digest, followed
// for a Deployment by the fingerprint of what it was computed from.
func digestEntry(raw string) metav1.ManagedFieldsEntry {
	return metav1.ManagedFieldsEntry{FieldsType: viewDigestFieldsType, FieldsV1: &metav1.FieldsV1{Raw: []byte(raw)}}
}

// childView is the transform of the child caches.
type childView struct {
	fields managedFieldsFilter
	// labels shares equal label maps between views.
	labels *mapSharer
	// prior finds the cached view a Deployment event replaces, whose
	// digest may still hold (viewreuse.go).
	prior *viewLookup
}

func (v childView) transform(obj any) (any, error) {
	m, ok := obj.(metav1.Object)
	if !ok {
		return obj, nil
	}
	// client-go may hand an object to the transform again (the streaming
	// list of the WatchListClient feature does): a view is returned as it
	// is. Run again, the filter would drop the digest entry and the field
	// sets would be gone, and every later pass would fail to read what we
	// own.
	if _, isView := viewDigest(m); isView {
		return obj, nil
	}
	if v.fields.takeoverPending(m, "") {
		return obj, nil
	}
	// Only our own entries are kept (and of those only who has one).
	v.fields.filter(m)
	var out metav1.Object
	var err error
	switch o := obj.(type) {
	case *appsv1.Deployment:
		out, err = deploymentView(o, v.labels, v.prior)
	case *corev1.Service:
		out, err = viewWith(o, corev1ac.ExtractService, func() *corev1.Service { return &corev1.Service{Status: o.Status} }, v.labels)
	case *corev1.ServiceAccount:
		out, err = viewWith(o, corev1ac.ExtractServiceAccount, func() *corev1.ServiceAccount { return &corev1.ServiceAccount{} }, v.labels)
	case *rbacv1.RoleBinding:
		out, err = viewWith(o, rbacv1ac.ExtractRoleBinding, func() *rbacv1.RoleBinding { return &rbacv1.RoleBinding{} }, v.labels)
	case *networkingv1.NetworkPolicy:
		out, err = viewWith(o, networkingv1ac.ExtractNetworkPolicy, func() *networkingv1.NetworkPolicy { return &networkingv1.NetworkPolicy{} }, v.labels)
	case *networkingv1.Ingress:
		// Few servers have one, and status reads its TLS and rules.
		out, err = viewWith(o, networkingv1ac.ExtractIngress, func() *networkingv1.Ingress {
			return &networkingv1.Ingress{Spec: o.Spec, Status: o.Status}
		}, v.labels)
	case *autoscalingv2.HorizontalPodAutoscaler:
		out, err = viewWith(o, autoscalingv2ac.ExtractHorizontalPodAutoscaler,
			func() *autoscalingv2.HorizontalPodAutoscaler { return &autoscalingv2.HorizontalPodAutoscaler{} }, v.labels)
	case *policyv1.PodDisruptionBudget:
		out, err = viewWith(o, policyv1ac.ExtractPodDisruptionBudget,
			func() *policyv1.PodDisruptionBudget { return &policyv1.PodDisruptionBudget{} }, v.labels)
	default:
		// PVCs are created once and never applied again: kept as they
		// are, with managedFields filtered.
		internMeta(m, v.labels)
		return obj, nil
	}
	if err != nil {
		// Kept whole: the applier extracts from it as from a live object.
		internMeta(m, v.labels)
		return obj, nil
	}
	return out, nil
}

// viewWith builds the view of o: the digest of what we own, o's metadata
// without field sets, and whatever newView copies from o.
func viewWith[O metav1.Object, AC any](o O, extract func(O, string) (AC, error), newView func() O, labels *mapSharer) (O, error) {
	owned, err := extract(o, render.FieldManager)
	if err != nil {
		return o, err
	}
	digest, err := digestOf(owned)
	if err != nil {
		return o, err
	}
	out := newView()
	setViewMeta(out, o, digest, nil, labels)
	return out, nil
}

// deploymentView builds the view of d. Its digest is the cached view's when
// nothing it depends on changed (prior), else extracted from d.
func deploymentView(d *appsv1.Deployment, labels *mapSharer, prior *viewLookup) (*appsv1.Deployment, error) {
	source := deploymentSource(d)
	digest, owns, reused := prior.reusableDigest(d, source)
	if !reused {
		owned, err := appsv1ac.ExtractDeployment(d, render.FieldManager)
		if err != nil {
			return d, err
		}
		if digest, err = digestOf(owned); err != nil {
			return d, err
		}
		owns = owned.Spec != nil && owned.Spec.Replicas != nil
	}
	var extra map[string]string
	if owns {
		extra = map[string]string{viewOwnsReplicas: "true"}
	}
	out := &appsv1.Deployment{Status: d.Status}
	// Of the conditions only failures are read (deploymentFailure); the
	// Available and Progressing ones every Deployment has are dropped.
	out.Status.Conditions = nil
	for _, c := range d.Status.Conditions {
		if isDeploymentFailure(c) {
			out.Status.Conditions = append(out.Status.Conditions, c)
		}
	}
	out.Spec.Replicas = d.Spec.Replicas
	out.Spec.Strategy.Type = d.Spec.Strategy.Type
	// Config retention must not delete the ConfigMap the template mounts.
	for _, v := range d.Spec.Template.Spec.Volumes {
		if v.Name == render.VolumeUserConfig && v.ConfigMap != nil {
			out.Spec.Template.Spec.Volumes = append(out.Spec.Template.Spec.Volumes, corev1.Volume{Name: v.Name,
				VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: v.ConfigMap.LocalObjectReference}}})
		}
	}
	setViewMeta(out, d, digest+source, extra, labels)
	return out, nil
}

// setViewMeta copies the metadata of from to view, with managedFields
// reduced to who has an entry plus the digest entry (content: see
// digestEntry), and the view annotations in extra added. An object without
// annotations gets no map.
func setViewMeta(view, from metav1.Object, digestRaw string, extra map[string]string, labels *mapSharer) {
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
	entries := make([]metav1.ManagedFieldsEntry, 0, len(from.GetManagedFields())+1)
	for _, e := range from.GetManagedFields() {
		e.FieldsV1 = nil
		entries = append(entries, e)
	}
	view.SetManagedFields(append(entries, digestEntry(digestRaw)))
	internMeta(view, labels)
	// Set after interning, with canonical keys, so the map is built once.
	n := len(extra)
	for k := range from.GetAnnotations() {
		if k != corev1.LastAppliedConfigAnnotation {
			n++
		}
	}
	if n == 0 {
		view.SetAnnotations(nil)
		return
	}
	annotations := make(map[string]string, n)
	for k, val := range from.GetAnnotations() {
		if k != corev1.LastAppliedConfigAnnotation {
			annotations[intern(k)] = val
		}
	}
	for k, val := range extra {
		annotations[k] = val
	}
	view.SetAnnotations(annotations)
}

// ownsReplicas reports whether ogx-controller owns spec.replicas of d, a
// cached view or a whole object.
func ownsReplicas(d *appsv1.Deployment) (bool, error) {
	if _, ok := viewDigest(d); ok {
		return d.Annotations[viewOwnsReplicas] == "true", nil
	}
	owned, err := appsv1ac.ExtractDeployment(d, render.FieldManager)
	if err != nil {
		return false, err
	}
	return owned.Spec != nil && owned.Spec.Replicas != nil, nil
}
