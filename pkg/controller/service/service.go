// Package service holds the controller of each OGXServer's Service
// N-service; it adopts a legacy install's Service for the adopt-networking
// annotation and releases it when the annotation goes (adoption.go).
// Events of Services, adopted or not, start its passes.
package service

import (
	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/caches"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

// NewController builds the Service controller on d, which converges the
// Service N-service of every OGXServer and adopts (and, when the annotation
// goes, releases) a legacy Service L-service: an optional child that is
// always wanted, followed by the networking adoption.
func NewController(d *base.Deps) *base.Controller {
	always := func(*ogxv1beta1.OGXServer) bool { return true }
	return base.NewOptional(base.ControllerService, d, d.Children.Services, watched,
		render.ServiceName, always, render.Service, adoption(d))
}

// watched: the Service's pass starts on events of Services and of
// adopted legacy Services, whose release it decides from their cache.
func watched(w *caches.Sources) []*caches.Source {
	return []*caches.Source{w.Services, w.AdoptedServices}
}
