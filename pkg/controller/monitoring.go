package controller

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/openapi"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	"k8s.io/kube-openapi/pkg/schemaconv"
	"k8s.io/kube-openapi/pkg/validation/spec"
	smdschema "sigs.k8s.io/structured-merge-diff/v6/schema"
	"sigs.k8s.io/structured-merge-diff/v6/typed"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/render"
)

// The monitoring.coreos.com kinds written by the monitoring controller
// (controller spec 6.11-6.13).
var (
	serviceMonitorsGVR = schema.GroupVersionResource{Group: "monitoring.coreos.com", Version: "v1", Resource: "servicemonitors"}
	prometheusRulesGVR = schema.GroupVersionResource{Group: "monitoring.coreos.com", Version: "v1", Resource: "prometheusrules"}
	monitoringGVRs     = []schema.GroupVersionResource{serviceMonitorsGVR, prometheusRulesGVR}
)

// monitoringOpenAPIPath is the OpenAPI v3 path of the monitoring group
// version (/openapi/v3/apis/monitoring.coreos.com/v1).
const monitoringOpenAPIPath = "apis/" + monitoringGroupVersion

// errMonitoringNotRunning is returned by the monitoring caches while their
// informers are stopped or not yet synced.
var errMonitoringNotRunning = errors.New("the monitoring informers are not running")

// unstructuredChild is the applier of a monitoring kind: the generic applier
// of every child, on unstructured objects.
type unstructuredChild = child[*unstructured.Unstructured, *unstructured.Unstructured]

// MonitoringController converges the ServiceMonitor N-service-monitor and the
// PrometheusRule N-prometheus-rules of every OGXServer while the monitoring
// API is served (controller spec 6.13). Without it every pass records ok and
// writes nothing.
type MonitoringController struct {
	*childController
	d       *deps
	caches  *monitoringCaches
	schemas *monitoringSchemas
	// serviceMonitors and prometheusRules are nil without a dynamic client
	// (fake clientsets), which keeps the controller idle.
	serviceMonitors *unstructuredChild
	prometheusRules *unstructuredChild
}

// newMonitoringController builds the monitoring controller. Its dynamic
// client shares the HTTP client (transport, credentials, impersonation,
// rate limiter) of kube, so no further configuration is needed; with a
// clientset that is not backed by a REST client (fakes) the controller stays
// idle.
func newMonitoringController(d *deps) *MonitoringController {
	dyn, err := dynamicClientFor(d.kube)
	if err != nil {
		klog.Background().Error(err, "Monitoring controller disabled: no dynamic client")
	}
	var load schemaLoader
	if dyn != nil {
		load = openAPIV3Loader(d.kube)
	}
	return newMonitoringControllerFor(d, dyn, load)
}

// newMonitoringControllerFor builds the controller on a given dynamic client
// and schema loader (nil: idle controller).
func newMonitoringControllerFor(d *deps, dyn dynamic.Interface, load schemaLoader) *MonitoringController {
	c := &MonitoringController{d: d, schemas: &monitoringSchemas{load: load}}
	c.caches = newMonitoringCaches(dyn, d.caches, c.enqueueAll)
	if dyn != nil {
		c.serviceMonitors = newMonitoringChild(render.KindServiceMonitor, serviceMonitorsGVR, dyn, c.caches, c.schemas, d)
		c.prometheusRules = newMonitoringChild(render.KindPrometheusRule, prometheusRulesGVR, dyn, c.caches, c.schemas, d)
	}
	c.childController = newChildController("monitoring", d.caches, d.board, c.reconcile)
	return c
}

// SetAPIServed starts the dynamic informers (a new factory each time, with
// its own stop channel, children of ctx) when served turns true and stops
// them when it turns false; it does nothing when the state is unchanged, so
// it may be called after every discovery. Once started informers have
// synced, and at once when they stop, every OGXServer is enqueued for this
// controller. The OpenAPI schema is reloaded after each start.
func (c *MonitoringController) SetAPIServed(ctx context.Context, served bool) {
	if served && !c.caches.running() {
		// A new start: the CRDs (and their schema) may have changed.
		c.schemas.reset()
	}
	c.caches.set(ctx, served)
}

// AddEventHandler registers a handler on the ServiceMonitor and
// PrometheusRule informers of every current and future factory.
func (c *MonitoringController) AddEventHandler(h cache.ResourceEventHandler) {
	c.caches.addEventHandler(h)
}

