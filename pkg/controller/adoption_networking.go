package controller

// Networking adoption: the legacy Service and Ingress taken over for the
// adopt-networking annotation, and released when it goes.

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

// ingressAdoption takes over Ingress L-ingress for adopt-networking (no
// selector to change) and releases it when the annotation goes.
func ingressAdoption(d *base.Deps) func(context.Context, *ogxv1beta1.OGXServer) error {
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
		changed, err := base.AdoptLegacy(ctx, s, legacy, ing, nil, func(ctx context.Context, name string, data []byte) error {
			_, err := ings.Patch(ctx, name, types.MergePatchType, data, metav1.PatchOptions{FieldManager: render.FieldManager})
			return base.ClassifyWriteErrorOrNil("Ingress", name, err)
		})
		if err != nil {
			return err
		}
		if changed {
			d.Events.Normal(s, "NetworkingAdopted", "Networking adopted from "+legacy+" (Ingress "+ing.Name+")")
		}
		d.Board.SetFacts(key, s.UID, "ingress", base.NetworkingAdopted(legacy))
		return nil
	}
}
