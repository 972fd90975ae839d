package service

import (
	"context"
	"maps"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/caches"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

// serviceSelectorPatch is the selector of an adopted Service: exactly our
// pod labels, every other key removed.
func serviceSelectorPatch(s *ogxv1beta1.OGXServer, current map[string]string) map[string]any {
	want := render.SelectorLabels(s.Name)
	if maps.Equal(current, want) {
		return nil
	}
	out := map[string]any{}
	for k, v := range want {
		out[k] = v
	}
	for k := range current {
		if _, ok := want[k]; !ok {
			out[k] = nil
		}
	}
	return out
}

// adoption takes over Service L-service for adopt-networking (ownership
// transferred and the selector pointed at our pods, ports kept) and
// releases it when the annotation goes.
func adoption(d *base.Deps) func(context.Context, *ogxv1beta1.OGXServer) error {
	svcs := d.Kube.CoreV1()
	kind := base.NetworkingKind[*corev1.Service]{
		Kind: "Service", Name: render.ServiceName,
		Get: func(ctx context.Context, ns, name string) (*corev1.Service, error) {
			return svcs.Services(ns).Get(ctx, name, metav1.GetOptions{})
		},
		Patch: func(ctx context.Context, ns, name string, data []byte) error {
			_, err := svcs.Services(ns).Patch(ctx, name, types.MergePatchType, data, metav1.PatchOptions{FieldManager: render.FieldManager})
			return err
		},
		Adopted: func(sc *caches.Scope, ns string) ([]*corev1.Service, error) {
			return sc.AdoptedServices.Services(ns).List(labels.Everything())
		},
		Selector: func(s *ogxv1beta1.OGXServer, svc *corev1.Service) map[string]any {
			return serviceSelectorPatch(s, svc.Spec.Selector)
		},
	}
	return func(ctx context.Context, s *ogxv1beta1.OGXServer) error {
		return base.AdoptNetworking(ctx, d, base.ControllerService, s, kind)
	}
}