// served reports whether the monitoring API is served (the last discovery)
// and its informers are synced, so passes see a complete cache.
func (c *MonitoringController) served() bool {
	return c.serviceMonitors != nil && c.d.resolver.apis.monitoring.Load() && c.caches.synced()
}

func (c *MonitoringController) enqueueAll() {
	for _, s := range c.d.caches.Servers() {
		c.Enqueue(Key(s.Namespace, s.Name))
	}
}

func (c *MonitoringController) reconcile(ctx context.Context, s *ogxv1beta1.OGXServer) (Result, error) {
	if !c.served() {
		// The kinds are not served: nothing to write, nothing to delete.
		return Result{}, nil
	}
	in := render.Inputs{
		OperatorNamespace: c.d.opts.OperatorNamespace, ClusterDomain: c.d.opts.ClusterDomain, MonitoringServed: true,
	}
	type item struct {
		kind, name string
		child      *unstructuredChild
		desired    func() *unstructured.Unstructured
	}
	// ServiceMonitor first (6.13).
	items := []item{
		{render.KindServiceMonitor, render.ServiceMonitorName(s.Name), c.serviceMonitors,
			func() *unstructured.Unstructured { return render.ServiceMonitor(s, &in, c.serverCA(s)) }},
		{render.KindPrometheusRule, render.PrometheusRuleName(s.Name), c.prometheusRules,
			func() *unstructured.Unstructured { return render.PrometheusRule(s, &in) }},
	}
	want := render.WantMonitoring(s, &in)
	if want {
		// The no-op check needs the schema; without it no write is sent.
		if err := c.schemas.ensure(ctx); err != nil {
			return Result{}, err
		}
	}
	for _, it := range items {
		var (
			res writeResult
			err error
		)
		if want {
			res, err = it.child.converge(ctx, s, it.name, it.desired())
		} else {
			res, err = it.child.remove(ctx, s, it.name)
		}
		if errors.Is(err, errMonitoringGoing) {
			// Not served any more; look again until discovery agrees.
			klog.FromContext(ctx).V(2).Info("Monitoring API going away, nothing written", "kind", it.kind, "err", err)
			return Result{RequeueAfter: waitRequeue}, nil
		}
		if err != nil {
			return Result{}, err
		}
		c.d.events.written(s, it.kind, it.name, res)
	}
	return Result{}, nil
}

// serverCA reports whether the server TLS Secret has a ca.crt (read from
// the watched Secret cache, like the status probe).
func (c *MonitoringController) serverCA(s *ogxv1beta1.OGXServer) bool {
	t := s.Spec.ServerTLS()
	if t == nil {
		return false
	}
	sc := c.d.caches.For(s.Namespace)
	if sc == nil {
		return false
	}
	sec, err := sc.secrets.Secrets(s.Namespace).Get(t.SecretName)
	return err == nil && len(sec.Data[render.ServerTLSCAKey]) > 0
}

// newMonitoringChild binds a monitoring kind to the generic applier: cache
// reads from the dynamic informers, live reads and writes through the
// dynamic client, owned-field extraction with the published schema.
func newMonitoringChild(kind string, gvr schema.GroupVersionResource, dyn dynamic.Interface,
	mc *monitoringCaches, schemas *monitoringSchemas, d *deps,
) *unstructuredChild {
	client := func(ns string) dynamic.ResourceInterface { return dyn.Resource(gvr).Namespace(ns) }
	return &unstructuredChild{
		kind:       kind,
		apiVersion: render.MonitoringAPIVersion,
		metrics:    d.caches.metrics,
		takeover:   d.opts.TakeoverManagers,
		cached: func(ns, name string) (*unstructured.Unstructured, error) {
			return mc.get(gvr, ns, name)
		},
		live: func(ctx context.Context, ns, name string) (*unstructured.Unstructured, error) {
			return client(ns).Get(ctx, name, metav1.GetOptions{})
		},
		extract: schemas.extract,
		setResourceVersion: func(obj *unstructured.Unstructured, rv string) {
			obj.SetResourceVersion(rv)
		},
		apply: func(ctx context.Context, ns string, obj *unstructured.Unstructured) (*unstructured.Unstructured, error) {
			out, err := client(ns).Apply(ctx, obj.GetName(), obj, applyOptions())
			return out, kindGone(err)
		},
		delete: func(ctx context.Context, ns, name string, opts metav1.DeleteOptions) error {
			return client(ns).Delete(ctx, name, opts)
		},
		patch: func(ctx context.Context, ns, name string, data []byte) (*unstructured.Unstructured, error) {
			out, err := client(ns).Patch(ctx, name, types.JSONPatchType, data, metav1.PatchOptions{FieldManager: render.FieldManager})
			return out, kindGone(err)
		},
	}
}

