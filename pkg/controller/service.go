package controller

import (
	"context"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/render"
)

// ServiceController converges the Service N-service of every OGXServer.
type ServiceController struct {
	*childController
	children *children
	resolver *resolver
	events   eventSink
}

func newServiceController(d *deps) *ServiceController {
	c := &ServiceController{children: d.children, resolver: d.resolver, events: d.events}
	c.childController = newChildController("service", d.caches, d.board, c.reconcile)
	return c
}

func (c *ServiceController) reconcile(ctx context.Context, s *ogxv1beta1.OGXServer) (Result, error) {
	name := render.ServiceName(s.Name)
	res, err := c.children.services.converge(ctx, s, name, render.Service(s, &render.Inputs{}))
	if err != nil {
		return Result{}, err
	}
	c.events.written(s, "Service", name, res)
	return Result{}, nil
}
