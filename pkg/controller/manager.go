package controller

import (
	"context"
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/caches"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/configmap"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/deployment"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/hpa"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/ingress"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/monitoring"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/networkpolicy"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/pdb"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/pvc"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/service"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/status"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/worker"
	"github.com/ogx-k8s/ogx-controller/pkg/generated/clientset/versioned"
)

// Manager owns the caches and every controller of one process.
type Manager struct {
	base.Deps

	configMap, pvc, deployment, service *base.Controller
	monitoring                          *monitoring.Controller
	status                              *status.Controller
	// childControllers are run in the fixed order their errors are reported.
	childControllers []*base.Controller
	// handlersSynced report when each event handler has been handed every
	// object of its informer's initial list.
	handlersSynced []cache.InformerSynced
	// hashKeyDeleted tells keepHashKey that the hash-key Secret was
	// deleted (one pending signal is enough).
	hashKeyDeleted chan struct{}
	// operatorConfigChanged tells watchOperatorConfig that the operator
	// ConfigMap changed (one pending signal is enough).
	operatorConfigChanged chan struct{}
	// overridesCause is the image-overrides problem last logged.
	overridesCause lastCause
}

// NewManager builds the caches and controllers; nothing runs until Start and
// Run.
func NewManager(kube kubernetes.Interface, ogx versioned.Interface, opts base.Options) (*Manager, error) {
	return newManager(base.NewDeps(kube, ogx, opts))
}

// newManager builds the child controllers on deps, in the fixed order their
// errors are reported (docs/status.md, Terminal reasons), and the status
// controller, which reads their outcomes. A new child controller is one
// more entry here (docs/architecture.md, Adding a child kind).
func newManager(deps base.Deps) (*Manager, error) {
	m := &Manager{Deps: deps, hashKeyDeleted: make(chan struct{}, 1), operatorConfigChanged: make(chan struct{}, 1)}
	d := &m.Deps
	m.configMap = configmap.NewController(d)
	m.pvc = pvc.NewController(d)
	m.service = service.NewController(d)
	m.deployment = deployment.NewController(d)
	m.monitoring = monitoring.NewController(d)
	m.childControllers = []*base.Controller{
		m.configMap,
		m.pvc,
		m.service,
		networkpolicy.NewController(d),
		m.deployment,
		hpa.NewController(d),
		pdb.NewController(d),
		ingress.NewController(d),
		m.monitoring.Controller,
	}
	names := make([]string, len(m.childControllers))
	for i, c := range m.childControllers {
		names[i] = c.Name()
	}
	m.status = status.NewController(d, names)
	if err := m.registerHandlers(); err != nil {
		return nil, err
	}
	return m, nil
}

// Start starts the informers and waits for them to sync. Every replica does
// this, leader or not, so a follower that takes over has warm caches.
func (m *Manager) Start(ctx context.Context) error {
	m.Caches.Start(ctx)
	if err := m.Caches.WaitForSync(ctx, m.Opts.CacheSyncTimeout); err != nil {
		return err
	}
	// The handlers have seen the initial lists too, so what they do on a
	// first sight (enqueue) happened before Run.
	syncCtx, cancel := context.WithTimeout(ctx, m.Opts.CacheSyncTimeout)
	defer cancel()
	if !cache.WaitForCacheSync(syncCtx.Done(), m.handlersSynced...) {
		return fmt.Errorf("event handlers did not see the initial lists within %s", m.Opts.CacheSyncTimeout)
	}
	// The operator ConfigMap's first sight is checked here, before Run can
	// start (its Event is dropped: not leading yet; Run checks again), so
	// a new leader reports bad image overrides once; later changes are
	// checked by watchOperatorConfig.
	select {
	case <-m.operatorConfigChanged:
		m.checkOperatorConfig(ctx)
	default:
	}
	go m.watchOperatorConfig(ctx)
	m.Resolver.APIs.Discover(m.Kube.Discovery())
	m.monitoring.SetAPIServed(ctx, m.Resolver.APIs.Monitoring.Load())
	return nil
}

// Run starts event recording and the workers of every controller and blocks
// until ctx is done and the passes in flight have finished, or were
// cancelled Options.ShutdownTimeout after ctx was done (worker.Runner.Run;
// docs/controllers.md, Shutdown). Only the leader calls it, and it keeps
// the Lease until Run has returned.
func (m *Manager) Run(ctx context.Context) {
	logger := klog.FromContext(ctx)
	// Events are accepted before any pass runs, so a new leader's first
	// passes are reported, and sent until every worker has stopped: they
	// explain what the last passes did.
	events, stopEvents := context.WithCancel(context.WithoutCancel(ctx))
	defer stopEvents()
	m.Events.Start(events, m.Opts.EventsClient)
	// The operator ConfigMap's informer reported bad image overrides when
	// it first saw them, possibly before this replica led: check again.
	m.checkOperatorConfig(ctx)
	go m.watchOptionalAPIs(ctx, m.Opts.DiscoveryInterval)
	go m.ensureOperatorConfigMap(ctx)
	// The first pass of a server with Secret-backed variables needs the key.
	m.ensureHashKey(ctx)
	go m.keepHashKey(ctx)
	go wait.UntilWithContext(ctx, m.sweep, sweepInterval)
	// A new leader processes every key once.
	for _, s := range m.Caches.Servers() {
		m.enqueueAll(caches.Key(s.Namespace, s.Name))
	}
	var wg sync.WaitGroup
	run := func(q *worker.Runner, workers int) {
		wg.Go(func() { q.Run(ctx, workers, m.Opts.ShutdownTimeout) })
	}
	for _, c := range m.childControllers {
		workers := m.Opts.Workers
		if c == m.deployment || c == m.service {
			// A new server's Service, then its ServiceAccount and
			// Deployment, are the path to Ready: the Deployment's pass
			// follows the Service's (deployment.serviceFirst)
			// and writes two children, and Services are the slowest
			// creates of a fleet start (docs/performance.md).
			workers *= 2
		}
		run(c.Runner, workers)
	}
	run(m.status.Runner, m.Opts.StatusWorkers)
	logger.Info("Controllers running")
	wg.Wait()
}

