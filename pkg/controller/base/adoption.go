package base

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1/validation"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/apply"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/caches"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/events"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/worker"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
	"github.com/ogx-k8s/ogx-controller/pkg/resolve"
)

// The legacy resource that adoption takes over.
const (
	legacyGroup = "llamastack.io"
	LegacyKind  = "LlamaStackDistribution"
)

// AdoptionAnnotationProblems words each A4/A5 failure of the adoption
// annotations for the AdoptionConfigInvalid condition and the
// AdoptionInvalid Event: "<annotation>: value "<v>" ..."
// (docs/controllers.md, Annotation validation).
func AdoptionAnnotationProblems(s *ogxv1beta1.OGXServer) []string {
	var problems []string
	for _, e := range validation.ValidateAdoption(s) {
		annotation := strings.TrimSuffix(strings.TrimPrefix(e.Field, "metadata.annotations["), "]")
		detail := e.Detail
		if strings.HasPrefix(detail, "adoption annotation value must not equal the CR name") {
			detail = fmt.Sprintf("value %q must not equal the CR name; same-name adoption causes resource conflicts", fmt.Sprint(e.BadValue))
		}
		problems = append(problems, annotation+": "+detail)
	}
	return problems
}

// LegacyOwnerCheck reports whether obj has no controller owner, or only the
// LlamaStackDistribution being adopted, or this OGXServer; anything else is
// a clear error rather than a takeover.
func LegacyOwnerCheck(obj metav1.Object, legacy string, s *ogxv1beta1.OGXServer) error {
	ref := metav1.GetControllerOfNoCopy(obj)
	if ref == nil || ref.UID == s.UID {
		return nil
	}
	gv, _ := schema.ParseGroupVersion(ref.APIVersion)
	if gv.Group == legacyGroup && ref.Kind == LegacyKind && ref.Name == legacy {
		return nil
	}
	return resolve.NewUserError(ogxv1beta1.ReasonChildConflict, "failed to adopt %s: unexpected controller owner %s/%s", obj.GetName(), ref.Kind, ref.Name)
}

// WithoutControllerRefs keeps the owner references that are not
// controllers: a merge patch replaces the list whole.
func WithoutControllerRefs(refs []metav1.OwnerReference) []metav1.OwnerReference {
	out := []metav1.OwnerReference{}
	for _, r := range refs {
		if r.Controller == nil || !*r.Controller {
			out = append(out, r)
		}
	}
	return out
}

// OwnerRefOf is the controller owner reference of an OGXServer.
func OwnerRefOf(s *ogxv1beta1.OGXServer) metav1.OwnerReference {
	t := true
	return metav1.OwnerReference{APIVersion: ogxv1beta1.SchemeGroupVersion.String(), Kind: "OGXServer",
		Name: s.Name, UID: s.UID, Controller: &t, BlockOwnerDeletion: &t}
}

// MergePatch marshals a merge patch with a resourceVersion precondition.
func MergePatch(resourceVersion string, body map[string]any) ([]byte, error) {
	md, _ := body["metadata"].(map[string]any)
	if md == nil {
		md = map[string]any{}
		body["metadata"] = md
	}
	md["resourceVersion"] = resourceVersion
	return json.Marshal(body)
}

// AdoptedAt is the value of the adopted-at annotation written at now.
func AdoptedAt(now time.Time) string { return now.UTC().Format(time.RFC3339) }

// CachedAdoptedPVCs are the PVCs of the adopted-PVC cache labelled as
// adopted for the instance.
func CachedAdoptedPVCs(c *caches.Caches, ns, instance string) ([]*corev1.PersistentVolumeClaim, error) {
	sc, err := AdoptedScope(c, ns)
	if err != nil {
		return nil, err
	}
	// The cache holds only PVCs with the adopted-from label, a handful per
	// namespace at most: filtering them here is cheaper than parsing a
	// selector on every status pass.
	all, err := sc.AdoptedPVCs.PersistentVolumeClaims(ns).List(labels.Everything())
	if err != nil {
		return nil, err
	}
	var out []*corev1.PersistentVolumeClaim
	for _, p := range all {
		if _, adopted := p.Labels[render.LabelAdoptedFrom]; adopted && p.Labels[render.LabelInstance] == instance {
			out = append(out, p)
		}
	}
	return out, nil
}

// StorageAdoptionGate keeps the Deployment untouched while a valid
// adopt-storage names a PVC that is not adopted yet (legacy pods may still
// use it).
func StorageAdoptionGate(ctx context.Context, r *Resolver, s *ogxv1beta1.OGXServer) error {
	name, err := r.PendingStorageAdoption(ctx, s)
	if err != nil || name == "" {
		return err
	}
	return &worker.WaitingError{Reason: ogxv1beta1.ReasonAdoptionInProgress, Message: fmt.Sprintf("waiting for storage adoption of PVC %s", name)}
}

