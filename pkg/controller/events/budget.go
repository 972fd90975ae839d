package events

import (
	"sync/atomic"

	"golang.org/x/time/rate"
)

// Budget is the rate at which the sink admits Events. It is an object of
// its own, handed to the sink through the manager's options, so that a test
// (or an operator tool) can spend it entirely and give it back while the
// controllers run: that is how a dropped Warning is shown to be sent later
// (docs/status.md, Events).
type Budget struct {
	limiter atomic.Pointer[rate.Limiter]
}

// NewBudget returns a budget admitting qps Events a second with bursts of
// burst (see Set).
func NewBudget(qps float64, burst int) *Budget {
	b := &Budget{}
	b.Set(qps, burst)
	return b
}

// Set admits qps Events a second with bursts of burst from now on, with a
// full bucket: qps <= 0 means no limit, burst <= 0 a burst of one.
func (b *Budget) Set(qps float64, burst int) {
	limit := rate.Inf
	if qps > 0 {
		limit = rate.Limit(qps)
	}
	b.limiter.Store(rate.NewLimiter(limit, max(burst, 1)))
}

// Close admits no Event until the next Set.
func (b *Budget) Close() {
	b.limiter.Store(rate.NewLimiter(0, 0))
}

// allow takes one Event from the budget and reports whether there was room
// for it; a nil budget has no limit.
func (b *Budget) allow() bool {
	return b == nil || b.limiter.Load().Allow()
}
