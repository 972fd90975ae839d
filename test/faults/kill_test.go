//go:build faults

package faults

import (
	"context"
	"testing"
	"time"
)

// failoverSlack is what the follower may need beyond the lease duration to
// take over from a killed leader: a retry period to notice the expiry, plus
// scheduling delays on a loaded machine.
const failoverSlack = 5 * time.Second

// TestKillLeaderMidRollout SIGKILLs the leading replica while a rollout of
// the whole fleet is in progress. The follower must take the Lease within
// leaseDuration+failoverSlack, every server must converge on the new spec,
// no child may be created twice (audit log), and no server may be lost.
func TestKillLeaderMidRollout(t *testing.T) {
	n := s.fleet
	ns := s.cp.CreateNamespace(t, "kill")
	names := []string{"replica-a", "replica-b"}
	replicas := startReplicas(t, ns, names...)
	leader := waitLeader(t, ns, time.Minute, names...)
	since := time.Now()
	createFleet(t, ns, n, "v1")
	took := waitConverged(t, ns, n, "v1", fleetTimeout(n))
	t.Logf("%d servers created and Ready in %s under %s", n, took.Round(time.Second), leader)

	rollout(t, ns, n, "v2")
	// Kill once the rollout has visibly started but, with a fleet of any
	// size, long before it ends.
	at := waitUpdated(t, ns, "v2", 1, time.Minute)
	killed := time.Now()
	if err := replicas[leader].Kill(); err != nil {
		t.Fatalf("killing %s: %v", leader, err)
	}
	var follower string
	for _, n := range names {
		if n != leader {
			follower = n
		}
	}
	poll(t, leaseDuration+failoverSlack+5*time.Second, 100*time.Millisecond, follower+" to take the Lease", func(ctx context.Context) (bool, error) {
		h, err := leaseHolder(ctx, ns, names)
		return h == follower, err
	})
	failover := time.Since(killed)
	t.Logf("SIGKILL of %s with %d/%d Deployments updated; %s took the Lease after %s (bound %s)",
		leader, at, n, follower, failover.Round(100*time.Millisecond), leaseDuration+failoverSlack)
	if failover > leaseDuration+failoverSlack {
		t.Errorf("failover took %s, more than lease duration %s + %s", failover, leaseDuration, failoverSlack)
	}

	took = waitConverged(t, ns, n, "v2", fleetTimeout(n))
	t.Logf("rollout converged %s after the kill", took.Round(time.Second))

	reqs, err := operatorRequests(ns, since)
	if err != nil {
		t.Fatal(err)
	}
	created := creations(reqs)
	var twice []string
	for _, k := range sortedKeys(created) {
		if created[k] > 1 {
			twice = append(twice, k)
		}
	}
	if len(twice) > 0 {
		t.Errorf("children created more than once: %v", twice)
	}
	deployments := 0
	for k := range created {
		if len(k) > len("deployments/") && k[:len("deployments/")] == "deployments/" {
			deployments++
		}
	}
	if deployments != n {
		t.Errorf("the audit log shows %d Deployments created, want %d (one per server)", deployments, n)
	}
	t.Logf("%d distinct objects created by the operator, each once", len(created))
	if r := replicas[follower].Restarts(); r != 0 {
		t.Errorf("%s restarted %d times", follower, r)
	}
}
