package base_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/controllertest"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

// TestNetworkingRelease: with adopt-networking absent, the service and
// ingress controllers release what the adopted-object cache shows this
// server controls, whatever status shows; status is never read for it.
func TestNetworkingRelease(t *testing.T) {
	ourRef := base.OwnerRefOf(controllertest.Server(controllertest.Namespace, controllertest.Name, controllertest.UID))
	theirRef := metav1.OwnerReference{APIVersion: "ogx.io/v1beta1", Kind: "OGXServer", Name: "other", UID: "u-other", Controller: ptr.To(true)}
	adoptedLabel := map[string]string{render.LabelAdoptedFrom: "legacy"}
	removed := []metav1.Condition{{Type: ogxv1beta1.ConditionNetworkingAdopted, Status: metav1.ConditionFalse, Reason: ogxv1beta1.ReasonAdoptionAnnotationRemoved,
		Message: "Adoption annotation removed"}}
	kinds := []struct {
		kind, resource string
		obj            func(name string, labels map[string]string, refs ...metav1.OwnerReference) runtime.Object
		run            func(*base.Deps, *ogxv1beta1.OGXServer) ([]metav1.Condition, error)
	}{
		{"Service", "services", func(name string, labels map[string]string, refs ...metav1.OwnerReference) runtime.Object {
			return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: controllertest.Namespace, UID: types.UID("uid-" + name),
				Labels: labels, OwnerReferences: refs}}
		}, func(d *base.Deps, s *ogxv1beta1.OGXServer) ([]metav1.Condition, error) {
			sc, err := base.AdoptedScope(d.Caches, s.Namespace)
			if err != nil {
				return nil, err
			}
			cached, err := sc.AdoptedServices.Services(s.Namespace).List(labels.Everything())
			if err != nil {
				return nil, err
			}
			return base.ReleaseNetworking(context.Background(), s, "Service", cached, d.Kube.CoreV1().Services(s.Namespace).Delete, d.Events)
		}},
		{"Ingress", "ingresses", func(name string, labels map[string]string, refs ...metav1.OwnerReference) runtime.Object {
			return &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: controllertest.Namespace, UID: types.UID("uid-" + name),
				Labels: labels, OwnerReferences: refs}}
		}, func(d *base.Deps, s *ogxv1beta1.OGXServer) ([]metav1.Condition, error) {
			sc, err := base.AdoptedScope(d.Caches, s.Namespace)
			if err != nil {
				return nil, err
			}
			cached, err := sc.AdoptedIngresses.Ingresses(s.Namespace).List(labels.Everything())
			if err != nil {
				return nil, err
			}
			return base.ReleaseNetworking(context.Background(), s, "Ingress", cached, d.Kube.NetworkingV1().Ingresses(s.Namespace).Delete, d.Events)
		}},
	}
	for _, k := range kinds {
		legacy := k.obj("legacy-"+strings.ToLower(k.kind), adoptedLabel, ourRef)
		theirs := k.obj("theirs-"+strings.ToLower(k.kind), adoptedLabel, theirRef)
		own := k.obj(controllertest.Name+"-"+strings.ToLower(k.kind), nil, ourRef)
		deleteLegacy := "delete " + k.resource + " team-a/legacy-" + strings.ToLower(k.kind)
		released := "Normal NetworkingReleased: Released adopted " + k.kind
		cases := []struct {
			name string
			// shown is the base.NetworkingAdopted status the server shows, if any.
			shown metav1.ConditionStatus
			// api is what the API server holds; the cache holds cached.
			api, cached []runtime.Object
			facts       []metav1.Condition
			writes      []string
			events      []string
		}{
			{name: "adopted and shown: ours are released", shown: metav1.ConditionTrue,
				api: []runtime.Object{legacy, theirs, own}, cached: []runtime.Object{legacy, theirs, own},
				facts: removed, writes: []string{deleteLegacy}, events: []string{released}},
			{name: "adopted, status lacks the condition: still released",
				api: []runtime.Object{legacy, own}, cached: []runtime.Object{legacy, own},
				facts: removed, writes: []string{deleteLegacy}, events: []string{released}},
			{name: "status claims adoption, nothing adopted is cached: no release", shown: metav1.ConditionTrue,
				api: []runtime.Object{theirs, own}, cached: []runtime.Object{theirs, own}},
			{name: "a pass before the cache saw the deletion: no second Event",
				api: []runtime.Object{own}, cached: []runtime.Object{legacy, own},
				facts: removed, writes: []string{deleteLegacy}},
			{name: "released earlier: nothing written", shown: metav1.ConditionFalse,
				api: []runtime.Object{own}, cached: []runtime.Object{own}},
		}
		for _, c := range cases {
			t.Run(k.kind+"/"+c.name, func(t *testing.T) {
				kube := kubefake.NewClientset(c.api...)
				d := &base.Deps{Kube: kube, Caches: controllertest.AdoptedCaches(t, c.cached...), Events: controllertest.ActiveSink()}
				s := controllertest.Annotated()
				if c.shown != "" {
					s.Status.Conditions = []metav1.Condition{{Type: ogxv1beta1.ConditionNetworkingAdopted, Status: c.shown}}
				}
				facts, err := k.run(d, s)
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
				if d := cmp.Diff(c.facts, facts, cmpopts.EquateEmpty()); d != "" {
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
					if del, ok := a.(clienttesting.DeleteActionImpl); ok {
						if p := del.DeleteOptions.Preconditions; p == nil || p.UID == nil || *p.UID != types.UID("uid-"+del.GetName()) {
							t.Errorf("delete of %s without its UID precondition: %+v", del.GetName(), p)
						}
					}
				}
				if d := cmp.Diff(c.events, controllertest.DrainEvents(d.Events)); d != "" {
					t.Errorf("events (-want +got):\n%s", d)
				}
			})
		}
	}
}