// errMonitoringGoing marks a write refused because the kind is going away:
// its CRD is being deleted (the API server refuses creates while it
// terminates, and deleting it deletes our objects, whose delete events start
// passes) or already gone before the next discovery noticed.
var errMonitoringGoing = errors.New("the monitoring API is going away")

// kindGone classifies the answer to a write: a NotFound (for an apply or a
// patch the kind itself is gone) or a Forbidden because the CRD terminates
// becomes errMonitoringGoing, which the pass treats like "not served"
// instead of a user error: removing the CRDs is not the OGXServer's fault.
func kindGone(err error) error {
	if err == nil {
		return nil
	}
	if apierrors.IsNotFound(err) ||
		(apierrors.IsForbidden(err) && strings.Contains(err.Error(), "custom resource definition is terminating")) {
		return fmt.Errorf("%w: %s", errMonitoringGoing, err.Error())
	}
	return err
}

// dynamicClientFor builds a dynamic client on the HTTP client and rate
// limiter of a real clientset; nil for anything else (fakes).
func dynamicClientFor(kube kubernetes.Interface) (dynamic.Interface, error) {
	cs, ok := kube.(*kubernetes.Clientset)
	if !ok || cs == nil {
		return nil, nil
	}
	rc, ok := cs.CoreV1().RESTClient().(*rest.RESTClient)
	if !ok || rc == nil {
		return nil, nil
	}
	if rc.Client == nil {
		return nil, errors.New("the clientset has no HTTP client")
	}
	// The core client's base URL is <host>[/<prefix>]/api/v1.
	u := rc.Get().URL()
	u.Path = strings.TrimSuffix(strings.TrimSuffix(u.Path, "/"), "/api/v1")
	u.RawQuery, u.Fragment = "", ""
	cfg := &rest.Config{Host: u.String(), RateLimiter: rc.GetRateLimiter()}
	return dynamic.NewForConfigAndClient(cfg, rc.Client)
}

// monitoringCaches are the ServiceMonitor and PrometheusRule informers
// (label managed-by=ogx-operator, one factory per watched namespace or one
// cluster-wide), which exist only while the monitoring API is served
// (controller spec 1.7, 1.10). A stopped informer or a shut-down factory
// cannot be started again, so every start builds new factories.
type monitoringCaches struct {
	dyn        dynamic.Interface
	namespaces []string
	// onChange is called once started informers have synced and when they
	// stop.
	onChange func()

	mu       sync.RWMutex
	handlers []cache.ResourceEventHandler
	run      *monitoringRun
}

// monitoringRun is one start of the informers.
type monitoringRun struct {
	cancel    context.CancelFunc
	factories []dynamicinformer.DynamicSharedInformerFactory
	informers []cache.SharedIndexInformer
	// listers by resource and factory namespace ("" when cluster-wide).
	listers   map[schema.GroupVersionResource]map[string]cache.GenericLister
	hasSynced atomic.Bool
}

func newMonitoringCaches(dyn dynamic.Interface, c *Caches, onChange func()) *monitoringCaches {
	mc := &monitoringCaches{dyn: dyn, onChange: onChange}
	c.each(func(sc *scope) { mc.namespaces = append(mc.namespaces, sc.namespace) })
	return mc
}

func (mc *monitoringCaches) addEventHandler(h cache.ResourceEventHandler) {
	mc.mu.Lock()
	defer mc.mu.Unlock()
	mc.handlers = append(mc.handlers, h)
	if mc.run != nil {
		for _, inf := range mc.run.informers {
			_, _ = inf.AddEventHandler(h)
		}
	}
}

