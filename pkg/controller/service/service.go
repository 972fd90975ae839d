// Package service holds the controller of each OGXServer's Service
// N-service; it adopts a legacy install's Service for the adopt-networking
// annotation and releases it when the annotation goes (adoption.go).
// Events of Services, adopted or not, start its passes.
package service

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/caches"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/worker"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
	"github.com/ogx-k8s/ogx-controller/pkg/resolve"
)

// Controller converges the Service N-service of every OGXServer and
// adopts (and, when the annotation goes, releases) a legacy Service L-service.
type Controller struct {
	*base.Controller
}

// NewController builds the Service controller on d.
func NewController(d *base.Deps) *Controller {
	c := &Controller{}
	c.Controller = base.NewController(base.ControllerService, d, c.reconcile)
	c.Watched = watched
	return c
}

// watched: the Service's pass starts on events of Services and of
// adopted legacy Services, whose release it decides from their cache.
func watched(w *caches.Sources) []*caches.Source {
	return []*caches.Source{w.Services, w.AdoptedServices}
}

func (c *Controller) reconcile(ctx context.Context, s *ogxv1beta1.OGXServer) (worker.Result, error) {
	name := render.ServiceName(s.Name)
	res, err := c.Deps.Children.Services.Converge(ctx, s, name, render.Service(s, &render.Inputs{}))
	if err != nil {
		return worker.Result{}, err
	}
	c.Deps.Events.Written(s, "Service", name, res)
	return worker.Result{}, c.adoptNetworking(ctx, s)
}

// adoptNetworking takes over Service L-service for adopt-networking:
// ownership transferred and the selector pointed at our pods, ports kept.
func (c *Controller) adoptNetworking(ctx context.Context, s *ogxv1beta1.OGXServer) error {
	key := caches.Key(s.Namespace, s.Name)
	legacy := resolve.AdoptionSource(s, ogxv1beta1.AnnotationAdoptNetworking)
	svcs := c.Deps.Kube.CoreV1().Services(s.Namespace)
	if legacy == "" {
		sc, err := base.AdoptedScope(c.Deps.Caches, s.Namespace)
		if err != nil {
			return err
		}
		cached, err := sc.AdoptedServices.Services(s.Namespace).List(labels.Everything())
		if err != nil {
			return err
		}
		facts, err := base.ReleaseNetworking(ctx, s, "Service", cached, svcs.Delete, c.Deps.Events)
		c.Deps.Board.SetFacts(key, s.UID, c.Name(), facts)
		return err
	}
	svc, err := svcs.Get(ctx, render.ServiceName(legacy), metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		c.Deps.Board.SetFacts(key, s.UID, c.Name(), nil)
		return nil
	}
	if err != nil {
		return err
	}
	changed, err := base.AdoptLegacy(ctx, s, legacy, svc, serviceSelectorPatch(s, svc.Spec.Selector),
		func(ctx context.Context, name string, data []byte) error {
			_, err := svcs.Patch(ctx, name, types.MergePatchType, data, metav1.PatchOptions{FieldManager: render.FieldManager})
			return base.ClassifyWriteErrorOrNil("Service", name, err)
		})
	if err != nil {
		return err
	}
	if changed {
		c.Deps.Events.Normal(s, ogxv1beta1.ReasonNetworkingAdopted, "Networking adopted from "+legacy+" (Service "+svc.Name+")")
	}
	c.Deps.Board.SetFacts(key, s.UID, c.Name(), base.NetworkingAdopted(legacy))
	return nil
}
