//go:build faults

package faults

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// settleQuiet is how long the operator must have written nothing before an
// idle window starts: the last status writes' informer echoes arrive within
// it.
const settleQuiet = 5 * time.Second

// assertIdle waits until the operator's writes in ns have stopped, then
// watches the audit log for s.idle and fails on any write other than the
// Lease renewals: a converged fleet must not cause a hot loop after a
// fault.
func assertIdle(t *testing.T, ns string) {
	t.Helper()
	lastWrite := func() (time.Time, error) {
		reqs, err := operatorRequests(ns, time.Time{})
		if err != nil {
			return time.Time{}, err
		}
		w := writesExceptLeases(reqs)
		if len(w) == 0 {
			return time.Time{}, nil
		}
		return w[len(w)-1].at, nil
	}
	poll(t, 2*time.Minute, time.Second, fmt.Sprintf("no operator write in %s for %s", ns, settleQuiet), func(context.Context) (bool, error) {
		at, err := lastWrite()
		return time.Since(at) >= settleQuiet, err
	})
	start := time.Now()
	var found []request
	// The window is observed, not waited on: the poll ends early only if a
	// write shows up.
	err := wait.PollUntilContextTimeout(t.Context(), 2*time.Second, s.idle, false, func(context.Context) (bool, error) {
		reqs, err := operatorRequests(ns, start)
		if err != nil {
			return false, err
		}
		found = writesExceptLeases(reqs)
		return len(found) > 0, nil
	})
	if err != nil && !wait.Interrupted(err) {
		t.Fatalf("reading the audit log during the idle window: %v", err)
	}
	if len(found) > 0 {
		var b strings.Builder
		for _, r := range found[:min(len(found), 10)] {
			fmt.Fprintf(&b, "\n\t%s %s %s %d", r.at.Format(time.StampMilli), r.verb, r.key(), r.code)
		}
		t.Errorf("the operator wrote %d times while the fleet was converged (hot loop?):%s", len(found), b.String())
		return
	}
	t.Logf("idle window %s: 0 operator writes besides the Lease", s.idle)
}