// set starts or stops the informers and reports whether it did either.
func (mc *monitoringCaches) set(ctx context.Context, served bool) bool {
	if mc.dyn == nil {
		return false
	}
	mc.mu.Lock()
	if served == (mc.run != nil) {
		mc.mu.Unlock()
		return false
	}
	logger := klog.FromContext(ctx)
	if !served {
		r := mc.run
		mc.run = nil
		mc.mu.Unlock()
		r.cancel()
		for _, f := range r.factories {
			f.Shutdown()
		}
		logger.Info("Stopped the monitoring informers")
		mc.onChange()
		return true
	}
	runCtx, cancel := context.WithCancel(ctx)
	r := &monitoringRun{cancel: cancel, listers: map[schema.GroupVersionResource]map[string]cache.GenericLister{}}
	selector := labels.SelectorFromSet(labels.Set{render.LabelManagedBy: render.ManagedByValue}).String()
	var synced []cache.InformerSynced
	for _, ns := range mc.namespaces {
		f := dynamicinformer.NewFilteredDynamicSharedInformerFactory(mc.dyn, 0, ns,
			func(o *metav1.ListOptions) { o.LabelSelector = selector })
		for _, gvr := range monitoringGVRs {
			gi := f.ForResource(gvr)
			inf := gi.Informer()
			for _, h := range mc.handlers {
				_, _ = inf.AddEventHandler(h)
			}
			if r.listers[gvr] == nil {
				r.listers[gvr] = map[string]cache.GenericLister{}
			}
			r.listers[gvr][ns] = gi.Lister()
			r.informers = append(r.informers, inf)
			synced = append(synced, inf.HasSynced)
		}
		r.factories = append(r.factories, f)
		f.Start(runCtx.Done())
	}
	mc.run = r
	mc.mu.Unlock()
	logger.Info("Started the monitoring informers")
	go func() {
		if cache.WaitForCacheSync(runCtx.Done(), synced...) {
			r.hasSynced.Store(true)
			logger.V(2).Info("Monitoring informers synced")
			mc.onChange()
		}
	}()
	return true
}

// running reports whether the informers have been started (and not
// stopped).
func (mc *monitoringCaches) running() bool {
	mc.mu.RLock()
	defer mc.mu.RUnlock()
	return mc.run != nil
}

// synced reports whether the informers run and have synced.
func (mc *monitoringCaches) synced() bool {
	mc.mu.RLock()
	defer mc.mu.RUnlock()
	return mc.run != nil && mc.run.hasSynced.Load()
}

// get reads an object from the informer cache. The object is shared cache
// state and must not be mutated.
func (mc *monitoringCaches) get(gvr schema.GroupVersionResource, ns, name string) (*unstructured.Unstructured, error) {
	mc.mu.RLock()
	r := mc.run
	mc.mu.RUnlock()
	if r == nil || !r.hasSynced.Load() {
		return nil, errMonitoringNotRunning
	}
	byNS := r.listers[gvr]
	l := byNS[metav1.NamespaceAll]
	if l == nil {
		l = byNS[ns]
	}
	if l == nil {
		return nil, fmt.Errorf("namespace %q is not watched", ns)
	}
	obj, err := l.ByNamespace(ns).Get(name)
	if err != nil {
		return nil, err
	}
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return nil, fmt.Errorf("unexpected %T in the %s cache", obj, gvr.Resource)
	}
	return u, nil
}

// schemaLoader returns the SMD types of the monitoring kinds by GVK.
type schemaLoader func(ctx context.Context) (map[schema.GroupVersionKind]*typed.ParseableType, error)

// monitoringSchemas holds the types the owned fields are extracted with.
// client-go has no Extract<Kind> for these kinds, and a deduced schemaless
// type treats every list as atomic (PrometheusRule spec.groups is a list-map
// keyed by name), so the schema the API server publishes is used: the same
// one its field manager merges with.
type monitoringSchemas struct {
	load  schemaLoader
	mu    sync.Mutex
	types map[schema.GroupVersionKind]*typed.ParseableType
}

// reset forgets the loaded types; the next pass loads them again.
func (m *monitoringSchemas) reset() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.types = nil
}

