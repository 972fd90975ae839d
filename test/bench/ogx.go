package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/generated/clientset/versioned"
	ogxinformers "github.com/ogx-k8s/ogx-controller/pkg/generated/informers/externalversions"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

const benchNamespace = "bench"

// Kinds the tracker counts. childKinds are the children a minimal starter
// server gets (see `kubectl ogx render`); "all children" is when the last
// of them reaches n. Generated ConfigMaps are counted too, but a server
// without providers, resources, storage or TLS has none (config mode
// inactive), so they are not part of "all children".
const (
	kindDeployment      = "Deployment"
	kindService         = "Service"
	kindServiceAccount  = "ServiceAccount"
	kindNetworkPolicy   = "NetworkPolicy"
	kindGeneratedConfig = "generated ConfigMap"
	kindServer          = "OGXServer"
)

var childKinds = []string{kindDeployment, kindService, kindServiceAccount, kindNetworkPolicy}

// ogxResult is what the operator phase measured.
type ogxResult struct {
	t0          time.Time                // the first OGXServer create
	created     time.Duration            // all n create calls returned
	children    time.Duration            // the last child kind reached n
	perKind     map[string]time.Duration // when each child kind reached n
	configMaps  int                      // generated ConfigMaps seen
	available   time.Duration            // all n Deployments available
	ready       time.Duration            // all n OGXServers Ready
	readyAt     time.Time                // t0 + ready
	lagMedian   float64                  // Available -> Ready, seconds
	lagP99      float64
	lagSamples  int
	readyBefore int // servers Ready before their Deployment was seen available
}

// runOGX creates n OGXServers with workers concurrent clients and watches
// their children, Deployments and status converge. cpu measures from the
// first create until all are Ready.
func runOGX(ctx context.Context, cfg *rest.Config, client kubernetes.Interface, ogx versioned.Interface,
	n, workers int, spec ogxv1beta1.OGXServerSpec, deadline time.Time, alive func() error, cpu *cpuWindow,
) (ogxResult, error) {
	res := ogxResult{perKind: map[string]time.Duration{}}
	tr := newTracker()
	stopTracking, err := track(ctx, client, ogx, tr)
	defer stopTracking()
	if err != nil {
		return res, err
	}
	clients, err := workerClients(cfg, workers)
	if err != nil {
		return res, err
	}
	cpu.start()
	res.t0 = time.Now()
	if err := createServers(ctx, clients, n, spec); err != nil {
		return res, err
	}
	res.created = time.Since(res.t0)
	logf("ogx: %d OGXServers created in %.1fs", n, res.created.Seconds())
	if err := waitConverged(ctx, tr, &res, n, deadline, alive); err != nil {
		return res, err
	}
	cpu.stop()
	err = res.lagStats(tr.readyLag())
	return res, err
}

// track starts informers on the bench namespace's children and OGXServers
// that feed tr; the returned function stops them.
func track(ctx context.Context, client kubernetes.Interface, ogx versioned.Interface, tr *tracker) (func(), error) {
	stop := make(chan struct{})
	managed := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace(benchNamespace),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) {
			o.LabelSelector = render.LabelManagedBy + "=" + render.ManagedByValue
		}))
	servers := ogxinformers.NewSharedInformerFactoryWithOptions(ogx, 0, ogxinformers.WithNamespace(benchNamespace))
	// Shutdown waits for the informers, which stop when stop is closed.
	stopAll := func() {
		close(stop)
		managed.Shutdown()
		servers.Shutdown()
	}
	for _, reg := range []struct {
		informer cache.SharedIndexInformer
		kind     string
		key      func(any) string
	}{
		{managed.Apps().V1().Deployments().Informer(), kindDeployment, nameKey},
		{managed.Core().V1().Services().Informer(), kindService, suffixKey("-service")},
		{managed.Core().V1().ServiceAccounts().Informer(), kindServiceAccount, suffixKey("-sa")},
		{managed.Networking().V1().NetworkPolicies().Informer(), kindNetworkPolicy, suffixKey("-network-policy")},
		{managed.Core().V1().ConfigMaps().Informer(), kindGeneratedConfig, generatedConfigKey},
		{servers.Ogx().V1beta1().OGXServers().Informer(), kindServer, nameKey},
	} {
		if _, err := reg.informer.AddEventHandler(tr.handler(reg.kind, reg.key)); err != nil {
			return stopAll, err
		}
	}
	managed.Start(stop)
	servers.Start(stop)
	synced := managed.WaitForCacheSync(ctx.Done())
	for typ, ok := range servers.WaitForCacheSync(ctx.Done()) {
		synced[typ] = ok
	}
	for typ, ok := range synced {
		if !ok {
			return stopAll, fmt.Errorf("informer for %v did not sync", typ)
		}
	}
	return stopAll, nil
}

