package monitoring

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/ogx-k8s/ogx-controller/pkg/controller/caches"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

// errMonitoringNotRunning: the informers are stopped or not yet synced.
var errMonitoringNotRunning = errors.New("the monitoring informers are not running")

// monitoringCaches are the ServiceMonitor and PrometheusRule informers (label
// managed-by=ogx-operator, one factory per watched namespace or one
// cluster-wide), which run only while the monitoring API is served
// (docs/controllers.md, Optional APIs).
type monitoringCaches struct {
	dyn        dynamic.Interface
	namespaces []string
	// onChange is called once started informers have synced, and on a stop.
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

func newMonitoringCaches(dyn dynamic.Interface, c *caches.Caches, onChange func()) *monitoringCaches {
	mc := &monitoringCaches{dyn: dyn, onChange: onChange}
	c.Each(func(sc *caches.Scope) { mc.namespaces = append(mc.namespaces, sc.Namespace) })
	return mc
}

// set starts the informers (on new factories, children of ctx: a stopped
// informer cannot start again) or stops them.
func (mc *monitoringCaches) set(ctx context.Context, served bool) {
	if mc.dyn == nil {
		return
	}
	mc.mu.Lock()
	if served == (mc.run != nil) {
		mc.mu.Unlock()
		return
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
		return
	}
	runCtx, cancel := context.WithCancel(ctx)
	r := &monitoringRun{cancel: cancel, listers: map[schema.GroupVersionResource]map[string]cache.GenericLister{
		serviceMonitorsGVR: {}, prometheusRulesGVR: {}}}
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
}

// running reports whether the informers are started.
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
