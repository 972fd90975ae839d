// Package hpa holds the controller of each OGXServer's HorizontalPodAutoscaler: applied
// while render.WantHPA holds, deleted when it turns false (only if this
// OGXServer controls it).
package hpa

import (
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/caches"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

// NewController builds the HorizontalPodAutoscaler controller. Events of the
// HorizontalPodAutoscalers the operator labelled start its passes.
func NewController(d *base.Deps) *base.Controller {
	return base.NewOptional(base.ControllerHPA, "HorizontalPodAutoscaler", d, d.Children.HPAs, watched,
		render.HPAName, render.WantHPA, render.HPA)
}

// watched are the sources whose events start its passes.
func watched(w *caches.Sources) []*caches.Source { return []*caches.Source{w.HPAs} }