// NetworkingAdopted is the NetworkingAdopted condition of a pass.
func NetworkingAdopted(legacy string) []metav1.Condition {
	return []metav1.Condition{{Type: ogxv1beta1.ConditionNetworkingAdopted, Status: metav1.ConditionTrue, Reason: ogxv1beta1.ReasonNetworkingAdopted,
		Message: fmt.Sprintf("Networking adopted from %s", legacy)}}
}

// AdoptLegacy transfers a legacy Service or Ingress to this OGXServer with
// one merge patch: controller owner references replaced by ours (the whole
// list is sent), the adopted-from and managed-by labels, the adopted-at
// annotation and, for a Service, the selector pointed at our pods. absent
// means there is nothing to adopt.
func AdoptLegacy(ctx context.Context, s *ogxv1beta1.OGXServer, legacy string, obj metav1.Object, selector map[string]any,
	patchFn func(ctx context.Context, name string, data []byte) error) (changed bool, err error) {
	ref := metav1.GetControllerOfNoCopy(obj)
	if ref != nil && ref.UID == s.UID && obj.GetLabels()[render.LabelAdoptedFrom] == legacy && selector == nil {
		return false, nil
	}
	if err := LegacyOwnerCheck(obj, legacy, s); err != nil {
		return false, err
	}
	refs := append(WithoutControllerRefs(obj.GetOwnerReferences()), OwnerRefOf(s))
	md := map[string]any{
		"ownerReferences": refs,
		"labels":          map[string]string{render.LabelAdoptedFrom: legacy, render.LabelManagedBy: render.ManagedByValue},
	}
	if obj.GetAnnotations()[render.AnnotationAdoptedAt] == "" {
		md["annotations"] = map[string]string{render.AnnotationAdoptedAt: AdoptedAt(time.Now())}
	}
	body := map[string]any{"metadata": md}
	if selector != nil {
		body["spec"] = map[string]any{"selector": selector}
	}
	patch, err := MergePatch(obj.GetResourceVersion(), body)
	if err != nil {
		return false, err
	}
	return true, patchFn(ctx, obj.GetName(), patch)
}

// ClassifyWriteErrorOrNil is apply.ClassifyWriteError that passes nil through.
func ClassifyWriteErrorOrNil(kind, name string, err error) error {
	if err == nil {
		return nil
	}
	return apply.ClassifyWriteError(kind, name, err)
}

// ReleaseNetworking handles an absent adopt-networking annotation. Whether
// networking was adopted is a fact of the adopted-object cache, not of
// status: cached lists the cached objects of kind labelled
// ogx.io/adopted-from, and those this OGXServer controls are the adopted ones
// (the cache is filled again after an operator restart, so the same decision
// is reached without any history). Each is deleted with a UID precondition
// and NetworkingAdopted is reported False AdoptionAnnotationRemoved. The
// Event NetworkingReleased is recorded only when a delete took effect: a
// pass that runs before the cache has seen the deletions gets NotFound and
// records no second one. With nothing adopted nothing is reported; status
// keeps showing a released state by itself (adoptedConditions).
func ReleaseNetworking[O metav1.Object](ctx context.Context, s *ogxv1beta1.OGXServer, kind string, cached []O,
	del func(context.Context, string, metav1.DeleteOptions) error, sink *events.Sink) ([]metav1.Condition, error) {
	released, found := false, false
	for _, o := range cached {
		if !adoptedBy(o, s) {
			continue
		}
		found = true
		uid := o.GetUID()
		err := del(ctx, o.GetName(), metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
		switch {
		case err == nil:
			released = true
		case !apierrors.IsNotFound(err):
			return nil, fmt.Errorf("deleting adopted %s %s: %w", kind, o.GetName(), err)
		}
	}
	if !found {
		return nil, nil
	}
	if released {
		sink.Normal(s, ogxv1beta1.EventNetworkingReleased, "Released adopted "+kind)
	}
	return NetworkingReleased(), nil
}

// adoptedBy: o carries the ogx.io/adopted-from label and s controls it.
func adoptedBy(o metav1.Object, s *ogxv1beta1.OGXServer) bool {
	if _, ok := o.GetLabels()[render.LabelAdoptedFrom]; !ok {
		return false
	}
	ref := metav1.GetControllerOfNoCopy(o)
	return ref != nil && ref.UID == s.UID
}

// NetworkingReleased is the NetworkingAdopted condition once the annotation
// is gone: reported by the pass that releases, and kept by status after
// that (adoptedConditions).
func NetworkingReleased() []metav1.Condition {
	return []metav1.Condition{{Type: ogxv1beta1.ConditionNetworkingAdopted, Status: metav1.ConditionFalse, Reason: ogxv1beta1.ReasonAdoptionAnnotationRemoved,
		Message: "Adoption annotation removed"}}
}

// AdoptedScope is the scope caching ns, or an error when ns is not watched.
func AdoptedScope(c *caches.Caches, ns string) (*caches.Scope, error) {
	sc := c.For(ns)
	if sc == nil {
		return nil, fmt.Errorf("namespace %q is not watched", ns)
	}
	return sc, nil
}
