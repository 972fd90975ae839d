// Package networkpolicy holds the controller of each OGXServer's NetworkPolicy: applied
// while render.WantNetworkPolicy holds, deleted when it turns false (only if this
// OGXServer controls it).
package networkpolicy

import (
	networkingv1 "k8s.io/api/networking/v1"
	networkingv1ac "k8s.io/client-go/applyconfigurations/networking/v1"
	networkinginformers "k8s.io/client-go/informers/networking/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

// Name keys the controller's outcomes and names its queue.
const Name = "networkpolicy"

// kind is the NetworkPolicy kind: only this controller reads it, so it is
// declared here and registered by NewController (base.RegisterKind).
var kind = base.Kind[*networkingv1.NetworkPolicy, *networkingv1ac.NetworkPolicyApplyConfiguration]{
	Kind: "NetworkPolicy", APIVersion: "networking.k8s.io/v1",
	Informer: networkinginformers.NewFilteredNetworkPolicyInformer,
	Client: func(kube kubernetes.Interface, ns string) base.TypedClient[*networkingv1.NetworkPolicy, *networkingv1ac.NetworkPolicyApplyConfiguration] {
		return kube.NetworkingV1().NetworkPolicies(ns)
	},
	Extract: networkingv1ac.ExtractNetworkPolicy,
}

// NewController builds the NetworkPolicy controller and registers its kind.
// Events of the NetworkPolicies the operator labelled start its passes.
func NewController(d *base.Deps) *base.Controller {
	return base.NewOptional(Name, d, base.RegisterKind(d, kind), base.Source(kind.Kind),
		render.NetworkPolicyName, render.WantNetworkPolicy, render.NetworkPolicy)
}
