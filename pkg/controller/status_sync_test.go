package controller

// Sync tests of the status controller on fake clientsets (fakeenv_test.go).

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clienttesting "k8s.io/client-go/testing"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/render"
)

func TestSyncFakeStatusWritesOnceThenNothing(t *testing.T) {
	s := sfServer(sfNamespace, sfName, sfUID, sfWithStorage(""))
	e := newSFEnv(t, Options{OperatorVersion: "v1.2.3"}, nil, s)
	clock := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	e.m.status.now = func() time.Time { return clock }

	// Before the child controllers reported, status waits and writes nothing.
	res, err := e.m.status.sync(e.ctx, sfKey)
	if err != nil {
		t.Fatal(err)
	}
	if res.RequeueAfter != time.Second {
		t.Errorf("requeue with an incomplete board = %v, want 1s", res.RequeueAfter)
	}
	if w := e.ogxWrites(); len(w) != 0 {
		t.Fatalf("status wrote with an incomplete board:%s", sfDescribe(w))
	}

	for _, c := range e.m.childControllers {
		if _, err := c.syncKey(e.ctx, sfKey); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
	}
	e.waitCaught()
	if _, err := e.m.status.sync(e.ctx, sfKey); err != nil {
		t.Fatal(err)
	}
	w := e.ogxWrites()
	if len(w) != 1 {
		t.Fatalf("first status sync: want one write, got%s", sfDescribe(w))
	}
	p, ok := w[0].(clienttesting.PatchActionImpl)
	if !ok || p.GetSubresource() != "status" || p.GetPatchType() != types.ApplyPatchType || p.GetName() != sfName ||
		p.PatchOptions.FieldManager != render.FieldManager {
		t.Fatalf("status write = %s, want apply of ogxservers/status by %s", sfActionString(w[0]), render.FieldManager)
	}
	stored, err := e.ogx.OgxV1beta1().OGXServers(sfNamespace).Get(e.ctx, sfName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if stored.Status.Phase != ogxv1beta1.PhaseInitializing || stored.Status.ObservedGeneration != 1 {
		t.Errorf("stored status phase %q observedGeneration %d, want Initializing 1", stored.Status.Phase, stored.Status.ObservedGeneration)
	}
	if stored.Status.Version.OperatorVersion != "v1.2.3" || !stored.Status.Version.LastUpdated.Time.Equal(clock) {
		t.Errorf("stored version = %+v", stored.Status.Version)
	}

	// Steady state over several requeue cycles: no request at all, on either
	// clientset, although the clock moves.
	e.waitCaught()
	e.clearActions()
	for i := range 3 {
		clock = clock.Add(5 * time.Minute)
		if _, err := e.m.status.sync(e.ctx, sfKey); err != nil {
			t.Fatal(err)
		}
		for _, c := range e.m.childControllers {
			if _, err := c.syncKey(e.ctx, sfKey); err != nil {
				t.Fatal(err)
			}
		}
		if w := append(e.ogxWrites(), e.kubeWrites()...); len(w) != 0 {
			t.Fatalf("cycle %d: steady state sent writes:%s", i, sfDescribe(w))
		}
	}

	// A changed input writes again, once; timestamps of unchanged
	// conditions stay.
	e.makeAvailable(sfName)
	e.clearActions()
	clock = clock.Add(time.Minute)
	if _, err := e.m.status.sync(e.ctx, sfKey); err != nil {
		t.Fatal(err)
	}
	if w := e.ogxWrites(); len(w) != 1 {
		t.Fatalf("after the rollout: want one status write, got%s", sfDescribe(w))
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
			if !c.LastTransitionTime.Time.Equal(clock) {
				t.Errorf("new condition %s: lastTransitionTime %v, want %v", c.Type, c.LastTransitionTime, clock)
			}
		case before.Status == c.Status && !c.LastTransitionTime.Equal(&before.LastTransitionTime):
			t.Errorf("condition %s kept status %s but lastTransitionTime moved %v → %v", c.Type, c.Status, before.LastTransitionTime, c.LastTransitionTime)
		case before.Status != c.Status && !c.LastTransitionTime.Time.Equal(clock):
			t.Errorf("condition %s flipped but lastTransitionTime is %v, want %v", c.Type, c.LastTransitionTime, clock)
		}
	}
	if meta.FindStatusCondition(after.Status.Conditions, CondReconciling) != nil {
		t.Errorf("Reconciling present while Ready: %+v", after.Status.Conditions)
	}
	e.waitCaught()
	e.clearActions()
	clock = clock.Add(5 * time.Minute)
	if _, err := e.m.status.sync(e.ctx, sfKey); err != nil {
		t.Fatal(err)
	}
	if w := e.ogxWrites(); len(w) != 0 {
		t.Fatalf("steady Ready state sent writes:%s", sfDescribe(w))
	}
}

