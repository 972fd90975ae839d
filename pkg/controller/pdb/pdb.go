// Package pdb holds the controller of each OGXServer's PodDisruptionBudget: applied
// while render.WantPDB holds, deleted when it turns false (only if this
// OGXServer controls it).
package pdb

import (
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/caches"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

// NewController builds the PodDisruptionBudget controller. Events of the
// PodDisruptionBudgets the operator labelled start its passes.
func NewController(d *base.Deps) *base.Controller {
	return base.NewOptional(base.ControllerPDB, "PodDisruptionBudget", d, d.Children.PDBs, watched,
		render.PDBName, render.WantPDB, render.PDB)
}

// watched are the sources whose events start its passes.
func watched(w *caches.Sources) []*caches.Source { return []*caches.Source{w.PDBs} }
