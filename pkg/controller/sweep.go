package controller

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
)

// sweepInterval is how often the record of deleted servers is swept.
const sweepInterval = 5 * time.Minute

// sweep drops the per-server record of every server no longer in the cache:
// the delete handler forgets it at once, but a pass already running then
// may record after that, and the entry would stay for the life of the
// process. It reads only the cache.
func (m *Manager) sweep(ctx context.Context) {
	// The cache is read after the record's UIDs are taken (Store.Sweep asks
	// live only then): the informer stores a new server before any pass can
	// record for it, so every UID taken belongs to a server that was
	// cached, and one missing from the later read was deleted.
	var cached map[types.UID]bool
	live := func(uid types.UID) bool {
		if cached == nil {
			cached = m.Caches.ServerUIDs()
		}
		return cached[uid]
	}
	if n := m.Records.Sweep(live); n > 0 {
		klog.FromContext(ctx).V(2).Info("Dropped the state of deleted servers", "servers", n)
	}
}
