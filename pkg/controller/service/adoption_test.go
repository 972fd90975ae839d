package service

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubefake "k8s.io/client-go/kubernetes/fake"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/controllertest"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/record"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
	"github.com/ogx-k8s/ogx-controller/pkg/resolve"
)

func TestServiceSelectorPatch(t *testing.T) {
	s := controllertest.Server(controllertest.Namespace, controllertest.Name, controllertest.UID)
	ours := render.SelectorLabels(controllertest.Name)
	with := func(extra map[string]string) map[string]string {
		out := map[string]string{}
		for k, v := range ours {
			out[k] = v
		}
		for k, v := range extra {
			out[k] = v
		}
		return out
	}
	cases := []struct {
		name    string
		current map[string]string
		want    map[string]any
	}{
		{"already ours", with(nil), nil},
		{"empty", nil, map[string]any{render.LabelApp: render.AppValue, render.LabelInstance: controllertest.Name}},
		{"the legacy instance", with(map[string]string{render.LabelInstance: "legacy"}),
			map[string]any{render.LabelApp: render.AppValue, render.LabelInstance: controllertest.Name}},
		{"extra keys removed", with(map[string]string{"app.kubernetes.io/name": "llama-stack"}),
			map[string]any{render.LabelApp: render.AppValue, render.LabelInstance: controllertest.Name, "app.kubernetes.io/name": nil}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if d := cmp.Diff(c.want, serviceSelectorPatch(s, c.current)); d != "" {
				t.Errorf("selector patch (-want +got):\n%s", d)
			}
		})
	}
}

// TestAdoptLegacyServiceSelector: a Service adoption also points the
// selector at our pods, even when the Service is already ours, and keeps an
// earlier adopted-at.
func TestAdoptLegacyServiceSelector(t *testing.T) {
	s := controllertest.Annotated(ogxv1beta1.AnnotationAdoptNetworking, "legacy")
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "legacy-service", Namespace: controllertest.Namespace, ResourceVersion: "41",
		Labels:          map[string]string{render.LabelAdoptedFrom: "legacy"},
		Annotations:     map[string]string{render.AnnotationAdoptedAt: "2026-01-01T00:00:00Z"},
		OwnerReferences: []metav1.OwnerReference{base.OwnerRefOf(s)}},
		Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "llama"}}}
	kube := kubefake.NewClientset(svc)
	d := &base.Deps{Kube: kube, Board: base.NewOutcomeBoard(record.New()), Events: controllertest.ActiveSink()}
	if err := adoption(d)(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	writes, bodies := controllertest.WriteSummary(t, kube.Actions())
	if d := cmp.Diff([]string{`patch services team-a/legacy-service (application/merge-patch+json, manager "ogx-controller")`}, writes); d != "" {
		t.Errorf("writes (-want +got):\n%s", d)
	}
	want := map[string]any{
		"metadata": map[string]any{"resourceVersion": "41",
			"ownerReferences": []any{map[string]any{"apiVersion": "ogx.io/v1beta1", "kind": "OGXServer", "name": controllertest.Name,
				"uid": string(controllertest.UID), "controller": true, "blockOwnerDeletion": true}},
			"labels": map[string]any{render.LabelAdoptedFrom: "legacy", render.LabelManagedBy: render.ManagedByValue}},
		"spec": map[string]any{"selector": map[string]any{render.LabelApp: render.AppValue, render.LabelInstance: controllertest.Name}},
	}
	if d := cmp.Diff(want, bodies["services"]); d != "" {
		t.Errorf("patch (-want +got):\n%s", d)
	}
}

// TestAdoptionRefusesUnprovenService: a Service that only has the legacy
// install's name keeps its selector; the refusal is a ChildConflict.
func TestAdoptionRefusesUnprovenService(t *testing.T) {
	s := controllertest.Annotated(ogxv1beta1.AnnotationAdoptNetworking, "legacy")
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "legacy-service", Namespace: controllertest.Namespace, ResourceVersion: "41"},
		Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "payments"}}}
	kube := kubefake.NewClientset(svc)
	d := &base.Deps{Kube: kube, Board: base.NewOutcomeBoard(record.New()), Events: controllertest.ActiveSink()}
	err := adoption(d)(context.Background(), s)
	var ue *resolve.UserError
	if !errors.As(err, &ue) || ue.Reason != ogxv1beta1.ReasonChildConflict {
		t.Fatalf("want a %s user error, got %v", ogxv1beta1.ReasonChildConflict, err)
	}
	if writes, _ := controllertest.WriteSummary(t, kube.Actions()); len(writes) != 0 {
		t.Errorf("want no writes, got %v", writes)
	}
}