// ensure loads the types unless they are loaded and cover both kinds. A
// failure (for example the OpenAPI document lagging behind discovery right
// after a CRD install) is transient and retried by the next pass.
func (m *monitoringSchemas) ensure(ctx context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.complete() {
		return nil
	}
	if m.load == nil {
		return errors.New("no OpenAPI schema loader for the monitoring kinds")
	}
	types, err := m.load(ctx)
	if err != nil {
		return fmt.Errorf("loading the OpenAPI schema of %s: %w", monitoringGroupVersion, err)
	}
	m.types = types
	if !m.complete() {
		m.types = nil
		return fmt.Errorf("the OpenAPI schema of %s lacks %s or %s", monitoringGroupVersion,
			render.KindServiceMonitor, render.KindPrometheusRule)
	}
	return nil
}

func (m *monitoringSchemas) complete() bool {
	gv := serviceMonitorsGVR.GroupVersion()
	return m.types[gv.WithKind(render.KindServiceMonitor)] != nil && m.types[gv.WithKind(render.KindPrometheusRule)] != nil
}

// extract returns the fields ogx-controller owns in obj (by its managed
// fields) as an object comparable with the rendered one: the owned fields
// plus apiVersion, kind, name and namespace, which managed fields never
// list.
func (m *monitoringSchemas) extract(obj *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	gvk := obj.GroupVersionKind()
	m.mu.Lock()
	typ := m.types[gvk]
	m.mu.Unlock()
	if typ == nil {
		return nil, fmt.Errorf("no OpenAPI schema loaded for %s", gvk)
	}
	out := &unstructured.Unstructured{Object: map[string]any{}}
	if err := managedfields.ExtractInto(obj, *typ, render.FieldManager, out, ""); err != nil {
		return nil, err
	}
	if out.Object == nil {
		out.Object = map[string]any{}
	}
	out.SetAPIVersion(obj.GetAPIVersion())
	out.SetKind(obj.GetKind())
	out.SetName(obj.GetName())
	out.SetNamespace(obj.GetNamespace())
	return out, nil
}

// openAPIV3Loader reads the OpenAPI v3 document of monitoring.coreos.com/v1
// (readable by every authenticated client) through the discovery client.
func openAPIV3Loader(kube kubernetes.Interface) schemaLoader {
	return func(ctx context.Context) (map[schema.GroupVersionKind]*typed.ParseableType, error) {
		client := openapi.ToClientWithContext(kube.Discovery().OpenAPIV3())
		paths, err := client.PathsWithContext(ctx)
		if err != nil {
			return nil, err
		}
		gv, ok := paths[monitoringOpenAPIPath]
		if !ok {
			return nil, fmt.Errorf("the API server publishes no OpenAPI v3 document for %s yet", monitoringGroupVersion)
		}
		doc, err := gv.SchemaWithContext(ctx, runtime.ContentTypeJSON)
		if err != nil {
			return nil, err
		}
		return parseOpenAPITypes(doc)
	}
}

// parseOpenAPITypes converts an OpenAPI v3 document into SMD types indexed
// by the x-kubernetes-group-version-kind of each schema, as the API server
// does for custom resources.
func parseOpenAPITypes(doc []byte) (map[schema.GroupVersionKind]*typed.ParseableType, error) {
	var d struct {
		Components struct {
			Schemas map[string]*spec.Schema `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		return nil, fmt.Errorf("decoding the OpenAPI document: %w", err)
	}
	s, err := schemaconv.ToSchemaFromOpenAPI(d.Components.Schemas, false)
	if err != nil {
		return nil, fmt.Errorf("converting the OpenAPI schemas: %w", err)
	}
	parser := &typed.Parser{Schema: smdschema.Schema{Types: s.Types}}
	out := map[schema.GroupVersionKind]*typed.ParseableType{}
	for name, sch := range d.Components.Schemas {
		for _, gvk := range schemaGVKs(sch) {
			t := parser.Type(name)
			out[gvk] = &t
		}
	}
	return out, nil
}

// schemaGVKs reads the x-kubernetes-group-version-kind extension.
func schemaGVKs(s *spec.Schema) []schema.GroupVersionKind {
	if s == nil {
		return nil
	}
	list, ok := s.Extensions["x-kubernetes-group-version-kind"].([]any)
	if !ok {
		return nil
	}
	var out []schema.GroupVersionKind
	for _, item := range list {
		m, ok := item.(map[string]any)
		if !ok {
			continue
		}
		g, _ := m["group"].(string)
		v, _ := m["version"].(string)
		k, _ := m["kind"].(string)
		if v != "" && k != "" {
			out = append(out, schema.GroupVersionKind{Group: g, Version: v, Kind: k})
		}
	}
	return out
}
