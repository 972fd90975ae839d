// Package pdb holds the controller of each OGXServer's PodDisruptionBudget: applied
// while render.WantPDB holds, deleted when it turns false (only if this
// OGXServer controls it).
package pdb

import (
	policyv1 "k8s.io/api/policy/v1"
	policyv1ac "k8s.io/client-go/applyconfigurations/policy/v1"
	policyinformers "k8s.io/client-go/informers/policy/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

// Name keys the controller's outcomes and names its queue.
const Name = "pdb"

// kind is the PodDisruptionBudget kind: only this controller reads it, so it is
// declared here and registered by NewController (base.RegisterKind).
var kind = base.Kind[*policyv1.PodDisruptionBudget, *policyv1ac.PodDisruptionBudgetApplyConfiguration]{
	Kind: "PodDisruptionBudget", APIVersion: "policy/v1",
	Informer: policyinformers.NewFilteredPodDisruptionBudgetInformer,
	Client: func(kube kubernetes.Interface, ns string) base.TypedClient[*policyv1.PodDisruptionBudget, *policyv1ac.PodDisruptionBudgetApplyConfiguration] {
		return kube.PolicyV1().PodDisruptionBudgets(ns)
	},
	Extract: policyv1ac.ExtractPodDisruptionBudget,
}

// NewController builds the PodDisruptionBudget controller and registers its kind.
// Events of the PodDisruptionBudgets the operator labelled start its passes.
func NewController(d *base.Deps) *base.Controller {
	return base.NewOptional(Name, d, base.RegisterKind(d, kind), base.Source(kind.Kind),
		render.PDBName, render.WantPDB, render.PDB)
}
