package controller

import (
	"context"
	"time"

	"k8s.io/klog/v2"
)

// sweepInterval is how often the record of deleted servers is swept.
const sweepInterval = 5 * time.Minute

// sweep drops the per-server record of every server no longer in the cache:
// the delete handler forgets it at once, but a pass already running then
// may record after that, and the entry would stay for the life of the
// process. It reads only the cache.
func (m *Manager) sweep(ctx context.Context) {
	// Liveness is asked of the cache per entry, not of a list taken before:
	// the informer stores a new server before any pass can record for it,
	// so its record is never taken for a deleted server's.
	if n := m.Records.Sweep(m.Caches.HasServer); n > 0 {
		klog.FromContext(ctx).V(2).Info("Dropped the state of deleted servers", "servers", n)
	}
}
