package ingress

import (
	"context"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/caches"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

// adoption takes over Ingress L-ingress for adopt-networking (no
// selector to change) and releases it when the annotation goes.
func adoption(d *base.Deps) func(context.Context, *ogxv1beta1.OGXServer) error {
	ings := d.Kube.NetworkingV1()
	kind := base.NetworkingKind[*networkingv1.Ingress]{
		Kind: "Ingress", Name: render.IngressName,
		Get: func(ctx context.Context, ns, name string) (*networkingv1.Ingress, error) {
			return ings.Ingresses(ns).Get(ctx, name, metav1.GetOptions{})
		},
		Patch: func(ctx context.Context, ns, name string, data []byte) error {
			_, err := ings.Ingresses(ns).Patch(ctx, name, types.MergePatchType, data, metav1.PatchOptions{FieldManager: render.FieldManager})
			return err
		},
		Adopted: func(sc *caches.Scope, ns string) ([]*networkingv1.Ingress, error) {
			return sc.AdoptedIngresses.Ingresses(ns).List(labels.Everything())
		},
	}
	return func(ctx context.Context, s *ogxv1beta1.OGXServer) error {
		return base.AdoptNetworking(ctx, d, base.ControllerIngress, s, kind)
	}
}
