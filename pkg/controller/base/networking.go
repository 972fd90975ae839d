package base

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

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
	patch := func(ctx context.Context, name string, data []byte) error {
		return k.Patch(ctx, s.Namespace, name, data)
	}
	if legacy == "" {
		sc := d.Caches.For(s.Namespace)
		if sc == nil {
			return fmt.Errorf("namespace %q is not watched", s.Namespace)
		}
		cached, err := k.Adopted(sc, s.Namespace)
		if err != nil {
			return err
		}
		facts, err := releaseNetworking(ctx, s, k.Kind, cached, patch, d)
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
	var selector map[string]any
	if k.Selector != nil {
		selector = k.Selector(s, obj)
	}
	changed, err := adoptLegacy(ctx, s, k.Kind, legacy, obj, selector, patch)
	if err != nil {
		return err
	}
	if changed {
		d.Events.Normal(s, ogxv1beta1.ReasonNetworkingAdopted, fmt.Sprintf("Networking adopted from %s (%s %s)", legacy, k.Kind, obj.GetName()))
	}
	d.Board.SetFacts(key, s.UID, controller, NetworkingAdopted(legacy))
	return nil
}

// adoptLegacy transfers a legacy object of kind that proves it belongs to
// legacy (LegacyOwnerCheck) to s with one merge patch: controller owner
// references replaced by ours (the whole list is sent), the adopted-from and
// managed-by labels, the adopted-at annotation and, when selector is set,
// spec.selector. changed is false when it was adopted already.
func adoptLegacy(ctx context.Context, s *ogxv1beta1.OGXServer, kind, legacy string, obj metav1.Object, selector map[string]any,
	patch func(ctx context.Context, name string, data []byte) error) (changed bool, err error) {
	if metav1.IsControlledBy(obj, s) && obj.GetLabels()[render.LabelAdoptedFrom] == legacy && selector == nil {
		return false, nil
	}
	if err := LegacyOwnerCheck(kind, obj, legacy, s); err != nil {
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
	if err := patch(ctx, obj.GetName(), data); err != nil {
		return false, apply.ClassifyWriteError(kind, obj.GetName(), err)
	}
	return true, nil
}

// releaseNetworking handles an absent adopt-networking annotation. Whether
// networking was adopted is a fact of the adopted-object cache, not of
// status: the cached objects labelled ogx.io/adopted-from that s controls
// are the adopted ones (the cache is filled again after a restart, so the
// same decision is reached without history). Each is orphaned, not
// deleted: one merge patch (resourceVersion precondition) drops our owner
// reference, the adopted-from and managed-by labels and the adopted-at
// annotation, so the object stays as the user left it (a Service keeps the
// selector of our pods) and leaves our caches. NetworkingAdopted is then
// False AdoptionAnnotationRemoved, and the Event NetworkingReleased is sent
// once the patches took effect. With nothing adopted nothing is reported;
// status keeps a released state by itself (adoptedConditions).
func releaseNetworking[O metav1.Object](ctx context.Context, s *ogxv1beta1.OGXServer, kind string, cached []O,
	patch func(ctx context.Context, name string, data []byte) error, d *Deps) ([]metav1.Condition, error) {
	released, found := false, false
	for _, o := range cached {
		if !adoptedBy(o, s) {
			continue
		}
		found = true
		data, err := MergePatch(o.GetResourceVersion(), map[string]any{"metadata": map[string]any{
			"ownerReferences": withoutRefsTo(o.GetOwnerReferences(), s.UID),
			"labels":          map[string]any{render.LabelAdoptedFrom: nil, render.LabelManagedBy: nil},
			"annotations":     map[string]any{render.AnnotationAdoptedAt: nil},
		}})
		if err != nil {
			return nil, err
		}
		// NotFound or Conflict: the cache is behind the object, and the
		// watch event that catches it up brings the server back.
		switch err := patch(ctx, o.GetName(), data); {
		case err == nil:
			released = true
		case !apierrors.IsNotFound(err) && !apierrors.IsConflict(err):
			return nil, fmt.Errorf("releasing adopted %s %s: %w", kind, o.GetName(), err)
		}
	}
	if !found {
		return nil, nil
	}
	if released {
		d.Events.Normal(s, ogxv1beta1.EventNetworkingReleased, "Released adopted "+kind+": kept, no longer owned")
	}
	return NetworkingReleased(), nil
}

// withoutRefsTo keeps the owner references to anything but uid.
func withoutRefsTo(refs []metav1.OwnerReference, uid types.UID) []metav1.OwnerReference {
	out := []metav1.OwnerReference{}
	for _, r := range refs {
		if r.UID != uid {
			out = append(out, r)
		}
	}
	return out
}
