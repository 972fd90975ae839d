package controller

import (
	"github.com/ogx-k8s/ogx-controller/pkg/controller/caches"
)

// The optional children start their controllers' passes by their own
// events; the ingress controller's also by those of adopted legacy Ingresses,
// whose release it decides from their cache (adoption.go).
func networkPolicyWatches(w *caches.Sources) []*caches.Source {
	return []*caches.Source{w.NetworkPolicies}
}
func hpaWatches(w *caches.Sources) []*caches.Source { return []*caches.Source{w.HPAs} }
func pdbWatches(w *caches.Sources) []*caches.Source { return []*caches.Source{w.PDBs} }
func ingressWatches(w *caches.Sources) []*caches.Source {
	return []*caches.Source{w.Ingresses, w.AdoptedIngresses}
}
