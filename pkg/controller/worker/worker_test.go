package worker

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr/funcr"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/klog/v2"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/ogx-k8s/ogx-controller/pkg/metrics"
	"github.com/ogx-k8s/ogx-controller/pkg/resolve"
)

// TestPassesCarryReconcileIDs: every line a pass logs names its controller,
// its key and a reconcile ID of its own.
func TestPassesCarryReconcileIDs(t *testing.T) {
	var mu sync.Mutex
	var lines []string
	logger := funcr.New(func(prefix, args string) {
		mu.Lock()
		defer mu.Unlock()
		lines = append(lines, args)
	}, funcr.Options{})
	ctx := klog.NewContext(context.Background(), logger)
	q := NewRunner("test", func(ctx context.Context, key string) (Result, error) {
		klog.FromContext(ctx).Info("working")
		return Result{}, nil
	}, metrics.New("test"))
	for range 2 {
		q.Enqueue("ns/s")
		q.processNext(ctx, ctx)
	}
	var ids []string
	for _, l := range lines {
		if strings.Contains(l, `"working"`) {
			if !strings.Contains(l, `"controller"="test"`) || !strings.Contains(l, `"ogxserver"="ns/s"`) {
				t.Errorf("line without controller or key: %s", l)
			}
			_, id, ok := strings.Cut(l, `"reconcileID"=`)
			if !ok {
				t.Fatalf("line without a reconcile ID: %s", l)
			}
			ids = append(ids, strings.Fields(id)[0])
		}
	}
	if len(ids) != 2 || ids[0] == ids[1] {
		t.Errorf("reconcile IDs %v, want two distinct", ids)
	}
}

// blockingRunner is a Runner whose passes on key "ns/slow" report
// that they started and then wait for release or for their context to end.
type blockingRunner struct {
	*Runner
	clock   *clocktesting.FakeClock
	started chan struct{}
	release chan struct{}
	// passEnd receives the context error each slow pass ended with.
	passEnd chan error
	mu      sync.Mutex
	passed  []string
}

func newBlockingRunner() *blockingRunner {
	b := &blockingRunner{clock: clocktesting.NewFakeClock(time.Unix(0, 0)), started: make(chan struct{}, 1),
		release: make(chan struct{}), passEnd: make(chan error, 1)}
	b.Runner = NewRunner("test", func(ctx context.Context, key string) (Result, error) {
		b.mu.Lock()
		b.passed = append(b.passed, key)
		b.mu.Unlock()
		if key != "ns/slow" {
			return Result{}, nil
		}
		b.started <- struct{}{}
		select {
		case <-b.release:
		case <-ctx.Done():
		}
		b.passEnd <- ctx.Err()
		return Result{}, ctx.Err()
	}, nil)
	b.Runner.clock = b.clock
	return b
}

func (b *blockingRunner) keys() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.passed...)
}

// runUntilSlowPass starts Run with one worker and returns once the slow
// pass is in flight with other keys queued behind it.
func (b *blockingRunner) runUntilSlowPass(t *testing.T, grace time.Duration) (cancel func(), returned chan struct{}) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	returned = make(chan struct{})
	b.Enqueue("ns/slow")
	go func() { b.Run(ctx, 1, grace); close(returned) }()
	select {
	case <-b.started:
	case <-time.After(10 * time.Second):
		t.Fatal("the slow pass did not start")
	}
	b.Enqueue("ns/queued")
	return cancel, returned
}

// TestShutdownLetsPassesInFlightFinish: a pass in flight when the stop
// comes keeps a live context and finishes; keys still queued, or added
// later, start no pass; Run returns only after the pass has.
func TestShutdownLetsPassesInFlightFinish(t *testing.T) {
	b := newBlockingRunner()
	cancel, returned := b.runUntilSlowPass(t, time.Minute)
	cancel()
	// The queue stops taking keys (ShutDown), and Run waits on the grace
	// timer: both are visible before the pass is released.
	waitFor(t, "Run to shut the queue down and wait for the pass", func() bool {
		return b.queue.ShuttingDown() && b.clock.HasWaiters()
	})
	b.Enqueue("ns/late")
	select {
	case <-returned:
		t.Fatal("Run returned with a pass in flight")
	default:
	}
	close(b.release)
	if err := <-b.passEnd; err != nil {
		t.Errorf("the pass in flight ended with context error %v, want a live context", err)
	}
	select {
	case <-returned:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after the pass finished")
	}
	if got := strings.Join(b.keys(), ","); got != "ns/slow" {
		t.Errorf("passes %s, want only the one in flight (ns/slow)", got)
	}
}

// TestShutdownCancelsPassesAtTheTimeout: a pass still running when the
// graceful shutdown timeout ends has its context cancelled.
func TestShutdownCancelsPassesAtTheTimeout(t *testing.T) {
	b := newBlockingRunner()
	cancel, returned := b.runUntilSlowPass(t, 5*time.Second)
	cancel()
	waitFor(t, "Run to wait on the grace timer", b.clock.HasWaiters)
	b.clock.Step(4999 * time.Millisecond)
	select {
	case err := <-b.passEnd:
		t.Fatalf("the pass ended (%v) before the timeout", err)
	default:
	}
	b.clock.Step(time.Millisecond)
	select {
	case err := <-b.passEnd:
		if err != context.Canceled {
			t.Errorf("the pass ended with %v at the timeout, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the pass was not cancelled at the timeout")
	}
	select {
	case <-returned:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after the cancelled pass")
	}
}

// waitFor polls cond every millisecond for up to 10 s and fails the test
// with what if it never holds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	err := wait.PollUntilContextTimeout(t.Context(), time.Millisecond, 10*time.Second, true,
		func(context.Context) (bool, error) { return cond(), nil })
	if err != nil {
		t.Fatalf("timed out waiting for %s", what)
	}
}

// TestDeferredPassKeepsTheBackoff: a deferred pass between two user errors
// of a key keeps its history, so the second retry waits twice as long as
// the first; a pass that succeeds resets it.
func TestDeferredPassKeepsTheBackoff(t *testing.T) {
	results := []struct {
		res Result
		err error
	}{
		{err: &resolve.UserError{Reason: "BaseConfigUnavailable", Err: errors.New("registry down")}},
		{res: Result{Waiting: true, Deferred: true}},
		{err: &resolve.UserError{Reason: "BaseConfigUnavailable", Err: errors.New("registry down")}},
		{},
		{err: &resolve.UserError{Reason: "BaseConfigUnavailable", Err: errors.New("registry down")}},
	}
	i := 0
	q := NewRunner("test", func(context.Context, string) (Result, error) {
		r := results[i]
		i++
		return r.res, r.err
	}, nil)
	ctx := context.Background()
	var failures []int
	for range results {
		q.Enqueue("ns/s")
		q.processNext(ctx, ctx)
		failures = append(failures, q.userBackoff.NumRequeues("ns/s"))
	}
	if want := []int{1, 1, 2, 0, 1}; !slices.Equal(failures, want) {
		t.Errorf("user-error retries recorded after each pass = %v, want %v", failures, want)
	}
}
