package status

import (
	"context"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/apply"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/caches"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/events"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/probe"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/record"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/worker"
	"github.com/ogx-k8s/ogx-controller/pkg/generated/clientset/versioned"
)

// Controller is the only writer of OGXServer status. It computes the
// complete status from the caches, the outcome board and the server probe,
// and writes it with one server-side apply of the status subresource only
// when it differs from the stored status: a steady state writes nothing.
type Controller struct {
	*worker.Runner
	ogx      versioned.Interface
	caches   *caches.Caches
	children *base.Children
	board    *base.OutcomeBoard
	resolver *base.Resolver
	events   *events.Sink
	prober   probe.Prober
	probes   *probe.State
	// probeSlots bounds the probes in flight.
	probeSlots      chan struct{}
	digests         *PodDigests
	probeEnabled    bool
	operatorVersion string
	controllers     []string
	takeover        []string
	clock           clock.PassiveClock

	// writes is our last status write per server.
	writes record.Slot[statusWrite]
}

// statusWrite is our last status write of one server. Its two parts are
// set together, by one write, and read apart.
type statusWrite struct {
	// written is the object the write returned, held until the informer
	// delivers that resourceVersion (then nil), so a pass racing the cache
	// neither writes again nor re-stamps timestamps.
	written *ogxv1beta1.OGXServer
	// at is when it was written (coalesce).
	at time.Time
}

// NewController builds the status controller; controllers names the child
// controllers in the order their errors are reported.
func NewController(d *base.Deps, controllers []string) *Controller {
	c := &Controller{
		ogx: d.OGX, caches: d.Caches, board: d.Board, resolver: d.Resolver, events: d.Events, children: d.Children,
		prober: d.Opts.Prober, probes: probe.NewState(d.Opts.ProbeInterval, d.Records), probeEnabled: d.Opts.ProbeEnabled,
		digests: NewPodDigests(d.Caches.PodsOf, d.Records), writes: record.NewSlot[statusWrite](d.Records),
		operatorVersion: d.Opts.OperatorVersion, controllers: controllers, clock: d.Opts.Clock, takeover: d.Opts.TakeoverManagers,
		probeSlots: make(chan struct{}, maxConcurrentProbes),
	}
	c.Runner = worker.NewRunner("status", c.Sync, d.Opts.Metrics)
	// Status is computed again when a server's record changes: an
	// outcome, a generated config, a journaled write.
	d.Records.AddHandler(c.Enqueue)
	return c
}

// watches: status is computed again on events of every kind it reads
// (status_gather.go, docs/status.md): the Deployment, Service and Ingress,
// PVCs adopted or not, the Deployment's pods and the ConfigMaps and Secrets
// it reads. The other children do not show in status: what their
// controllers do reaches status through the per-server record (an outcome,
// a journaled write), so their own events need no status pass.
func (c *Controller) Watches(w *caches.Sources) []caches.Watch {
	return caches.WatchesOf(c.Enqueue, w.Deployments, w.Services, w.PVCs, w.Pods, w.AdoptedPVCs,
		w.Ingresses, w.ConfigMaps, w.Secrets)
}

// latest returns the newer of the cached object and our last write.
func (c *Controller) latest(s *ogxv1beta1.OGXServer) *ogxv1beta1.OGXServer {
	newer := s
	c.writes.Update(s.UID, func(w statusWrite, ok bool) (statusWrite, bool) {
		switch {
		case w.written == nil:
		case w.written.ResourceVersion == s.ResourceVersion || apply.NewerRV(s.ResourceVersion, w.written.ResourceVersion):
			w.written = nil
		default:
			newer = w.written
		}
		return w, ok
	})
	return newer
}

// Sync is one status pass over the server named by key (exported for the
// tests that run the controllers together).
func (c *Controller) Sync(ctx context.Context, key string) (worker.Result, error) {
	namespace, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return worker.Result{}, nil
	}
	cached, err := c.caches.Server(namespace, name)
	if apierrors.IsNotFound(err) {
		return worker.Result{}, nil
	}
	if err != nil {
		return worker.Result{}, err
	}
	s := c.latest(cached)
	in := c.gather(ctx, s)
	res := computeStatus(in)
	if res.wait {
		return worker.Result{RequeueAfter: res.requeueAfter}, nil
	}
	if statusEqual(s.Status, res.status) {
		c.events.Flush(s, s.Status.Phase, s.Status.Phase)
		return worker.Result{RequeueAfter: res.requeueAfter}, nil
	}
	if wait := c.coalesce(s, res.status, in.deployment); wait > 0 {
		return worker.Result{RequeueAfter: wait}, nil
	}
	if err := c.write(ctx, s, res.status); err != nil {
		return worker.Result{}, err
	}
	c.events.Flush(s, s.Status.Phase, res.status.Phase)
	c.healthEvent(s.Status.Conditions, res.status.Conditions, s)
	return worker.Result{RequeueAfter: res.requeueAfter}, nil
}