// TestSyncFakeStatusOnlyUpdateTriggersNoPass: a status-only or unrelated
// metadata update of an OGXServer enqueues no controller; a generation change
// enqueues all. A later spec change of a second OGXServer is the sentinel: the
// informer delivers events to a handler in order, so once the sentinel is
// queued the earlier update has been handled.
func TestSyncFakeStatusOnlyUpdateTriggersNoPass(t *testing.T) {
	s := sfServer(sfNamespace, sfName, sfUID)
	sentinel := sfServer(sfNamespace, "sentinel", "uid-sentinel")
	e := newSFEnv(t, Options{}, nil, s, sentinel)
	var runners []*queueRunner
	for _, c := range e.m.childControllers {
		runners = append(runners, c.queueRunner)
	}
	runners = append(runners, e.m.status.queueRunner)
	queued := func(names ...string) []string {
		var out []string
		for _, q := range runners {
			for _, n := range names {
				out = append(out, q.name+":"+Key(sfNamespace, n))
			}
		}
		return out
	}
	// Drain what the initial adds enqueued.
	drain := func() []string {
		var keys []string
		for _, q := range runners {
			for q.queue.Len() > 0 {
				k, _ := q.queue.Get()
				keys = append(keys, q.name+":"+k)
				q.queue.Done(k)
				q.queue.Forget(k)
			}
		}
		return keys
	}
	drain()
	bumpSentinel := func(gen int64) {
		t.Helper()
		sn := sentinel.DeepCopy()
		sn.Generation = gen
		if err := e.ogx.Tracker().Update(gvrOGXServers, sn, sfNamespace); err != nil {
			t.Fatal(err)
		}
		sfEventually(t, "the sentinel to be enqueued everywhere", func() (bool, string) {
			for _, q := range runners {
				if q.queue.Len() == 0 {
					return false, q.name + " queue empty"
				}
			}
			return true, ""
		})
	}

	upd := s.DeepCopy()
	upd.Status.Phase = ogxv1beta1.PhaseReady
	upd.Labels = map[string]string{"unrelated": "x"}
	upd.Annotations = map[string]string{"note": "y"}
	if err := e.ogx.Tracker().Update(gvrOGXServers, upd, sfNamespace); err != nil {
		t.Fatal(err)
	}
	bumpSentinel(2)
	want := queued("sentinel")
	if got := drain(); !cmp.Equal(got, want) {
		t.Errorf("after a status/metadata-only update, queued %v, want only the sentinel %v", got, want)
	}

	spec := upd.DeepCopy()
	spec.Generation = 2
	spec.Spec.Network = &ogxv1beta1.NetworkSpec{Port: 9999}
	if err := e.ogx.Tracker().Update(gvrOGXServers, spec, sfNamespace); err != nil {
		t.Fatal(err)
	}
	bumpSentinel(3)
	want = queued("demo", "sentinel")
	if got := drain(); !cmp.Equal(got, want) {
		t.Errorf("after a spec change, queued %v, want %v", got, want)
	}
}
