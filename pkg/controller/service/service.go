// Package service holds the controller of each OGXServer's Service
// N-service; it adopts a legacy install's Service for the adopt-networking
// annotation and releases it when the annotation goes (adoption.go).
// Events of Services, adopted or not, start its passes.
package service

import (
	"context"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/caches"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/worker"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

// Controller converges the Service N-service of every OGXServer and
// adopts (and, when the annotation goes, releases) a legacy Service L-service.
type Controller struct {
	*base.Controller
	// networking adopts and releases the legacy Service (adoption.go).
	networking func(context.Context, *ogxv1beta1.OGXServer) error
}

// NewController builds the Service controller on d.
func NewController(d *base.Deps) *Controller {
	c := &Controller{networking: adoption(d)}
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
	return worker.Result{}, c.networking(ctx, s)
}
