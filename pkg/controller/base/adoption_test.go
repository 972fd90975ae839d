package base_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/caches"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/controllertest"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/record"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

// TestNetworkingRelease: with adopt-networking absent, the service and
// ingress controllers release what the adopted-object cache shows this
// server controls, whatever status shows; status is never read for it. A
// released object is orphaned, not deleted: our owner reference, labels and
// adopted-at annotation go, everything else stays.
func TestNetworkingRelease(t *testing.T) {
	ourRef := base.OwnerRefOf(controllertest.Server(controllertest.Namespace, controllertest.Name, controllertest.UID))
	theirRef := metav1.OwnerReference{APIVersion: "ogx.io/v1beta1", Kind: "OGXServer", Name: "other", UID: "u-other", Controller: ptr.To(true)}
	keptRef := metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "keep", UID: "u-keep"}
	adoptedLabel := map[string]string{render.LabelAdoptedFrom: "legacy", render.LabelManagedBy: render.ManagedByValue, "team": "x"}
	removed := []metav1.Condition{{Type: ogxv1beta1.ConditionNetworkingAdopted, Status: metav1.ConditionFalse, Reason: ogxv1beta1.ReasonAdoptionAnnotationRemoved,
		Message: "Adoption annotation removed"}}
	meta := func(name string, labels map[string]string, refs ...metav1.OwnerReference) metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: name, Namespace: controllertest.Namespace, UID: types.UID("uid-" + name), Labels: labels,
			Annotations: map[string]string{render.AnnotationAdoptedAt: "2026-01-01T00:00:00Z", "note": "kept"}, OwnerReferences: refs}
	}
	kinds := []struct {
		kind, resource string
		obj            func(name string, labels map[string]string, refs ...metav1.OwnerReference) runtime.Object
		run            func(*base.Deps, *ogxv1beta1.OGXServer) error
	}{
		{"Service", "services", func(name string, labels map[string]string, refs ...metav1.OwnerReference) runtime.Object {
			return &corev1.Service{ObjectMeta: meta(name, labels, refs...)}
		}, func(d *base.Deps, s *ogxv1beta1.OGXServer) error {
			return base.AdoptNetworking(context.Background(), d, base.ControllerService, s, base.NetworkingKind[*corev1.Service]{
				Kind: "Service", Name: render.ServiceName,
				Patch: func(ctx context.Context, ns, name string, data []byte) error {
					_, err := d.Kube.CoreV1().Services(ns).Patch(ctx, name, types.MergePatchType, data, metav1.PatchOptions{FieldManager: render.FieldManager})
					return err
				},
				Adopted: func(sc *caches.Scope, ns string) ([]*corev1.Service, error) {
					return sc.AdoptedServices.Services(ns).List(labels.Everything())
				}})
		}},
		{"Ingress", "ingresses", func(name string, labels map[string]string, refs ...metav1.OwnerReference) runtime.Object {
			return &networkingv1.Ingress{ObjectMeta: meta(name, labels, refs...)}
		}, func(d *base.Deps, s *ogxv1beta1.OGXServer) error {
			return base.AdoptNetworking(context.Background(), d, base.ControllerIngress, s, base.NetworkingKind[*networkingv1.Ingress]{
				Kind: "Ingress", Name: render.IngressName,
				Patch: func(ctx context.Context, ns, name string, data []byte) error {
					_, err := d.Kube.NetworkingV1().Ingresses(ns).Patch(ctx, name, types.MergePatchType, data, metav1.PatchOptions{FieldManager: render.FieldManager})
					return err
				},
				Adopted: func(sc *caches.Scope, ns string) ([]*networkingv1.Ingress, error) {
					return sc.AdoptedIngresses.Ingresses(ns).List(labels.Everything())
				}})
		}},
	}
	for _, k := range kinds {
		name := "legacy-" + strings.ToLower(k.kind)
		legacy := k.obj(name, adoptedLabel, keptRef, ourRef)
		theirs := k.obj("theirs-"+strings.ToLower(k.kind), adoptedLabel, theirRef)
		own := k.obj(controllertest.Name+"-"+strings.ToLower(k.kind), nil, ourRef)
		orphan := `patch ` + k.resource + ` team-a/` + name + ` (application/merge-patch+json, manager "ogx-controller")`
		released := "Normal NetworkingReleased: Released adopted " + k.kind + ": kept, no longer owned"
		cases := []struct {
			name string
			// shown is the base.NetworkingAdopted status the server shows, if any.
			shown metav1.ConditionStatus
			// api is what the API server holds; the cache holds cached.
			api, cached []runtime.Object
			// conflict: the API server refuses the patch's resourceVersion.
			conflict bool
			facts    []metav1.Condition
			writes   []string
			events   []string
		}{
			{name: "adopted and shown: ours are orphaned", shown: metav1.ConditionTrue,
				api: []runtime.Object{legacy, theirs, own}, cached: []runtime.Object{legacy, theirs, own},
				facts: removed, writes: []string{orphan}, events: []string{released}},
			{name: "adopted, status lacks the condition: still released",
				api: []runtime.Object{legacy, own}, cached: []runtime.Object{legacy, own},
				facts: removed, writes: []string{orphan}, events: []string{released}},
			{name: "status claims adoption, nothing adopted is cached: no release", shown: metav1.ConditionTrue,
				api: []runtime.Object{theirs, own}, cached: []runtime.Object{theirs, own}},
			{name: "gone before the pass: no Event",
				api: []runtime.Object{own}, cached: []runtime.Object{legacy, own},
				facts: removed, writes: []string{orphan}},
			{name: "the cache is behind: the refused patch waits for the watch, no Event",
				api: []runtime.Object{legacy, own}, cached: []runtime.Object{legacy, own}, conflict: true,
				facts: removed, writes: []string{orphan}},
			{name: "released earlier: nothing written", shown: metav1.ConditionFalse,
				api: []runtime.Object{own}, cached: []runtime.Object{own}},
		}
		for _, c := range cases {
			t.Run(k.kind+"/"+c.name, func(t *testing.T) {
				kube := kubefake.NewClientset(c.api...)
				if c.conflict {
					kube.PrependReactor("patch", k.resource, func(a clienttesting.Action) (bool, runtime.Object, error) {
						return true, nil, apierrors.NewConflict(schema.GroupResource{Resource: k.resource}, name, errors.New("stale"))
					})
				}
				d := &base.Deps{Kube: kube, Caches: controllertest.AdoptedCaches(t, c.cached...), Events: controllertest.ActiveSink(),
					Board: base.NewOutcomeBoard(record.New())}
				s := controllertest.Annotated()
				if c.shown != "" {
					s.Status.Conditions = []metav1.Condition{{Type: ogxv1beta1.ConditionNetworkingAdopted, Status: c.shown}}
				}
				if err := k.run(d, s); err != nil {
					t.Fatalf("unexpected error %v", err)
				}
				if d := cmp.Diff(c.facts, d.Board.Facts(controllertest.UID), cmpopts.EquateEmpty()); d != "" {
					t.Errorf("facts (-want +got):\n%s", d)
				}
				writes, _ := controllertest.WriteSummary(t, kube.Actions())
				if d := cmp.Diff(c.writes, writes); d != "" {
					t.Errorf("writes (-want +got):\n%s", d)
				}
				for _, a := range kube.Actions() {
					if a.GetVerb() == "list" || a.GetVerb() == "get" {
						t.Errorf("live read %s %s: the release reads the cache", a.GetVerb(), a.GetResource().Resource)
					}
				}
				if c.events != nil {
					checkOrphaned(t, kube, k.resource, name, keptRef)
				}
				if d := cmp.Diff(c.events, controllertest.DrainEvents(d.Events)); d != "" {
					t.Errorf("events (-want +got):\n%s", d)
				}
			})
		}
	}
}

// checkOrphaned: the released object is still stored, without our owner
// reference, labels and adopted-at, with everything else kept.
func checkOrphaned(t *testing.T, kube *kubefake.Clientset, resource, name string, kept metav1.OwnerReference) {
	t.Helper()
	gvr := corev1.SchemeGroupVersion.WithResource(resource)
	if resource == "ingresses" {
		gvr = networkingv1.SchemeGroupVersion.WithResource(resource)
	}
	obj, err := kube.Tracker().Get(gvr, controllertest.Namespace, name)
	if err != nil {
		t.Fatalf("the released %s is gone: %v", name, err)
	}
	m, _ := apimeta.Accessor(obj)
	if d := cmp.Diff([]metav1.OwnerReference{kept}, m.GetOwnerReferences()); d != "" {
		t.Errorf("owner references (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[string]string{"team": "x"}, m.GetLabels()); d != "" {
		t.Errorf("labels (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[string]string{"note": "kept"}, m.GetAnnotations()); d != "" {
		t.Errorf("annotations (-want +got):\n%s", d)
	}
}
