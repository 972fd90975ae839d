package base

import (
	"context"
	"fmt"
	"slices"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/apply"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/caches"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
	"github.com/ogx-k8s/ogx-controller/pkg/resolve"
)

// NetworkingKind is one kind of legacy object adopt-networking takes over
// (Service L-service, Ingress L-ingress): how the service and ingress
// controllers read and patch it.
type NetworkingKind[O metav1.Object] struct {
	Kind string
	// Name is the legacy object's name for the LlamaStackDistribution L.
	Name func(legacy string) string
	// Get reads it live: it carries none of our labels, so no cache holds
	// it before adoption.
	Get   func(ctx context.Context, ns, name string) (O, error)
	Patch func(ctx context.Context, ns, name string, data []byte) error
	// Adopted lists the scope's cached objects labelled ogx.io/adopted-from.
	Adopted func(sc *caches.Scope, ns string) ([]O, error)
	// Selector is the spec.selector patch that points it at s's pods, nil
	// when it needs none (docs/controllers.md, Networking adoption).
	Selector func(s *ogxv1beta1.OGXServer, obj O) map[string]any
}

// AdoptNetworking takes over kind k's legacy object while adopt-networking
// names a LlamaStackDistribution, and releases it once the annotation is
// gone; the outcome is a fact of controller for status.
func AdoptNetworking[O metav1.Object](ctx context.Context, d *Deps, controller string, s *ogxv1beta1.OGXServer, k NetworkingKind[O]) error {
	key := caches.Key(s.Namespace, s.Name)
	legacy := resolve.AdoptionSource(s, ogxv1beta1.AnnotationAdoptNetworking)
	if legacy == "" {
		sc := d.Caches.For(s.Namespace)
		if sc == nil {
			return fmt.Errorf("namespace %q is not watched", s.Namespace)
		}
		cached, err := k.Adopted(sc, s.Namespace)
		if err != nil {
			return err
		}
		facts, err := releaseNetworking(ctx, d, s, k, cached)
		d.Board.SetFacts(key, s.UID, controller, facts)
		return err
	}
	obj, err := k.Get(ctx, s.Namespace, k.Name(legacy))
	if apierrors.IsNotFound(err) {
		d.Board.SetFacts(key, s.UID, controller, nil)
		return nil
	}
	if err != nil {
		return err
	}
	changed, err := adoptLegacy(ctx, s, k, legacy, obj)
	if err != nil {
		return err
	}
	if changed {
		d.Events.Normal(s, ogxv1beta1.ReasonNetworkingAdopted, fmt.Sprintf("Networking adopted from %s (%s %s)", legacy, k.Kind, obj.GetName()))
	}
	d.Board.SetFacts(key, s.UID, controller, []metav1.Condition{{Type: ogxv1beta1.ConditionNetworkingAdopted,
		Status: metav1.ConditionTrue, Reason: ogxv1beta1.ReasonNetworkingAdopted, Message: "Networking adopted from " + legacy}})
	return nil
}

// adoptLegacy transfers obj, once it proves it belongs to legacy
// (LegacyOwnerCheck), to s with one merge patch (docs/controllers.md,
// Networking adoption); changed is false when it was adopted already.
func adoptLegacy[O metav1.Object](ctx context.Context, s *ogxv1beta1.OGXServer, k NetworkingKind[O], legacy string, obj O) (changed bool, err error) {
	var selector map[string]any
	if k.Selector != nil {
		selector = k.Selector(s, obj)
	}
	if metav1.IsControlledBy(obj, s) && obj.GetLabels()[render.LabelAdoptedFrom] == legacy && selector == nil {
		return false, nil
	}
	if err := LegacyOwnerCheck(k.Kind, obj, legacy, s); err != nil {
		return false, err
	}
	md := map[string]any{
		"ownerReferences": append(WithoutControllerRefs(obj.GetOwnerReferences()), OwnerRefOf(s)),
		"labels":          map[string]string{render.LabelAdoptedFrom: legacy, render.LabelManagedBy: render.ManagedByValue},
	}
	if obj.GetAnnotations()[render.AnnotationAdoptedAt] == "" {
		md["annotations"] = map[string]string{render.AnnotationAdoptedAt: AdoptedAt(time.Now())}
	}
	body := map[string]any{"metadata": md}
	if selector != nil {
		body["spec"] = map[string]any{"selector": selector}
	}
	data, err := MergePatch(obj.GetResourceVersion(), body)
	if err != nil {
		return false, err
	}
	if err := k.Patch(ctx, s.Namespace, obj.GetName(), data); err != nil {
		return false, apply.ClassifyWriteError(k.Kind, obj.GetName(), err)
	}
	return true, nil
}

// releaseNetworking orphans, with one merge patch each, the cached adopted
// objects s controls once adopt-networking is gone: the cache, not status,
// says what was adopted, so a restarted process decides the same
// (docs/controllers.md, Networking adoption). With nothing adopted nothing
// is reported; status keeps a released state by itself (adoptedConditions).
func releaseNetworking[O metav1.Object](ctx context.Context, d *Deps, s *ogxv1beta1.OGXServer, k NetworkingKind[O], cached []O) ([]metav1.Condition, error) {
	released, found := false, false
	for _, o := range cached {
		if !adoptedBy(o, s) {
			continue
		}
		found = true
		refs := slices.DeleteFunc(append([]metav1.OwnerReference{}, o.GetOwnerReferences()...),
			func(r metav1.OwnerReference) bool { return r.UID == s.UID })
		data, err := MergePatch(o.GetResourceVersion(), map[string]any{"metadata": map[string]any{
			"ownerReferences": refs,
			"labels":          map[string]any{render.LabelAdoptedFrom: nil, render.LabelManagedBy: nil},
			"annotations":     map[string]any{render.AnnotationAdoptedAt: nil},
		}})
		if err != nil {
			return nil, err
		}
		// NotFound or Conflict: the cache is behind the object, and the
		// watch event that catches it up brings the server back.
		switch err := k.Patch(ctx, s.Namespace, o.GetName(), data); {
		case err == nil:
			released = true
		case !apierrors.IsNotFound(err) && !apierrors.IsConflict(err):
			return nil, fmt.Errorf("releasing adopted %s %s: %w", k.Kind, o.GetName(), err)
		}
	}
	if !found {
		return nil, nil
	}
	if released {
		d.Events.Normal(s, ogxv1beta1.EventNetworkingReleased, "Released adopted "+k.Kind+": kept, no longer owned")
	}
	return NetworkingReleased(), nil
}

// adoptedBy: o carries the ogx.io/adopted-from label and s controls it.
func adoptedBy(o metav1.Object, s *ogxv1beta1.OGXServer) bool {
	_, ok := o.GetLabels()[render.LabelAdoptedFrom]
	return ok && metav1.IsControlledBy(o, s)
}

// NetworkingReleased is the NetworkingAdopted condition once the annotation
// is gone: reported by the pass that releases, and kept by status after
// that (adoptedConditions).
func NetworkingReleased() []metav1.Condition {
	return []metav1.Condition{{Type: ogxv1beta1.ConditionNetworkingAdopted, Status: metav1.ConditionFalse, Reason: ogxv1beta1.ReasonAdoptionAnnotationRemoved,
		Message: "Adoption annotation removed"}}
}
