package controller

// Sync tests of the status controller on fake clientsets (fakeenv_test.go).

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clienttesting "k8s.io/client-go/testing"
	clocktesting "k8s.io/utils/clock/testing"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/caches"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/controllertest"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/worker"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

func TestSyncFakeStatusWritesOnceThenNothing(t *testing.T) {
	s := controllertest.Server(sfNamespace, sfName, sfUID, controllertest.WithStorage(""))
	clock := clocktesting.NewFakePassiveClock(time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC))
	e := newSFEnv(t, base.Options{Clock: clock, OperatorVersion: "v1.2.3"}, nil, s)

	// Before the child controllers reported, status waits and writes
	// nothing, and does not poll: each first outcome enqueues it.
	res, err := e.m.status.Sync(e.ctx, sfKey)
	if err != nil {
		t.Fatal(err)
	}
	if res.RequeueAfter != 0 {
		t.Errorf("requeue with an incomplete board = %v, want none", res.RequeueAfter)
	}
	if w := e.OGXWrites(); len(w) != 0 {
		t.Fatalf("status wrote with an incomplete board:%s", controllertest.Describe(w))
	}

	for _, c := range e.m.childControllers {
		if _, err := c.Sync(e.ctx, sfKey); err != nil {
			t.Fatalf("%s: %v", c.Name(), err)
		}
	}
	e.WaitCaught()
	if _, err := e.m.status.Sync(e.ctx, sfKey); err != nil {
		t.Fatal(err)
	}
	w := e.OGXWrites()
	if len(w) != 1 {
		t.Fatalf("first status sync: want one write, got%s", controllertest.Describe(w))
	}
	p, ok := w[0].(clienttesting.PatchActionImpl)
	if !ok || p.GetSubresource() != "status" || p.GetPatchType() != types.ApplyPatchType || p.GetName() != sfName ||
		p.PatchOptions.FieldManager != render.FieldManager {
		t.Fatalf("status write = %s, want apply of ogxservers/status by %s", controllertest.ActionString(w[0]), render.FieldManager)
	}
	stored, err := e.ogx.OgxV1beta1().OGXServers(sfNamespace).Get(e.ctx, sfName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if stored.Status.Phase != ogxv1beta1.PhaseInitializing || stored.Status.ObservedGeneration != 1 {
		t.Errorf("stored status phase %q observedGeneration %d, want Initializing 1", stored.Status.Phase, stored.Status.ObservedGeneration)
	}
	if stored.Status.Version.OperatorVersion != "v1.2.3" || !stored.Status.Version.LastUpdated.Time.Equal(clock.Now()) {
		t.Errorf("stored version = %+v", stored.Status.Version)
	}

	// Steady state over several requeue cycles: no request at all, on either
	// clientset, although the clock moves.
	e.WaitCaught()
	e.ClearActions()
	for i := range 3 {
		clock.SetTime(clock.Now().Add(5 * time.Minute))
		if _, err := e.m.status.Sync(e.ctx, sfKey); err != nil {
			t.Fatal(err)
		}
		for _, c := range e.m.childControllers {
			if _, err := c.Sync(e.ctx, sfKey); err != nil {
				t.Fatal(err)
			}
		}
		if w := append(e.OGXWrites(), e.KubeWrites()...); len(w) != 0 {
			t.Fatalf("cycle %d: steady state sent writes:%s", i, controllertest.Describe(w))
		}
	}

	// A changed input writes again, once; timestamps of unchanged
	// conditions stay.
	e.makeAvailable(sfName)
	e.ClearActions()
	clock.SetTime(clock.Now().Add(time.Minute))
	if _, err := e.m.status.Sync(e.ctx, sfKey); err != nil {
		t.Fatal(err)
	}
	if w := e.OGXWrites(); len(w) != 1 {
		t.Fatalf("after the rollout: want one status write, got%s", controllertest.Describe(w))
	}
	after, err := e.ogx.OgxV1beta1().OGXServers(sfNamespace).Get(e.ctx, sfName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if after.Status.Phase != ogxv1beta1.PhaseReady {
		t.Errorf("phase after rollout = %q, want Ready", after.Status.Phase)
	}
	for _, c := range after.Status.Conditions {
		before := meta.FindStatusCondition(stored.Status.Conditions, c.Type)
		switch {
		case before == nil:
			if !c.LastTransitionTime.Time.Equal(clock.Now()) {
				t.Errorf("new condition %s: lastTransitionTime %v, want %v", c.Type, c.LastTransitionTime, clock.Now())
			}
		case before.Status == c.Status && !c.LastTransitionTime.Equal(&before.LastTransitionTime):
			t.Errorf("condition %s kept status %s but lastTransitionTime moved %v → %v", c.Type, c.Status, before.LastTransitionTime, c.LastTransitionTime)
		case before.Status != c.Status && !c.LastTransitionTime.Time.Equal(clock.Now()):
			t.Errorf("condition %s flipped but lastTransitionTime is %v, want %v", c.Type, c.LastTransitionTime, clock.Now())
		}
	}
	if meta.FindStatusCondition(after.Status.Conditions, ogxv1beta1.ConditionReconciling) != nil {
		t.Errorf("Reconciling present while Ready: %+v", after.Status.Conditions)
	}
	e.WaitCaught()
	e.ClearActions()
	clock.SetTime(clock.Now().Add(5 * time.Minute))
	if _, err := e.m.status.Sync(e.ctx, sfKey); err != nil {
		t.Fatal(err)
	}
	if w := e.OGXWrites(); len(w) != 0 {
		t.Fatalf("steady Ready state sent writes:%s", controllertest.Describe(w))
	}
}

// TestSyncFakeStatusOnlyUpdateTriggersNoPass: a status-only or unrelated
// metadata update of an OGXServer enqueues no controller; a generation change
// enqueues all. A later spec change of a second OGXServer is the sentinel:
// one handler enqueues for every controller, and the informer delivers
// events to it in order, so once a queue has held the sentinel's key it has
// held every key of the earlier update too. The test waits for that key
// itself in every queue, not for the queues to be non-empty: the update's
// own key would satisfy the latter while the sentinel was still on its way.
func TestSyncFakeStatusOnlyUpdateTriggersNoPass(t *testing.T) {
	s := controllertest.Server(sfNamespace, sfName, sfUID)
	sentinel := controllertest.Server(sfNamespace, "sentinel", "uid-sentinel")
	e := newSFEnv(t, base.Options{}, nil, s, sentinel)
	var runners []*worker.Runner
	for _, c := range e.m.childControllers {
		runners = append(runners, c.Runner)
	}
	runners = append(runners, e.m.status.Runner)
	sentinelKey := caches.Key(sfNamespace, sentinel.Name)
	// queued is, for every queue, the keys of the given servers in order.
	queued := func(names ...string) map[string][]string {
		out := map[string][]string{}
		for _, q := range runners {
			for _, n := range names {
				out[q.Name()] = append(out[q.Name()], caches.Key(sfNamespace, n))
			}
		}
		return out
	}
	// take moves what the queues hold into seen, per queue, in order. No
	// worker runs (the Manager's Run is not called), so only take empties
	// the queues.
	take := func(seen map[string][]string) {
		for _, q := range runners {
			for q.Queue().Len() > 0 {
				k, _ := q.Queue().Get()
				seen[q.Name()] = append(seen[q.Name()], k)
				q.Queue().Done(k)
				q.Queue().Forget(k)
			}
		}
	}
	// Start waited for the handlers to see the initial lists, so this
	// takes every key the initial adds queued.
	take(map[string][]string{})
	// bumpSentinel changes the sentinel's generation and returns what every
	// queue held up to and including the sentinel's key.
	bumpSentinel := func(gen int64) map[string][]string {
		t.Helper()
		sn := sentinel.DeepCopy()
		sn.Generation = gen
		if err := e.ogx.Tracker().Update(gvrOGXServers, sn, sfNamespace); err != nil {
			t.Fatal(err)
		}
		seen := map[string][]string{}
		controllertest.Eventually(t, "the sentinel to be enqueued everywhere", func() (bool, string) {
			take(seen)
			for _, q := range runners {
				if !slices.Contains(seen[q.Name()], sentinelKey) {
					return false, fmt.Sprintf("%s has queued %v, not the sentinel", q.Name(), seen[q.Name()])
				}
			}
			return true, ""
		})
		return seen
	}

	upd := s.DeepCopy()
	upd.Status.Phase = ogxv1beta1.PhaseReady
	upd.Labels = map[string]string{"unrelated": "x"}
	upd.Annotations = map[string]string{"note": "y"}
	if err := e.ogx.Tracker().Update(gvrOGXServers, upd, sfNamespace); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(queued("sentinel"), bumpSentinel(2)); diff != "" {
		t.Errorf("after a status/metadata-only update, want only the sentinel queued (-want +got):\n%s", diff)
	}

	spec := upd.DeepCopy()
	spec.Generation = 2
	spec.Spec.Network = &ogxv1beta1.NetworkSpec{Port: 9999}
	if err := e.ogx.Tracker().Update(gvrOGXServers, spec, sfNamespace); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(queued("demo", "sentinel"), bumpSentinel(3)); diff != "" {
		t.Errorf("after a spec change, queued (-want +got):\n%s", diff)
	}
}
