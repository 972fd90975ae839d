//go:build faults

package faults

import (
	"context"
	"testing"
	"time"

	"github.com/ogx-k8s/ogx-controller/test/framework"
)

// TestRestartControlPlaneMidRollout stops and restarts kube-apiserver, and
// then etcd, each in the middle of a rollout of the fleet. The replicas'
// watches must resume (the fleet converges on the value rolled out before
// the outage, and on one rolled out after it) and the operator must be idle
// afterwards.
//
// The subtests share the control plane with the rest of the package, so
// they run in sequence and the package's tests never use t.Parallel.
func TestRestartControlPlaneMidRollout(t *testing.T) {
	for _, component := range []string{framework.APIServer, framework.Etcd} {
		t.Run(component, func(t *testing.T) {
			n := s.fleet
			ns := s.cp.CreateNamespace(t, "restart")
			names := []string{"replica-a", "replica-b"}
			startReplicas(t, ns, names...)
			waitLeader(t, ns, time.Minute, names...)
			createFleet(t, ns, n, "v1")
			waitConverged(t, ns, n, "v1", fleetTimeout(n))

			rollout(t, ns, n, "v2")
			at := waitUpdated(t, ns, "v2", 1, time.Minute)
			down := time.Now()
			if err := s.cp.StopComponent(component); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
			defer cancel()
			if err := s.cp.StartComponent(ctx, component); err != nil {
				t.Fatal(err)
			}
			t.Logf("%s down for %s with %d/%d Deployments updated", component, time.Since(down).Round(100*time.Millisecond), at, n)
			took := waitConverged(t, ns, n, "v2", fleetTimeout(n))
			t.Logf("rollout converged %s after %s was back", took.Round(time.Second), component)

			// A change made after the outage arrives through the resumed
			// watches.
			rollout(t, ns, n, "v3")
			took = waitConverged(t, ns, n, "v3", fleetTimeout(n))
			t.Logf("a rollout after the outage converged in %s", took.Round(time.Second))
			assertIdle(t, ns)
		})
	}
}
