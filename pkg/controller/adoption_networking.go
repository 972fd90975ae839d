package controller

// Networking adoption: the legacy Service and Ingress taken over for the
// adopt-networking annotation, and released when it goes.

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/apply"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/caches"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/events"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
	"github.com/ogx-k8s/ogx-controller/pkg/resolve"
)

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

// serviceSelectorPatch is the selector of an adopted Service: exactly our
// pod labels, every other key removed.
func serviceSelectorPatch(s *ogxv1beta1.OGXServer, current map[string]string) map[string]any {
	want := render.SelectorLabels(s.Name)
	out := map[string]any{}
	same := len(current) == len(want)
	for k, v := range want {
		out[k] = v
		same = same && current[k] == v
	}
	for k := range current {
		if _, ok := want[k]; !ok {
			out[k] = nil
		}
	}
	if same {
		return nil
	}
	return out
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
		sink.Normal(s, "NetworkingReleased", "Released adopted "+kind)
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
func AdoptedScope(caches *caches.Caches, ns string) (*caches.Scope, error) {
	sc := caches.For(ns)
	if sc == nil {
		return nil, fmt.Errorf("namespace %q is not watched", ns)
	}
	return sc, nil
}

// ingressAdoption takes over Ingress L-ingress for adopt-networking (no
// selector to change) and releases it when the annotation goes.
func ingressAdoption(d *Deps) func(context.Context, *ogxv1beta1.OGXServer) error {
	return func(ctx context.Context, s *ogxv1beta1.OGXServer) error {
		key := caches.Key(s.Namespace, s.Name)
		ings := d.Kube.NetworkingV1().Ingresses(s.Namespace)
		legacy := resolve.AdoptionSource(s, ogxv1beta1.AnnotationAdoptNetworking)
		if legacy == "" {
			sc, err := AdoptedScope(d.Caches, s.Namespace)
			if err != nil {
				return err
			}
			cached, err := sc.AdoptedIngresses.Ingresses(s.Namespace).List(labels.Everything())
			if err != nil {
				return err
			}
			facts, err := ReleaseNetworking(ctx, s, "Ingress", cached, ings.Delete, d.Events)
			d.Board.SetFacts(key, s.UID, "ingress", facts)
			return err
		}
		ing, err := ings.Get(ctx, render.IngressName(legacy), metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			d.Board.SetFacts(key, s.UID, "ingress", nil)
			return nil
		}
		if err != nil {
			return err
		}
		changed, err := AdoptLegacy(ctx, s, legacy, ing, nil, func(ctx context.Context, name string, data []byte) error {
			_, err := ings.Patch(ctx, name, types.MergePatchType, data, metav1.PatchOptions{FieldManager: render.FieldManager})
			return ClassifyWriteErrorOrNil("Ingress", name, err)
		})
		if err != nil {
			return err
		}
		if changed {
			d.Events.Normal(s, "NetworkingAdopted", "Networking adopted from "+legacy+" (Ingress "+ing.Name+")")
		}
		d.Board.SetFacts(key, s.UID, "ingress", NetworkingAdopted(legacy))
		return nil
	}
}
