package ingress

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/caches"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
	"github.com/ogx-k8s/ogx-controller/pkg/resolve"
)

// adoption takes over Ingress L-ingress for adopt-networking (no
// selector to change) and releases it when the annotation goes.
func adoption(d *base.Deps) func(context.Context, *ogxv1beta1.OGXServer) error {
	return func(ctx context.Context, s *ogxv1beta1.OGXServer) error {
		key := caches.Key(s.Namespace, s.Name)
		ings := d.Kube.NetworkingV1().Ingresses(s.Namespace)
		legacy := resolve.AdoptionSource(s, ogxv1beta1.AnnotationAdoptNetworking)
		if legacy == "" {
			sc, err := base.AdoptedScope(d.Caches, s.Namespace)
			if err != nil {
				return err
			}
			cached, err := sc.AdoptedIngresses.Ingresses(s.Namespace).List(labels.Everything())
			if err != nil {
				return err
			}
			facts, err := base.ReleaseNetworking(ctx, s, "Ingress", cached, ings.Delete, d.Events)
			d.Board.SetFacts(key, s.UID, base.ControllerIngress, facts)
			return err
		}
		ing, err := ings.Get(ctx, render.IngressName(legacy), metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			d.Board.SetFacts(key, s.UID, base.ControllerIngress, nil)
			return nil
		}
		if err != nil {
			return err
		}
		changed, err := base.AdoptLegacy(ctx, s, legacy, ing, nil, func(ctx context.Context, name string, data []byte) error {
			_, err := ings.Patch(ctx, name, types.MergePatchType, data, metav1.PatchOptions{FieldManager: render.FieldManager})
			return base.ClassifyWriteErrorOrNil("Ingress", name, err)
		})
		if err != nil {
			return err
		}
		if changed {
			d.Events.Normal(s, ogxv1beta1.ReasonNetworkingAdopted, "Networking adopted from "+legacy+" (Ingress "+ing.Name+")")
		}
		d.Board.SetFacts(key, s.UID, base.ControllerIngress, base.NetworkingAdopted(legacy))
		return nil
	}
}
