package main

import (
	"context"
	"errors"
	"fmt"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/klog/v2"

	"github.com/ogx-k8s/ogx-controller/pkg/fence"
	"github.com/ogx-k8s/ogx-controller/pkg/metrics"
)

// runElected runs lead while this replica holds the Lease and returns when
// ctx is done (nil) or the Lease was lost (an error: a replica that lost its
// lease restarts as a follower with clean state).
//
// Shutdown order (docs/high-availability.md): when ctx is done, lead's
// context is cancelled but the elector's is not, so the Lease is still
// renewed, and the fence kept open, while lead lets the passes in flight
// finish; only after lead has returned is the elector stopped, which
// releases the Lease (ReleaseOnCancel) for a follower to take at once.
//
// A lost Lease ends lead's context too, and runElected returns its error
// once lead has returned: the passes in flight end as at a shutdown (up to
// --graceful-shutdown-timeout), but every write they try is refused by the
// fence, which closed before another replica could take the Lease.
func runElected(ctx context.Context, o *options, kube kubernetes.Interface, identity string,
	watchdog *leaderelection.HealthzAdaptor, m *metrics.Metrics, f *fence.Fence, lead func(context.Context)) error {
	logger := klog.FromContext(ctx)
	var lock resourcelock.Interface = &resourcelock.LeaseLock{
		LeaseMeta:  metav1.ObjectMeta{Name: o.leaderElectionID, Namespace: o.leaderElectionNS},
		Client:     kube.CoordinationV1(),
		LockConfig: resourcelock.ResourceLockConfig{Identity: identity},
	}
	if f != nil {
		lock = fence.NewLock(lock, f)
	}
	electCtx, stopElecting := context.WithCancel(context.WithoutCancel(ctx))
	defer stopElecting()
	g := &electedRun{stopElecting: stopElecting, leadDone: make(chan struct{})}
	elector, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock:            lock,
		LeaseDuration:   o.leaseDuration,
		RenewDeadline:   o.renewDeadline,
		RetryPeriod:     o.retryPeriod,
		ReleaseOnCancel: true,
		WatchDog:        watchdog,
		Name:            o.leaderElectionID,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(leading context.Context) {
				g.lead(ctx, leading, func(ctx context.Context) {
					logger.Info("Became leader", "identity", identity)
					lead(ctx)
				})
			},
			OnStoppedLeading: func() {
				m.SetLeader(false)
				if f != nil {
					f.Revoke()
				}
			},
			OnNewLeader: func(id string) {
				if id != identity {
					logger.Info("Following leader", "leader", id)
				}
			},
		},
	})
	if err != nil {
		return fmt.Errorf("leader election: %w", err)
	}
	go g.stopWhenDone(ctx)
	elector.Run(electCtx)
	if g.end() {
		<-g.leadDone
	}
	if !g.stopped() {
		return errors.New("leader election lost")
	}
	return nil
}

// electedRun orders the end of a leader's term: the elector is stopped
// (and so the Lease released) when ctx is done and, if this replica leads,
// only once lead has returned.
type electedRun struct {
	stopElecting func()
	// leadDone is closed when lead's fn has returned.
	leadDone chan struct{}

	mu sync.Mutex
	// leading is set when lead's fn started; over when the election
	// ended, after which it never starts.
	leading, over bool
	// asked is set when the elector was stopped on purpose, not because
	// the Lease was lost.
	asked bool
}

// lead runs fn with a context that ends when ctx (the process) or leading
// (the Lease) does, then stops the elector if the process is stopping.
func (g *electedRun) lead(ctx, leading context.Context, fn func(context.Context)) {
	g.mu.Lock()
	if g.over {
		// The Lease was lost before this goroutine ran.
		g.mu.Unlock()
		return
	}
	if ctx.Err() != nil {
		// Acquired just as the process was told to stop.
		g.mu.Unlock()
		g.stop()
		return
	}
	g.leading = true
	g.mu.Unlock()
	term, cancel := context.WithCancel(leading)
	stopWatching := context.AfterFunc(ctx, cancel)
	fn(term)
	stopWatching()
	cancel()
	close(g.leadDone)
	if ctx.Err() != nil {
		g.stop()
	}
}

// stopWhenDone stops the elector when ctx is done, unless this replica
// leads: then lead stops it once the passes in flight are over.
func (g *electedRun) stopWhenDone(ctx context.Context) {
	<-ctx.Done()
	g.mu.Lock()
	leading := g.leading
	g.mu.Unlock()
	if !leading {
		g.stop()
	}
}

func (g *electedRun) stop() {
	g.mu.Lock()
	g.asked = true
	g.mu.Unlock()
	g.stopElecting()
}

// end marks the election over and reports whether lead's fn started (and
// so must be waited for).
func (g *electedRun) end() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.over = true
	return g.leading
}

func (g *electedRun) stopped() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.asked
}
