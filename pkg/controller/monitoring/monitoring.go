// Package monitoring holds the controller of each OGXServer's
// ServiceMonitor and PrometheusRule, written while the monitoring API is
// served, through a dynamic client and informers of its own that start and
// stop with the API (monitoring_caches.go).
package monitoring

import (
	"context"
	"errors"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/apply"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/caches"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/worker"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

// The monitoring.coreos.com kinds written by the monitoring controller
// (docs/children.md, ServiceMonitor and PrometheusRule).
var (
	serviceMonitorsGVR = schema.GroupVersionResource{Group: "monitoring.coreos.com", Version: "v1", Resource: "servicemonitors"}
	prometheusRulesGVR = schema.GroupVersionResource{Group: "monitoring.coreos.com", Version: "v1", Resource: "prometheusrules"}
	monitoringGVRs     = []schema.GroupVersionResource{serviceMonitorsGVR, prometheusRulesGVR}
)

// unstructuredChild is the applier of a monitoring kind.
type unstructuredChild = apply.Child[*unstructured.Unstructured, *unstructured.Unstructured]

// Controller converges the ServiceMonitor N-service-monitor and the
// PrometheusRule N-prometheus-rules of every OGXServer while the monitoring
// API is served (docs/children.md, ServiceMonitor and PrometheusRule).
type Controller struct {
	*base.Controller
	caches  *monitoringCaches
	schemas *monitoringSchemas
	// serviceMonitors and prometheusRules are nil without a dynamic client
	// (fake clientsets), which keeps the controller idle.
	serviceMonitors *unstructuredChild
	prometheusRules *unstructuredChild
}

// NewController builds the monitoring controller. Its dynamic client shares
// kube's HTTP client and rate limiter; with a clientset not backed by a REST
// client (fakes) the controller stays idle.
func NewController(d *base.Deps) *Controller {
	dyn, err := base.DynamicClientFor(d.Kube)
	if err != nil {
		klog.Background().Error(err, "Monitoring controller disabled: no dynamic client")
	}
	var load schemaLoader
	if dyn != nil {
		load = openAPIV3Loader(d.Kube)
	}
	return newMonitoringControllerFor(d, dyn, load)
}

// newMonitoringControllerFor builds the controller on a given dynamic client
// and schema loader (nil: idle controller).
func newMonitoringControllerFor(d *base.Deps, dyn dynamic.Interface, load schemaLoader) *Controller {
	c := &Controller{schemas: &monitoringSchemas{load: load}}
	c.caches = newMonitoringCaches(dyn, d.Caches, c.enqueueAll)
	if dyn != nil {
		c.serviceMonitors = newMonitoringChild(render.KindServiceMonitor, serviceMonitorsGVR, dyn, c.caches, c.schemas, d)
		c.prometheusRules = newMonitoringChild(render.KindPrometheusRule, prometheusRulesGVR, dyn, c.caches, c.schemas, d)
	}
	c.Controller = base.NewController(base.ControllerMonitoring, d, c.reconcile)
	c.Watched = watched
	return c
}

// watched: besides its own informers' events (AddEventHandler), referenced
// Secrets start its passes: the TLS Secret's ca.crt decides whether the
// scrape verifies.
func watched(w *caches.Sources) []*caches.Source { return []*caches.Source{w.Secrets} }

// SetAPIServed starts the informers when served turns true and stops them
// when it turns false, and does nothing otherwise, so it may be called after
// every discovery (docs/controllers.md, Optional APIs).
func (c *Controller) SetAPIServed(ctx context.Context, served bool) {
	if served && !c.caches.running() {
		// A new start: the CRDs (and their schema) may have changed.
		c.schemas.reset()
	}
	c.caches.set(ctx, served)
}

// AddEventHandler registers a handler on the ServiceMonitor and
// PrometheusRule informers of every current and future start.
func (c *Controller) AddEventHandler(h cache.ResourceEventHandler) {
	mc := c.caches
	mc.mu.Lock()
	defer mc.mu.Unlock()
	mc.handlers = append(mc.handlers, h)
	if mc.run != nil {
		for _, inf := range mc.run.informers {
			_, _ = inf.AddEventHandler(h)
		}
	}
}

func (c *Controller) enqueueAll() {
	for _, s := range c.Deps.Caches.Servers() {
		c.Enqueue(caches.Key(s.Namespace, s.Name))
	}
}

func (c *Controller) reconcile(ctx context.Context, d *base.Deps, s *ogxv1beta1.OGXServer) (worker.Result, error) {
	// Not served (by the last discovery) or not synced: nothing to write,
	// nothing to delete.
	if c.serviceMonitors == nil || !d.Resolver.APIs.Monitoring.Load() || !c.caches.synced() {
		return worker.Result{}, nil
	}
	in := render.Inputs{
		OperatorNamespace: d.Opts.OperatorNamespace, MonitoringServed: true,
	}
	// ServiceMonitor first, then PrometheusRule.
	items := []struct {
		name    string
		child   *unstructuredChild
		desired func() *unstructured.Unstructured
	}{
		{render.ServiceMonitorName(s.Name), c.serviceMonitors,
			func() *unstructured.Unstructured { return render.ServiceMonitor(s, &in, d.Resolver.ServerCA(s)) }},
		{render.PrometheusRuleName(s.Name), c.prometheusRules,
			func() *unstructured.Unstructured { return render.PrometheusRule(s, &in) }},
	}
	want := render.WantMonitoring(s, &in)
	if want {
		// The no-op check needs the schema; without it no write is sent.
		if err := c.schemas.ensure(ctx); err != nil {
			return worker.Result{}, err
		}
	}
	for _, it := range items {
		err := base.WriteChild(ctx, d, it.child, s, it.name, want, it.desired)
		if errors.Is(err, errMonitoringGoing) {
			// Not served any more; look again until discovery agrees.
			klog.FromContext(ctx).V(2).Info("Monitoring API going away, nothing written", "kind", it.child.Kind, "err", err)
			return worker.Result{RequeueAfter: base.WaitRequeue}, nil
		}
		if err != nil {
			return worker.Result{}, err
		}
	}
	return worker.Result{}, nil
}

// newMonitoringChild binds a monitoring kind to the generic applier on the
// dynamic informers and client and the published schema.
func newMonitoringChild(kind string, gvr schema.GroupVersionResource, dyn dynamic.Interface,
	mc *monitoringCaches, schemas *monitoringSchemas, d *base.Deps,
) *unstructuredChild {
	client := func(ns string) dynamic.ResourceInterface { return dyn.Resource(gvr).Namespace(ns) }
	d.Opts.Metrics.InitKind(kind)
	return &unstructuredChild{
		Kind:       kind,
		APIVersion: render.MonitoringAPIVersion,
		Metrics:    d.Opts.Metrics,
		Takeover:   d.Opts.TakeoverManagers,
		Cached: func(ns, name string) (apply.Known[*unstructured.Unstructured], error) {
			obj, err := mc.get(gvr, ns, name)
			return apply.Known[*unstructured.Unstructured]{Obj: obj}, err
		},
		Live: func(ctx context.Context, ns, name string) (*unstructured.Unstructured, error) {
			return client(ns).Get(ctx, name, metav1.GetOptions{})
		},
		Extract:            schemas.extract,
		SetResourceVersion: (*unstructured.Unstructured).SetResourceVersion,
		Apply: func(ctx context.Context, ns string, obj *unstructured.Unstructured) (*unstructured.Unstructured, error) {
			out, err := client(ns).Apply(ctx, obj.GetName(), obj, apply.ApplyOptions())
			return out, kindGone(err)
		},
		Delete: func(ctx context.Context, ns, name string, opts metav1.DeleteOptions) error {
			return client(ns).Delete(ctx, name, opts)
		},
		Patch: func(ctx context.Context, ns, name string, data []byte) (*unstructured.Unstructured, error) {
			out, err := client(ns).Patch(ctx, name, types.JSONPatchType, data, metav1.PatchOptions{FieldManager: render.FieldManager})
			return out, kindGone(err)
		},
	}
}

// errMonitoringGoing marks a write refused because the kind is going away:
// its CRD terminates (which deletes our objects too) or is gone before the
// next discovery noticed. The pass treats it like "not served", not as a
// user error: removing the CRDs is not the OGXServer's fault.
var errMonitoringGoing = errors.New("the monitoring API is going away")

// kindGone turns the answer to a write that says the kind is going away (a
// NotFound of an apply or patch, a Forbidden of a terminating CRD) into
// errMonitoringGoing.
func kindGone(err error) error {
	if apierrors.IsNotFound(err) ||
		(apierrors.IsForbidden(err) && strings.Contains(err.Error(), "custom resource definition is terminating")) {
		return fmt.Errorf("%w: %s", errMonitoringGoing, err.Error())
	}
	return err
}
