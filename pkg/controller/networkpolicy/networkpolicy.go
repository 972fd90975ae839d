// Package networkpolicy holds the controller of each OGXServer's NetworkPolicy: applied
// while render.WantNetworkPolicy holds, deleted when it turns false (only if this
// OGXServer controls it).
package networkpolicy

import (
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/caches"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

// NewController builds the NetworkPolicy controller. Events of the
// NetworkPolicies the operator labelled start its passes.
func NewController(d *base.Deps) *base.Controller {
	return base.NewOptional(base.ControllerNetworkPolicy, "NetworkPolicy", d, d.Children.NetworkPolicies, watched,
		render.NetworkPolicyName, render.WantNetworkPolicy, render.NetworkPolicy)
}

// watched are the sources whose events start its passes.
func watched(w *caches.Sources) []*caches.Source { return []*caches.Source{w.NetworkPolicies} }
