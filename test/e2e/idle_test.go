package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

// TestIdleControllerWritesNothing converges 20 OGXServers and then counts
// every mutating request the controller sends for 30 s: a steady state must
// produce none (no status rewrites, no no-op applies, no self-triggered
// loops).
func TestIdleControllerWritesNothing(t *testing.T) {
	const servers = 20
	ns := cp.CreateNamespace(t, "idle")
	_, ogx := clients(t)
	ctx := t.Context()
	ctrl := startController(t, ns)
	for i := range servers {
		s := newServer(ns, fmt.Sprintf("idle-%02d", i))
		if i%2 == 1 {
			replicas := int32(2)
			s.Spec.Workload = &ogxv1beta1.WorkloadSpec{Replicas: &replicas}
		}
		if _, err := ogx.OgxV1beta1().OGXServers(ns).Create(ctx, s, metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating %s: %v", s.Name, err)
		}
	}
	for i := range servers {
		waitReady(t, ogx, ns, fmt.Sprintf("idle-%02d", i), 3*time.Minute)
	}
	// Let in-flight events (the last status writes' own informer echoes)
	// drain: wait until the write count stops moving for 2 s.
	settle := time.Now()
	prev := -1
	_ = wait.PollUntilContextTimeout(ctx, 2*time.Second, time.Minute, true, func(ctx context.Context) (bool, error) {
		n, _ := ctrl.writes.snapshot()
		done := n == prev
		prev = n
		return done, nil
	})
	before, _ := ctrl.writes.snapshot()
	t.Logf("settled %s after the last Ready; %d writes so far", time.Since(settle).Round(time.Second), before)

	window := 30 * time.Second
	observe(window)
	after, log := ctrl.writes.snapshot()
	if after != before {
		t.Errorf("idle controller sent %d writes in %s: %v", after-before, window, log[before:])
	} else {
		t.Logf("idle writes over %s with %d Ready OGXServers: 0", window, servers)
	}
}
