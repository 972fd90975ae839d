package fence

import (
	"context"

	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

// Lock wraps the elector's resource lock so that the Fence learns of every
// successful acquisition and renewal (a Create or Update naming this
// identity as holder) and is revoked before the Lease is released (an
// Update naming another holder, which client-go's release sends with an
// empty one).
type Lock struct {
	resourcelock.Interface
	fence *Fence
}

// NewLock returns inner reporting to f.
func NewLock(inner resourcelock.Interface, f *Fence) *Lock {
	return &Lock{Interface: inner, fence: f}
}

// Create creates the Lease record.
func (l *Lock) Create(ctx context.Context, ler resourcelock.LeaderElectionRecord) error {
	return l.write(ler, func() error { return l.Interface.Create(ctx, ler) })
}

// Update updates the Lease record.
func (l *Lock) Update(ctx context.Context, ler resourcelock.LeaderElectionRecord) error {
	return l.write(ler, func() error { return l.Interface.Update(ctx, ler) })
}

// write sends a record. The clock is read before sending (see the package
// comment: the renewal is stored after that moment, never before).
func (l *Lock) write(ler resourcelock.LeaderElectionRecord, send func() error) error {
	if ler.HolderIdentity != l.Identity() {
		l.fence.Revoke()
		return send()
	}
	sent := l.fence.clock.Now()
	if err := send(); err != nil {
		return err
	}
	l.fence.Renewed(sent)
	return nil
}
