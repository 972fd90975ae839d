package controller

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clienttesting "k8s.io/client-go/testing"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/controllertest"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/status"
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
// one status write (Ready: the pods are available before the first status
// is due), one Event, and nothing for passes that race the cache
// or run again after convergence. A regression here multiplies by the size
// of the fleet.
func TestRequestBudgetOfANewServer(t *testing.T) {
	s := controllertest.Server(sfNamespace, sfName, sfUID)
	e := newSFEnv(t, base.Options{}, nil, s)
	e.m.Events.Lead()

	// Every child controller's first pass, then a second pass at once,
	// before the caches may have caught up: the second costs nothing.
	for range 2 {
		for _, c := range e.m.childControllers {
			if _, err := c.Sync(e.ctx, sfKey); err != nil {
				t.Fatalf("%s: %v", c.Name(), err)
			}
		}
	}
	children := map[string]int{
		"patch deployments": 1, "patch services": 1, "patch serviceaccounts": 1, "patch networkpolicies": 1,
	}
	if d := cmp.Diff(children, budgetCounts(e.kube.Actions())); d != "" {
		t.Errorf("child requests of the first passes (-want +got):%s\n%s", budgetString(budgetCounts(e.kube.Actions())), d)
	}
	for _, a := range e.kube.Actions() {
		if !controllertest.IsCreateOnly(a) {
			t.Errorf("%s: a new child's write is not create-only", controllertest.ActionString(a))
		}
	}

	// The API server stamps a new object's creationTimestamp; the fake
	// does not. With the Deployment just created, the first status waits
	// for its pods (firstStatusWait) and nothing is written yet.
	stampCreated(t, e, sfName, time.Now())
	res, err := e.m.status.Sync(e.ctx, sfKey)
	if err != nil {
		t.Fatal(err)
	}
	if res.RequeueAfter <= 0 || res.RequeueAfter > status.CoalesceWindow {
		t.Errorf("first status pass requeues after %s, want within %s", res.RequeueAfter, status.CoalesceWindow)
	}
	if n := len(e.ogx.Actions()); n != 0 {
		t.Errorf("first status pass with a new Deployment sent %d requests, want 0", n)
	}
	// The Deployment becomes Available (the test's own writes are not counted).
	e.WaitCaught()
	e.makeAvailable(sfName)
	e.kube.ClearActions()
	// Status reaches Ready; every controller passes once more (the events
	// of the children and of the status write start such passes).
	if _, err := e.m.status.Sync(e.ctx, sfKey); err != nil {
		t.Fatal(err)
	}
	e.WaitCaught()
	for _, c := range e.m.childControllers {
		if _, err := c.Sync(e.ctx, sfKey); err != nil {
			t.Fatalf("%s: %v", c.Name(), err)
		}
	}
	if _, err := e.m.status.Sync(e.ctx, sfKey); err != nil {
		t.Fatal(err)
	}
	if n := len(e.kube.Actions()); n != 0 {
		t.Errorf("%d child requests after convergence, want 0:%s", n, budgetString(budgetCounts(e.kube.Actions())))
	}
	status := budgetCounts(e.ogx.Actions())
	if d := cmp.Diff(map[string]int{"patch ogxservers/status": 1}, status); d != "" {
		t.Errorf("OGXServer requests from creation to Ready (-want +got):%s\n%s", budgetString(status), d)
	}
	got, err := e.ogx.OgxV1beta1().OGXServers(sfNamespace).Get(e.ctx, sfName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Status.Phase != ogxv1beta1.PhaseReady {
		t.Errorf("phase %q, want Ready", got.Status.Phase)
	}

	// One Event for the whole start: the phase, Ready from the first
	// status, with the children created on the way.
	queued := e.m.Events.Queued()
	if n := len(queued); n != 1 {
		t.Fatalf("%d Events queued, want 1", n)
	}
	ev := queued[0]
	wantNote := "Phase Ready; Created Service demo-service, NetworkPolicy demo-network-policy, ServiceAccount demo-sa, Deployment demo"
	if ev.Reason != "PhaseChanged" || ev.Note != wantNote {
		t.Errorf("Event %s %q, want PhaseChanged %q", ev.Reason, ev.Note, wantNote)
	}
}

// stampCreated sets the creationTimestamp of Deployment name as the API
// server would have on its create, and waits for the caches.
func stampCreated(t *testing.T, e *sfEnv, name string, at time.Time) {
	t.Helper()
	d, err := e.kube.AppsV1().Deployments(sfNamespace).Get(e.ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d.CreationTimestamp = metav1.NewTime(at)
	if _, err := e.kube.AppsV1().Deployments(sfNamespace).Update(e.ctx, d, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	e.WaitCaught()
	e.kube.ClearActions()
}
