package controller

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
)

// sweepInterval is how often the per-server state of deleted servers is
// swept (see sweep).
const sweepInterval = 5 * time.Minute

// sweep drops the per-server state kept in memory (outcomes, facts, the
// config and spec memos, status's last writes, probe and digest records,
// held Warnings, the write journal, the server-TLS Warnings sent) of every
// server that is no longer in the cache.
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
	live := m.caches.hasServer
	n := m.board.retain(live) + m.status.retain(live) + m.events.retain(live) +
		m.resolver.memo.retain(live) + m.specs.retain(live) + m.deployment.tlsWarnings.retain(live)
	if n > 0 {
		klog.FromContext(ctx).V(2).Info("Dropped the state of deleted servers", "entries", n)
	}
}

// retainLive deletes the entries of m whose server is not live and returns
// how many it deleted. The caller holds the lock guarding m.
func retainLive[V any](m map[types.UID]V, live func(types.UID) bool) int {
	n := 0
	for uid := range m {
		if !live(uid) {
			delete(m, uid)
			n++
		}
	}
	return n
}
