package base

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/apply"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/caches"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/events"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/worker"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

// NewOptional builds the controller of a child that is applied
// while want holds and deleted (only if this OGXServer controls it) when it
// does not. watched picks the informers whose events start its passes: its
// kind's, and for the ingress controller also the adopted Ingresses'.
func NewOptional[O metav1.Object, AC any](name string, d *Deps, c *apply.Child[O, AC],
	watched func(*caches.Sources) []*caches.Source,
	childName func(string) string,
	want func(*ogxv1beta1.OGXServer) bool,
	desired func(*ogxv1beta1.OGXServer, *render.Inputs) AC,
	after ...func(context.Context, *ogxv1beta1.OGXServer) error,
) *Controller {
	reconcile := func(ctx context.Context, s *ogxv1beta1.OGXServer) (worker.Result, error) {
		n := childName(s.Name)
		var (
			res events.WriteResult
			err error
		)
		if want(s) {
			in := render.Inputs{OperatorNamespace: d.Opts.OperatorNamespace, ClusterDomain: d.Opts.ClusterDomain}
			res, err = c.Converge(ctx, s, n, desired(s, &in))
		} else {
			res, err = c.Remove(ctx, s, n)
		}
		if err != nil {
			return worker.Result{}, err
		}
		d.Events.Written(s, c.Kind, n, res)
		for _, f := range after {
			if err := f(ctx, s); err != nil {
				return worker.Result{}, err
			}
		}
		return worker.Result{}, nil
	}
	cc := NewController(name, d, reconcile)
	cc.Watched = watched
	return cc
}
