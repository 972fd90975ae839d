// Package status holds the status controller, the only writer of
// OGXServer status. It reads the children from the caches and each child
// controller's outcome from the per-server record (base.OutcomeBoard),
// probes the server (package probe) and writes the whole status when it
// changed.
package status

import (
	"context"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/conversion"
	"k8s.io/client-go/tools/cache"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/apply"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/caches"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/events"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/probe"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/record"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/worker"
)

// Controller computes the complete status and writes it with one
// server-side apply of the status subresource, only when it differs from
// the stored status: a steady state writes nothing.
type Controller struct {
	*worker.Runner
	d      *base.Deps
	probes *probe.State
	// probeSlots bounds the probes in flight.
	probeSlots  chan struct{}
	digests     *podDigests
	controllers []string
	writes      record.Slot[statusWrite]
	// equal compares a computed status with the stored one.
	equal conversion.Equalities
}

// statusWrite is our last status write of one server.
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
		d: d, probes: probe.NewState(d.Opts.ProbeInterval, d.Records), controllers: controllers,
		digests: newPodDigests(d.Caches.PodsOf, d.Records), writes: record.NewSlot[statusWrite](d.Records),
		probeSlots: make(chan struct{}, maxConcurrentProbes), equal: newStatusEquality(),
	}
	c.Runner = worker.NewRunner(base.ControllerStatus, c.Sync, d.Opts.Metrics)
	// Status is computed again when a server's record changes: an
	// outcome, a generated config, a journaled write.
	d.Records.AddHandler(c.Enqueue)
	// A Warning the Event budget dropped is sent by a later status pass
	// (settleWarnings), which nothing else may start on an idle server.
	d.Events.OnOwed(func(key string) { c.Queue().AddAfter(key, events.OwedRetry) })
	return c
}

// Watches lists the sources whose events make status compute again: every
// kind it reads (gather.go). The other children reach status through the
// per-server record (an outcome, a journaled write), so their events need no
// status pass (docs/controllers.md, Enqueue rules).
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
	cached, err := c.d.Caches.Server(namespace, name)
	if apierrors.IsNotFound(err) {
		return worker.Result{}, nil
	}
	if err != nil {
		return worker.Result{}, err
	}
	s := c.latest(cached)
	in := c.reports(s)
	// A child controller has not reported yet; its report starts the next
	// pass. Checked before the rest is gathered: at a fleet start 10 of a
	// new server's 17 status passes end here (make bench -n 1000, counted
	// in session 29). An owed Warning is not settled on partial outcomes,
	// but is not left without a pass either.
	if !boardComplete(in) {
		if c.d.Events.Owes(s.UID) {
			return worker.Result{RequeueAfter: events.OwedRetry}, nil
		}
		return worker.Result{}, nil
	}
	c.gather(ctx, &in)
	res := computeStatus(in)
	// An unchanged status is not written; the journal is flushed either way.
	if !c.equal.DeepEqual(&s.Status, &res.status) {
		if wait := c.coalesce(s, res.status, in.deployment); wait > 0 {
			return worker.Result{RequeueAfter: wait}, nil
		}
		if err := c.write(ctx, s, res.status); err != nil {
			return worker.Result{}, err
		}
	}
	requeue := c.settleWarnings(s, res.requeueAfter)
	c.d.Events.Flush(s, s.Status.Phase, res.status.Phase)
	c.healthEvent(s.Status.Conditions, res.status.Conditions, s)
	return worker.Result{RequeueAfter: requeue}, nil
}

// settleWarnings sends the Warnings the Event budget dropped whose causes
// still hold (events.Sink.Settle) and returns when the pass runs again:
// requeue, or sooner while a Warning is still owed. A server that owes
// nothing keeps requeue, so an idle server gains no pass and no write.
func (c *Controller) settleWarnings(s *ogxv1beta1.OGXServer, requeue time.Duration) time.Duration {
	if !c.d.Events.Settle(s) {
		return requeue
	}
	if requeue <= 0 || requeue > events.OwedRetry {
		return events.OwedRetry
	}
	return requeue
}
