// Package ingress holds the controller of each OGXServer's Ingress: applied
// while render.WantIngress holds (spec.network.externalAccess.enabled),
// deleted when it turns false (only if this OGXServer controls it). It also
// takes over a legacy install's Ingress for the adopt-networking annotation
// and releases it when the annotation goes (adoption.go).
package ingress

import (
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/caches"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

// NewController builds the Ingress controller. Events of the Ingresses the
// operator labelled, and of adopted legacy Ingresses (whose release it
// decides from their cache), start its passes.
func NewController(d *base.Deps) *base.Controller {
	return base.NewOptional(base.ControllerIngress, d, d.Children.Ingresses, watched,
		render.IngressName, render.WantIngress, render.Ingress, adoption(d))
}

// watched are the sources whose events start its passes.
func watched(w *caches.Sources) []*caches.Source {
	return []*caches.Source{w.Ingresses, w.AdoptedIngresses}
}
