//go:build faults

package faults

import (
	"context"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestFreezeLeaderMidRollout freezes the leading replica (SIGSTOP, as a
// long pause or a partition looks to the others) while a rollout of the
// fleet is in progress, until the follower has taken the Lease, and then
// resumes it (SIGCONT). The resumed process must not write anything after
// the follower's acquire time (the fence refuses its writes: audit log, by
// the process identity in its user agent), it must exit so that it is
// restarted, and the fleet must converge under the new leader.
func TestFreezeLeaderMidRollout(t *testing.T) {
	n := s.fleet
	ns := s.cp.CreateNamespace(t, "freeze")
	names := []string{"replica-a", "replica-b"}
	replicas := startReplicas(t, ns, names...)
	leader := waitLeader(t, ns, time.Minute, names...)
	oldIdentity, _, err := leaseRecord(t.Context(), ns)
	if err != nil {
		t.Fatal(err)
	}
	follower := names[0]
	if follower == leader {
		follower = names[1]
	}
	createFleet(t, ns, n, "v1")
	waitConverged(t, ns, n, "v1", fleetTimeout(n))

	rollout(t, ns, n, "v2")
	at := waitUpdated(t, ns, "v2", 1, time.Minute)
	frozen := time.Now()
	if err := replicas[leader].Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = replicas[leader].Signal(syscall.SIGCONT) })
	var acquired time.Time
	poll(t, leaseDuration+failoverSlack+5*time.Second, 100*time.Millisecond, follower+" to take the Lease", func(ctx context.Context) (bool, error) {
		h, when, err := leaseRecord(ctx, ns)
		acquired = when
		return strings.HasPrefix(h, follower+"_"), err
	})
	t.Logf("SIGSTOP of %s with %d/%d Deployments updated; %s took the Lease after %s",
		leader, at, n, follower, time.Since(frozen).Round(100*time.Millisecond))
	if err := replicas[leader].Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	poll(t, time.Minute, 100*time.Millisecond, "the resumed "+leader+" to exit and be restarted", func(context.Context) (bool, error) {
		return replicas[leader].Restarts() > 0, nil
	})

	took := waitConverged(t, ns, n, "v2", fleetTimeout(n))
	t.Logf("rollout converged %s after the freeze", took.Round(time.Second))

	reqs, err := operatorRequests(ns, frozen.Add(-time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	agent := "(" + oldIdentity + ")"
	writes := 0
	for _, r := range writesExceptLeases(reqs) {
		if !strings.Contains(r.userAgent, agent) {
			continue
		}
		writes++
		if !r.done.Before(acquired) {
			t.Errorf("%s wrote after %s acquired the Lease at %s: %s %s -> %d at %s", oldIdentity, follower,
				acquired.Format(time.RFC3339Nano), r.verb, r.key(), r.code, r.done.Format(time.RFC3339Nano))
		}
	}
	if writes == 0 {
		t.Errorf("no write of %s in the audit log: the identity filter matched nothing, so the check proved nothing", oldIdentity)
	}
	log, err := os.ReadFile(replicas[leader].logPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s wrote %d times in the minute before the freeze and never after the takeover; its log shows %d writes refused by the fence",
		oldIdentity, writes, strings.Count(string(log), "write refused"))
}
