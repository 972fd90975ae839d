package controller

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clienttesting "k8s.io/client-go/testing"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

// budgetCounts renders actions as "verb resource[/subresource]" counts.
func budgetCounts(actions []clienttesting.Action) map[string]int {
	out := map[string]int{}
	for _, a := range actions {
		r := a.GetResource().Resource
		if sub := a.GetSubresource(); sub != "" {
			r += "/" + sub
		}
		out[a.GetVerb()+" "+r]++
	}
	return out
}

func budgetString(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "\n  %s: %d", k, m[k])
	}
	return b.String()
}

// TestRequestBudgetOfANewServer pins what a new starter OGXServer costs from
// creation to Ready: one request per child (no live read before a create),
// two status writes, one Event, and nothing for passes that race the cache
// or run again after convergence. A regression here multiplies by the size
// of the fleet.
func TestRequestBudgetOfANewServer(t *testing.T) {
	s := sfServer(sfNamespace, sfName, sfUID)
	e := newSFEnv(t, Options{}, nil, s)
	e.m.events.active.Store(true)
	defer e.m.events.active.Store(false)

	// Every child controller's first pass, then a second pass at once,
	// before the caches may have caught up: the second costs nothing.
	for range 2 {
		for _, c := range e.m.childControllers {
			if _, err := c.syncKey(e.ctx, sfKey); err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
		}
	}
	if _, err := e.m.status.sync(e.ctx, sfKey); err != nil {
		t.Fatal(err)
	}
	children := map[string]int{
		"patch deployments": 1, "patch services": 1, "patch serviceaccounts": 1, "patch networkpolicies": 1,
	}
	if d := cmp.Diff(children, budgetCounts(e.kube.Actions())); d != "" {
		t.Errorf("child requests of the first passes (-want +got):%s\n%s", budgetString(budgetCounts(e.kube.Actions())), d)
	}
	for _, a := range e.kube.Actions() {
		if !isCreateOnly(a) {
			t.Errorf("%s: a new child's write is not create-only", sfActionString(a))
		}
	}

	// The Deployment becomes Available (the test's own write is not counted).
	e.waitCaught()
	e.makeAvailable(sfName)
	e.kube.ClearActions()
	// Status reaches Ready; every controller passes once more (the events
	// of the children and of the status write start such passes).
	if _, err := e.m.status.sync(e.ctx, sfKey); err != nil {
		t.Fatal(err)
	}
	e.waitCaught()
	for _, c := range e.m.childControllers {
		if _, err := c.syncKey(e.ctx, sfKey); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
	}
	if _, err := e.m.status.sync(e.ctx, sfKey); err != nil {
		t.Fatal(err)
	}
	if n := len(e.kube.Actions()); n != 0 {
		t.Errorf("%d child requests after convergence, want 0:%s", n, budgetString(budgetCounts(e.kube.Actions())))
	}
	status := budgetCounts(e.ogx.Actions())
	if d := cmp.Diff(map[string]int{"patch ogxservers/status": 2}, status); d != "" {
		t.Errorf("OGXServer requests from creation to Ready (-want +got):%s\n%s", budgetString(status), d)
	}
	got, err := e.ogx.OgxV1beta1().OGXServers(sfNamespace).Get(e.ctx, sfName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Status.Phase != ogxv1beta1.PhaseReady {
		t.Errorf("phase %q, want Ready", got.Status.Phase)
	}

	// One Event for the whole start: the phase reaching Ready, with the
	// children created on the way.
	if n := len(e.m.events.queue); n != 1 {
		t.Fatalf("%d Events queued, want 1", n)
	}
	ev := <-e.m.events.queue
	wantNote := "Phase Initializing → Ready; Created Service demo-service, NetworkPolicy demo-network-policy, ServiceAccount demo-sa, Deployment demo"
	if ev.Reason != "PhaseChanged" || ev.Note != wantNote {
		t.Errorf("Event %s %q, want PhaseChanged %q", ev.Reason, ev.Note, wantNote)
	}
}

// TestStatusCoalesce: while a server is starting, a change within the same
// phase waits until the last write is statusCoalesceWindow old; a change of
// phase or generation, or a first write, is written at once.
func TestStatusCoalesce(t *testing.T) {
	now := metav1.Now().Time
	c := &StatusController{now: func() time.Time { return now }, writtenAt: map[types.UID]time.Time{}}
	server := func(phase ogxv1beta1.Phase) *ogxv1beta1.OGXServer {
		return &ogxv1beta1.OGXServer{ObjectMeta: metav1.ObjectMeta{UID: "u", Generation: 1},
			Status: ogxv1beta1.OGXServerStatus{Phase: phase, ObservedGeneration: 1}}
	}
	status := func(phase ogxv1beta1.Phase, gen int64) ogxv1beta1.OGXServerStatus {
		return ogxv1beta1.OGXServerStatus{Phase: phase, ObservedGeneration: gen}
	}
	if w := c.coalesce(server(ogxv1beta1.PhaseInitializing), status(ogxv1beta1.PhaseInitializing, 1)); w != 0 {
		t.Errorf("never written: wait %s, want 0", w)
	}
	c.writtenAt["u"] = now.Add(-500 * time.Millisecond)
	for _, tc := range []struct {
		name      string
		stored    ogxv1beta1.Phase
		computed  ogxv1beta1.OGXServerStatus
		wantDelay bool
	}{
		{"same starting phase", ogxv1beta1.PhaseInitializing, status(ogxv1beta1.PhaseInitializing, 1), true},
		{"pending stays pending", ogxv1beta1.PhasePending, status(ogxv1beta1.PhasePending, 1), true},
		{"phase change", ogxv1beta1.PhaseInitializing, status(ogxv1beta1.PhaseReady, 1), false},
		{"new generation", ogxv1beta1.PhaseInitializing, status(ogxv1beta1.PhaseInitializing, 2), false},
		{"ready is never delayed", ogxv1beta1.PhaseReady, status(ogxv1beta1.PhaseReady, 1), false},
	} {
		w := c.coalesce(server(tc.stored), tc.computed)
		if tc.wantDelay && w != statusCoalesceWindow-500*time.Millisecond {
			t.Errorf("%s: wait %s, want %s", tc.name, w, statusCoalesceWindow-500*time.Millisecond)
		}
		if !tc.wantDelay && w != 0 {
			t.Errorf("%s: wait %s, want 0", tc.name, w)
		}
	}
	c.writtenAt["u"] = now.Add(-statusCoalesceWindow)
	if w := c.coalesce(server(ogxv1beta1.PhaseInitializing), status(ogxv1beta1.PhaseInitializing, 1)); w != 0 {
		t.Errorf("window passed: wait %s, want 0", w)
	}
}
