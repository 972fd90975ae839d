// Package fence keeps a leader that may have lost its Lease from writing.
//
// Leader election alone does not stop an old leader's writes: client-go's
// elector notices a failed renewal only when its renew loop runs again, and
// the workers keep writing until they notice the cancelled context. A
// process frozen (SIGSTOP, a stalled VM, a long GC pause) and then resumed
// runs its workers before the elector has had a chance to find out that
// another replica took the Lease meanwhile.
//
// A Fence closes that gap at the transport: every write (POST, PUT, PATCH,
// DELETE) sent through a client wrapped with WrapTransport is refused unless
// a renewal of the Lease succeeded less than the renew deadline ago, by the
// monotonic clock.
//
// # Timing argument
//
// Let t0 be the moment, on this process's monotonic clock, just before it
// sent a renewal of the Lease that succeeded. The API server stored the
// renewal at some moment after t0. Another replica treats the Lease as
// held from the moment it observes that renewal (which is after it was
// stored) for the lease duration L, and only then may take it: no other
// replica can hold the Lease before t0 + L. The Fence lets a write leave
// this process only before t0 + D, D being the renew deadline, and the
// flags require D < L. So every write leaves at least L - D (5 s by
// default) before another replica can acquire the Lease, and that margin
// is what a write may take between passing the Fence and being committed
// by the API server.
//
// The monotonic clock keeps running while a process is stopped, so a
// process resumed after SIGCONT sees at once that more than D has passed
// since t0 and refuses every write, before the elector has even tried to
// renew. Wall-clock steps do not move it.
//
// What the Fence cannot bound is a write that passed the check and then sat
// in the process's own send path while it was frozen: the check and the
// socket write are microseconds apart, so only a freeze in exactly that
// window escapes, and the margin L - D does not cover a freeze longer than
// itself.
//
// The Lease's own requests go through a client without a Fence (a renewal
// is how the Fence is refreshed, so it must never be refused), as do the
// metrics endpoint's token and access reviews, which store nothing and are
// made by every replica.
package fence

import (
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// ErrFenced is the error of a write refused because the Lease was not
// renewed recently enough (or is not held).
var ErrFenced = errors.New("write refused: this replica does not hold a freshly renewed leader Lease")

// Fence decides whether this process may write. The zero value is not
// usable; use New. It is safe for concurrent use.
type Fence struct {
	clock         clock.PassiveClock
	renewDeadline time.Duration

	mu sync.Mutex
	// renewed is the start of the last successful renewal; held is false
	// before the first and after the Lease was released.
	renewed time.Time
	held    bool
}

// New returns a Fence that refuses writes until the first renewal and
// again once renewDeadline has passed since the last one.
func New(renewDeadline time.Duration, c clock.PassiveClock) *Fence {
	if c == nil {
		c = clock.RealClock{}
	}
	return &Fence{clock: c, renewDeadline: renewDeadline}
}

// Renewed records a successful acquisition or renewal of the Lease whose
// request was sent at sent (a reading of the Fence's clock taken before
// sending, so that it is never later than the moment the API server stored
// it).
func (f *Fence) Renewed(sent time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.held || sent.After(f.renewed) {
		f.renewed = sent
	}
	f.held = true
}

// Revoke refuses every write from now on, until the next renewal: the
// Lease is being released or was lost.
func (f *Fence) Revoke() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.held = false
}

// Check returns nil while a write may be sent, else an error wrapping
// ErrFenced that says how stale the Lease is.
func (f *Fence) Check() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.held {
		return fmt.Errorf("%w (not leading)", ErrFenced)
	}
	if age := f.clock.Since(f.renewed); age >= f.renewDeadline {
		return fmt.Errorf("%w (last renewal started %s ago, renew deadline %s)", ErrFenced,
			age.Round(time.Millisecond), f.renewDeadline)
	}
	return nil
}

// WrapTransport returns rt refusing every write request, without sending
// it, while Check fails. Reads (GET, HEAD, and watches) always pass:
// followers keep their caches warm. It has the signature of
// rest.Config.Wrap.
func (f *Fence) WrapTransport(rt http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(req *http.Request) (*http.Response, error) {
		if isWrite(req.Method) {
			if err := f.Check(); err != nil {
				if req.Body != nil {
					_ = req.Body.Close()
				}
				return nil, fmt.Errorf("%s %s: %w", req.Method, req.URL.Path, err)
			}
		}
		return rt.RoundTrip(req)
	})
}

func isWrite(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return false
	}
	return true
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }
