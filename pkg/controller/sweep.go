package controller

import (
	"context"
	"time"

	"k8s.io/klog/v2"
)

// sweepInterval is how often the per-server state of deleted servers is
// swept (see sweep).
const sweepInterval = 5 * time.Minute

// sweep drops the per-server record (record.Store) of every server that is
// no longer in the cache.
//
// The delete handler forgets a server's state at once, but a pass that was
// already running when the server was deleted may record into a store after
// that: without the sweep such an entry would stay for the life of the
// process. It reads only the cache and sends no request.
func (m *Manager) sweep(ctx context.Context) {
	// Liveness is asked of the cache entry by entry, at the moment of the
	// delete, not of a list taken before: a server created while the sweep
	// runs is in the cache before any pass can record state for it (the
	// informer stores an object before it hands out the event that queues
	// it), so its state is never taken for a deleted server's.
	live := m.Caches.HasServer
	n := m.Records.Sweep(live)
	if n > 0 {
		klog.FromContext(ctx).V(2).Info("Dropped the state of deleted servers", "servers", n)
	}
}