// enqueueAll queues a key for every controller.
func (m *Manager) enqueueAll(key string) {
	for _, c := range m.childControllers {
		c.Enqueue(key)
	}
	m.status.Enqueue(key)
}

// registerHandlers wires informer events to the controllers
// (docs/controllers.md, Enqueue rules).
func (m *Manager) registerHandlers() error {
	var errs []error
	add := func(inf cache.SharedIndexInformer, h cache.ResourceEventHandler) {
		reg, err := inf.AddEventHandler(h)
		if err != nil {
			errs = append(errs, err)
			return
		}
		m.handlersSynced = append(m.handlersSynced, reg.HasSynced)
	}
	m.Caches.Each(func(sc *caches.Scope) {
		if err := sc.ServerInformer.AddIndexers(caches.ReferenceIndexers()); err != nil {
			errs = append(errs, err)
		}
		add(sc.ServerInformer, m.serverEvents())
		sources := m.scopeSources(sc)
		for _, w := range caches.MergeWatches(sources, m.watches(sources)) {
			add(w.Informer, w.Handler)
		}
	})
	// ServiceMonitor and PrometheusRule events, on every informer the
	// monitoring controller starts.
	m.monitoring.AddEventHandler(caches.Handler(caches.ByOwner, nil, m.monitoring.Enqueue, m.status.Enqueue))
	operator := m.Caches.OperatorFactory.Core().V1().ConfigMaps().Informer()
	for _, h := range m.operatorConfigEvents() {
		add(operator, h)
	}
	hashKey := m.Caches.HashKeyFactory.Core().V1().Secrets().Informer()
	for _, h := range m.hashKeyEvents() {
		add(hashKey, h)
	}
	if len(errs) > 0 {
		return fmt.Errorf("registering event handlers: %v", errs)
	}
	return nil
}

// watches collects the entries every controller declares in its own file,
// the child controllers in their fixed order and status last: merged per
// source, each handler enqueues in this order.
func (m *Manager) watches(sources *caches.Sources) []caches.Watch {
	var entries []caches.Watch
	for _, c := range m.childControllers {
		entries = append(entries, c.Watches(sources)...)
	}
	return append(entries, m.status.Watches(sources)...)
}

// serverChangeMatters reports whether an update of an OGXServer can change
// what its controllers do: a new spec (generation), the start of deletion
// or a changed annotation that asks the controllers to act (storage and
// networking adoption, a re-check of a pinned image tag:
// docs/config-generation.md, Digest pinning). Status, labels and other
// annotations cannot.
func serverChangeMatters(o, c *ogxv1beta1.OGXServer) bool {
	if o.Generation != c.Generation || (o.DeletionTimestamp == nil) != (c.DeletionTimestamp == nil) {
		return true
	}
	for _, a := range [...]string{ogxv1beta1.AnnotationAdoptStorage, ogxv1beta1.AnnotationAdoptNetworking, ogxv1beta1.AnnotationRecheckImage} {
		if o.Annotations[a] != c.Annotations[a] {
			return true
		}
	}
	return false
}

// serverEvents starts every controller's pass for an OGXServer on create,
// delete and the changes that matter (serverChangeMatters); a status write
// never does. A deleted server's per-UID records are dropped.
func (m *Manager) serverEvents() cache.ResourceEventHandlerFuncs {
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			if s, ok := obj.(*ogxv1beta1.OGXServer); ok {
				m.Opts.Metrics.CountServerChange()
				m.enqueueAll(caches.Key(s.Namespace, s.Name))
			}
		},
		UpdateFunc: func(old, cur any) {
			o, c := old.(*ogxv1beta1.OGXServer), cur.(*ogxv1beta1.OGXServer)
			if o.Generation != c.Generation {
				m.Opts.Metrics.CountServerChange()
			}
			if serverChangeMatters(o, c) {
				m.enqueueAll(caches.Key(c.Namespace, c.Name))
			}
		},
		DeleteFunc: func(obj any) {
			mo, ok := caches.MetaOf(obj)
			if !ok {
				return
			}
			m.Opts.Metrics.CountServerChange()
			m.Records.Forget(mo.GetUID())
			m.enqueueAll(caches.Key(mo.GetNamespace(), mo.GetName()))
		},
	}
}
