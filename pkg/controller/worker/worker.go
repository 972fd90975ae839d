// Package worker is the loop every controller runs: a rate-limited queue of
// OGXServer keys ("namespace/name") and a pool of workers calling the
// controller's sync function, with backoff, reconcile IDs in the log, pass
// metrics and a graceful shutdown.
package worker

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/ogx-k8s/ogx-controller/pkg/metrics"
	"github.com/ogx-k8s/ogx-controller/pkg/resolve"
)

// Result tells the worker loop what to do with a key after a successful
// pass.
type Result struct {
	// RequeueAfter re-adds the key after this delay (0: only on events).
	RequeueAfter time.Duration
	// Waiting marks a pass that could not proceed yet (for metrics).
	Waiting bool
	// Deferred marks a pass that did nothing and will be woken: it keeps
	// the key's failure history, so a user error's backoff goes on
	// growing across the deferred passes between its retries.
	Deferred bool
}

// SyncFunc is one pass of a controller over one OGXServer key (NS/N).
type SyncFunc func(ctx context.Context, key string) (Result, error)

// Runner is the worker loop of one controller; the workqueue never gives a
// key to two workers at once.
type Runner struct {
	name  string
	queue workqueue.TypedRateLimitingInterface[string]
	sync  SyncFunc
	// userBackoff spaces out retries of user errors (30 s to 5 min per key):
	// only a change of input fixes them, and such a change enqueues the key
	// through an informer event anyway.
	userBackoff workqueue.TypedRateLimiter[string]
	metrics     *metrics.Metrics
	// clock times the graceful shutdown (a fake one in tests).
	clock clock.Clock
	// passes numbers the passes: the reconcile ID of a pass's log lines.
	passes atomic.Uint64
}

// NewRunner builds the loop of the controller name (its queue's name in
// logs and metrics), running sync for each key.
func NewRunner(name string, sync SyncFunc, m *metrics.Metrics) *Runner {
	// Every result series exists from the start, so rates and alerts see
	// zero instead of nothing before a controller's first pass.
	m.InitController(name)
	// Failed passes back off per key from 1 s to 5 min, bounded overall by a
	// token bucket so a burst of failures cannot flood the API server.
	backoff := workqueue.NewTypedMaxOfRateLimiter(
		workqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Second, 5*time.Minute),
		&workqueue.TypedBucketRateLimiter[string]{Limiter: rate.NewLimiter(rate.Limit(50), 300)})
	return &Runner{
		name:    name,
		metrics: m,
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(backoff,
			workqueue.TypedRateLimitingQueueConfig[string]{Name: name, MetricsProvider: m.WorkqueueMetricsProvider()}),
		sync:        sync,
		clock:       clock.RealClock{},
		userBackoff: workqueue.NewTypedItemExponentialFailureRateLimiter[string](30*time.Second, 5*time.Minute),
	}
}

// Enqueue adds a key for a pass.
func (q *Runner) Enqueue(key string) { q.queue.Add(key) }

// Name is the controller's name, as in logs and metrics.
func (q *Runner) Name() string { return q.name }

// Queue is the runner's workqueue, for tests that drive passes by hand.
func (q *Runner) Queue() workqueue.TypedRateLimitingInterface[string] { return q.queue }

// Run starts workers and blocks until ctx is done and the passes in flight
// have finished. Passes run with a context of their own, cancelled grace
// after ctx, so they can finish their writes (docs/controllers.md, Shutdown).
func (q *Runner) Run(ctx context.Context, workers int, grace time.Duration) {
	defer utilruntime.HandleCrash()
	logger := klog.FromContext(ctx).WithValues("controller", q.name)
	logger.Info("Starting workers", "count", workers)
	passCtx, cancelPasses := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelPasses()
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for q.processNext(ctx, passCtx) {
			}
		})
	}
	<-ctx.Done()
	// ShutDown, not ShutDownWithDrain: the latter waits for the passes
	// without a bound, and the workers below skip what is still queued.
	q.queue.ShutDown()
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	select {
	case <-finished:
	case <-q.clock.After(grace):
		logger.Info("Passes still running at the graceful shutdown timeout; cancelling them", "timeout", grace)
		cancelPasses()
		<-finished
	}
	logger.Info("Stopped workers")
}

// processNext runs one pass: an error requeues the key with backoff,
// success forgets its failure history. stop is done when no new pass may
// start; ctx is the context of the pass.
func (q *Runner) processNext(stop, ctx context.Context) bool {
	key, shutdown := q.queue.Get()
	if shutdown {
		return false
	}
	defer q.queue.Done(key)
	if stop.Err() != nil {
		return false
	}
	logger := klog.FromContext(ctx).WithValues("controller", q.name, "ogxserver", key, "reconcileID", q.passes.Add(1))
	ctx = klog.NewContext(ctx, logger)
	start := time.Now()
	res, err := q.sync(ctx, key)
	logger.V(2).Info("Pass finished", "duration", time.Since(start), "err", err)
	result := metrics.ResultSuccess
	switch {
	case err != nil:
		result = metrics.ResultError
	case res.Waiting:
		result = metrics.ResultWaiting
	}
	q.metrics.ObserveReconcile(q.name, result, time.Since(start))
	switch {
	case err == nil:
		if !res.Deferred {
			q.queue.Forget(key)
			q.userBackoff.Forget(key)
		}
		if res.RequeueAfter > 0 {
			q.queue.AddAfter(key, res.RequeueAfter)
		}
	case resolve.IsUserError(err):
		q.queue.Forget(key)
		q.queue.AddAfter(key, q.userBackoff.When(key))
		logger.V(1).Info("Pass failed on a user error, will retry slowly", "err", err)
	default:
		logger.V(1).Info("Pass failed, will retry", "err", err)
		q.queue.AddRateLimited(key)
	}
	return true
}

// WaitingError means the pass cannot proceed yet and should look again
// shortly; it is not a failure. Reason defaults to Progressing.
type WaitingError struct{ Reason, Message string }

func (e *WaitingError) Error() string { return e.Message }