// suffixKey keys a child by its server's name: its own name without the
// kind's suffix; a name without it is not counted.
func suffixKey(suffix string) func(any) string {
	return func(obj any) string {
		name := nameKey(obj)
		if !strings.HasSuffix(name, suffix) {
			return ""
		}
		return strings.TrimSuffix(name, suffix)
	}
}

// generatedConfigKey keys a generated ConfigMap by its server's name.
func generatedConfigKey(obj any) string {
	o, ok := obj.(metav1.Object)
	if !ok || o.GetLabels()[render.LabelGeneratedConfig] != "true" {
		return ""
	}
	return o.GetLabels()[render.LabelInstance]
}

// workerClients builds one clientset per worker, as if separate users
// applied their servers.
func workerClients(cfg *rest.Config, workers int) ([]versioned.Interface, error) {
	clients := make([]versioned.Interface, workers)
	for i := range clients {
		c, err := versioned.NewForConfig(cfg)
		if err != nil {
			return nil, err
		}
		clients[i] = c
	}
	return clients, nil
}

// createServers creates n OGXServers of spec, each worker with its own
// clientset.
func createServers(ctx context.Context, clients []versioned.Interface, n int, spec ogxv1beta1.OGXServerSpec) error {
	workers := len(clients)
	next := make(chan int, workers)
	for i := range workers {
		next <- i
	}
	return parallel(ctx, n, workers, func(ctx context.Context, i int) error {
		w := <-next
		defer func() { next <- w }()
		s := &ogxv1beta1.OGXServer{
			ObjectMeta: metav1.ObjectMeta{Name: serverName(i), Namespace: benchNamespace},
			Spec:       *spec.DeepCopy(),
		}
		if _, err := clients[w].OgxV1beta1().OGXServers(benchNamespace).Create(ctx, s, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating OGXServer %s: %w", s.Name, err)
		}
		return nil
	})
}

// waitConverged waits until every child kind, every Deployment's
// availability and every server's Ready reach n, and records when each did.
func waitConverged(ctx context.Context, tr *tracker, res *ogxResult, n int, deadline time.Time, alive func() error) error {
	progress := func() string {
		var parts []string
		for _, k := range append(childKinds, kindGeneratedConfig) {
			parts = append(parts, fmt.Sprintf("%s %d", k, tr.count(k)))
		}
		return fmt.Sprintf("%s; available %d, Ready %d (of %d)", strings.Join(parts, ", "), tr.availableCount(), tr.readyCount(), n)
	}
	err := waitUntil(ctx, deadline, fmt.Sprintf("the children of %d OGXServers", n), func() bool {
		for _, k := range childKinds {
			if tr.count(k) < n {
				return false
			}
		}
		return true
	}, progress, alive)
	if err != nil {
		return err
	}
	for _, k := range childKinds {
		res.perKind[k] = tr.lastSeen(k).Sub(res.t0)
		res.children = max(res.children, res.perKind[k])
	}
	logf("ogx: all children exist %.1fs after the first create (%s)", res.children.Seconds(), progress())

	err = waitUntil(ctx, deadline, fmt.Sprintf("%d OGXServer Deployments to become available", n),
		func() bool { return tr.availableCount() >= n }, progress, alive)
	if err != nil {
		return err
	}
	res.available = tr.lastAvailable().Sub(res.t0)
	logf("ogx: all Deployments available after %.1fs", res.available.Seconds())

	err = waitUntil(ctx, deadline, fmt.Sprintf("%d OGXServers to become Ready", n),
		func() bool { return tr.readyCount() >= n }, progress, alive)
	if err != nil {
		return err
	}
	res.readyAt = tr.lastReady()
	res.ready = res.readyAt.Sub(res.t0)
	res.configMaps = tr.count(kindGeneratedConfig)
	logf("ogx: all OGXServers Ready after %.1fs", res.ready.Seconds())
	return nil
}

// lagStats records the median and p99 of the per-server time from an
// available Deployment to Ready, and how many servers were Ready first.
func (res *ogxResult) lagStats(lags []float64) error {
	if len(lags) == 0 {
		return errors.New("no server has both an available Deployment and a Ready time")
	}
	res.lagSamples = len(lags)
	res.lagMedian, res.lagP99 = quantile(lags, 0.5), quantile(lags, 0.99)
	for _, l := range lags {
		if l < 0 {
			res.readyBefore++
		}
	}
	return nil
}

func serverName(i int) string { return fmt.Sprintf("s%04d", i) }
