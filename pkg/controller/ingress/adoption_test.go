package ingress

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/controllertest"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/record"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
	"github.com/ogx-k8s/ogx-controller/pkg/resolve"
)

func TestIngressAdoption(t *testing.T) {
	lsdRef := metav1.OwnerReference{APIVersion: "llamastack.io/v1alpha1", Kind: base.LegacyKind, Name: "legacy", UID: "u-lsd", Controller: ptr.To(true)}
	keptRef := metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "keep", UID: "u-keep"}
	ourRef := base.OwnerRefOf(controllertest.Server(controllertest.Namespace, controllertest.Name, controllertest.UID))
	ingress := func(name string, labels map[string]string, refs ...metav1.OwnerReference) *networkingv1.Ingress {
		return &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: controllertest.Namespace, UID: types.UID("uid-" + name),
			ResourceVersion: "31", Labels: labels, OwnerReferences: refs}}
	}
	adoptedLabel := map[string]string{render.LabelAdoptedFrom: "legacy"}
	adopted := []metav1.Condition{{Type: ogxv1beta1.ConditionNetworkingAdopted, Status: metav1.ConditionTrue, Reason: ogxv1beta1.ReasonNetworkingAdopted,
		Message: "Networking adopted from legacy"}}
	const patchLegacy = `patch ingresses team-a/legacy-ingress (application/merge-patch+json, manager "ogx-controller")`

	// Releasing after the annotation is removed: TestNetworkingRelease.
	cases := []struct {
		name string
		// annotation is the adopt-networking value.
		annotation string
		objs       []runtime.Object
		user       string
		facts      []metav1.Condition
		writes     []string
		body       map[string]any
		events     []string
	}{
		{name: "the legacy Ingress does not exist", annotation: "legacy"},
		{
			name:       "the legacy Ingress is taken over",
			annotation: "legacy",
			objs:       []runtime.Object{ingress("legacy-ingress", map[string]string{"team": "x"}, lsdRef, keptRef)},
			facts:      adopted,
			writes:     []string{patchLegacy},
			body: map[string]any{"metadata": map[string]any{
				"resourceVersion": "31",
				"ownerReferences": []any{
					map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "name": "keep", "uid": "u-keep"},
					map[string]any{"apiVersion": "ogx.io/v1beta1", "kind": "OGXServer", "name": controllertest.Name, "uid": string(controllertest.UID),
						"controller": true, "blockOwnerDeletion": true}},
				"labels":      map[string]any{render.LabelAdoptedFrom: "legacy", render.LabelManagedBy: render.ManagedByValue},
				"annotations": map[string]any{},
			}},
			events: []string{"Normal NetworkingAdopted: Networking adopted from legacy (Ingress legacy-ingress)"},
		},
		{
			name:       "an unowned Ingress labelled by the legacy operator is taken over",
			annotation: "legacy",
			objs:       []runtime.Object{ingress("legacy-ingress", map[string]string{"app": "llama-stack", render.LabelInstance: "legacy"})},
			facts:      adopted,
			writes:     []string{patchLegacy},
			body: map[string]any{"metadata": map[string]any{
				"resourceVersion": "31",
				"ownerReferences": []any{
					map[string]any{"apiVersion": "ogx.io/v1beta1", "kind": "OGXServer", "name": controllertest.Name, "uid": string(controllertest.UID),
						"controller": true, "blockOwnerDeletion": true}},
				"labels":      map[string]any{render.LabelAdoptedFrom: "legacy", render.LabelManagedBy: render.ManagedByValue},
				"annotations": map[string]any{},
			}},
			events: []string{"Normal NetworkingAdopted: Networking adopted from legacy (Ingress legacy-ingress)"},
		},
		{
			name:       "an unowned Ingress that only has the install's name is refused",
			annotation: "legacy",
			objs:       []runtime.Object{ingress("legacy-ingress", map[string]string{"team": "x"})},
			user:       ogxv1beta1.ReasonChildConflict,
		},
		{
			name:       "already adopted: nothing is written",
			annotation: "legacy",
			objs:       []runtime.Object{ingress("legacy-ingress", adoptedLabel, ourRef)},
			facts:      adopted,
		},
		{
			name:       "someone else controls the legacy Ingress",
			annotation: "legacy",
			objs:       []runtime.Object{ingress("legacy-ingress", nil, metav1.OwnerReference{APIVersion: "v1", Kind: "Service", Name: "x", UID: "u-x", Controller: ptr.To(true)})},
			user:       ogxv1beta1.ReasonChildConflict,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			kube := kubefake.NewClientset(c.objs...)
			d := &base.Deps{Kube: kube, Board: base.NewOutcomeBoard(record.New()), Events: controllertest.ActiveSink()}
			s := controllertest.Annotated(ogxv1beta1.AnnotationAdoptNetworking, c.annotation)
			err := adoption(d)(context.Background(), s)
			var ue *resolve.UserError
			switch {
			case c.user != "":
				if !errors.As(err, &ue) || ue.Reason != c.user {
					t.Errorf("want a %s user error, got %v", c.user, err)
				}
			case err != nil:
				t.Errorf("unexpected error %v", err)
			}
			if d := cmp.Diff(c.facts, d.Board.Facts(controllertest.UID), cmpopts.EquateEmpty()); d != "" {
				t.Errorf("facts (-want +got):\n%s", d)
			}
			writes, bodies := controllertest.WriteSummary(t, kube.Actions())
			if d := cmp.Diff(c.writes, writes); d != "" {
				t.Errorf("writes (-want +got):\n%s", d)
			}
			if b := bodies["ingresses"]; b != nil {
				controllertest.AdoptedAtOf(t, b)
			}
			if d := cmp.Diff(c.body, bodies["ingresses"], cmpopts.EquateEmpty()); d != "" {
				t.Errorf("patch body (-want +got):\n%s", d)
			}
			if d := cmp.Diff(c.events, controllertest.DrainEvents(d.Events)); d != "" {
				t.Errorf("events (-want +got):\n%s", d)
			}
		})
	}
}
