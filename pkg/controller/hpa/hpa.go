// Package hpa holds the controller of each OGXServer's HorizontalPodAutoscaler: applied
// while render.WantHPA holds, deleted when it turns false (only if this
// OGXServer controls it).
package hpa

import (
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	autoscalingv2ac "k8s.io/client-go/applyconfigurations/autoscaling/v2"
	autoscalinginformers "k8s.io/client-go/informers/autoscaling/v2"
	"k8s.io/client-go/kubernetes"

	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

// Name keys the controller's outcomes and names its queue.
const Name = "hpa"

// kind is the HorizontalPodAutoscaler kind: only this controller reads it, so it is
// declared here and registered by NewController (base.RegisterKind).
var kind = base.Kind[*autoscalingv2.HorizontalPodAutoscaler, *autoscalingv2ac.HorizontalPodAutoscalerApplyConfiguration]{
	Kind: "HorizontalPodAutoscaler", APIVersion: "autoscaling/v2",
	Informer: autoscalinginformers.NewFilteredHorizontalPodAutoscalerInformer,
	Client: func(kube kubernetes.Interface, ns string) base.TypedClient[*autoscalingv2.HorizontalPodAutoscaler, *autoscalingv2ac.HorizontalPodAutoscalerApplyConfiguration] {
		return kube.AutoscalingV2().HorizontalPodAutoscalers(ns)
	},
	Extract: autoscalingv2ac.ExtractHorizontalPodAutoscaler,
}

// NewController builds the HorizontalPodAutoscaler controller and registers its kind.
// Events of the HorizontalPodAutoscalers the operator labelled start its passes.
func NewController(d *base.Deps) *base.Controller {
	return base.NewOptional(Name, d, base.RegisterKind(d, kind), base.Source(kind.Kind),
		render.HPAName, render.WantHPA, render.HPA)
}
