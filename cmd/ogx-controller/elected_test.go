package main

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/ogx-k8s/ogx-controller/pkg/fence"
)

// journal records the order of what happened in a test.
type journal struct {
	mu      sync.Mutex
	entries []string
}

func (j *journal) add(e string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.entries = append(j.entries, e)
}

func (j *journal) has(e string) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, x := range j.entries {
		if x == e {
			return true
		}
	}
	return false
}

func (j *journal) String() string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return strings.Join(j.entries, ", ")
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	err := wait.PollUntilContextTimeout(t.Context(), 5*time.Millisecond, 20*time.Second, true,
		func(context.Context) (bool, error) { return cond(), nil })
	if err != nil {
		t.Fatalf("timed out waiting for %s", what)
	}
}

// renewedAfter reports whether the Lease was last renewed after at.
func renewedAfter(t *testing.T, kube *fake.Clientset, at time.Time) bool {
	t.Helper()
	l, err := kube.CoordinationV1().Leases("ops").Get(context.Background(), "ogx-controller-leader", metav1.GetOptions{})
	return err == nil && l.Spec.RenewTime != nil && l.Spec.RenewTime.After(at)
}

func electionOptions() *options {
	return &options{leaderElectionID: "ogx-controller-leader", leaderElectionNS: "ops",
		leaseDuration: 2 * time.Second, renewDeadline: 1500 * time.Millisecond, retryPeriod: 200 * time.Millisecond}
}

// leaseClient is a fake clientset that journals the release of the Lease
// (an update with an empty holder) and fails renewals while failing is set.
func leaseClient(j *journal, failing *atomic.Bool) *fake.Clientset {
	kube := fake.NewClientset()
	kube.PrependReactor("update", "leases", func(a clienttesting.Action) (bool, runtime.Object, error) {
		if failing.Load() {
			return true, nil, errors.New("the API server is unreachable")
		}
		l := a.(clienttesting.UpdateAction).GetObject().(*coordinationv1.Lease)
		if l.Spec.HolderIdentity == nil || *l.Spec.HolderIdentity == "" {
			j.add("lease released")
		}
		return false, nil, nil
	})
	return kube
}

func holder(t *testing.T, kube *fake.Clientset) string {
	t.Helper()
	l, err := kube.CoordinationV1().Leases("ops").Get(context.Background(), "ogx-controller-leader", metav1.GetOptions{})
	if err != nil || l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}

// TestShutdownOrder: on SIGTERM (ctx cancelled) /readyz fails at once; the
// leader's work sees the stop but keeps an open fence, and the Lease is
// renewed, while it drains; the Lease is released only after the work has
// returned; the run ends without error.
func TestShutdownOrder(t *testing.T) {
	var j journal
	var failing atomic.Bool
	kube := leaseClient(&j, &failing)
	o := electionOptions()
	f := fence.New(o.renewDeadline, nil)
	ctx, sigterm := context.WithCancel(context.Background())
	defer sigterm()
	var synced atomic.Bool
	synced.Store(true)
	health := healthHandler(readiness(ctx, &synced, nil), nil)
	readyz := func() int {
		rec := httptest.NewRecorder()
		health.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/readyz", nil))
		return rec.Code
	}
	release := make(chan struct{})
	lead := func(term context.Context) {
		j.add("leading")
		<-term.Done()
		j.add("stop seen")
		// A pass in flight goes on writing while the queues drain.
		<-release
		if err := f.Check(); err != nil {
			t.Errorf("fence closed while draining: %v", err)
		}
		j.add("drained")
	}
	done := make(chan error, 1)
	go func() { done <- runElected(ctx, o, kube, "me", nil, nil, f, lead) }()
	waitFor(t, "leadership", func() bool { return j.has("leading") })
	if c := readyz(); c != http.StatusOK {
		t.Fatalf("/readyz while leading = %d, want 200", c)
	}

	stopped := time.Now()
	sigterm()
	waitFor(t, "the stop to reach the leader's work", func() bool { return j.has("stop seen") })
	if c := readyz(); c != http.StatusServiceUnavailable {
		t.Errorf("/readyz after SIGTERM, before the drain = %d, want 503", c)
	}
	// Draining for longer than the lease duration: the Lease stays ours
	// because it is still renewed (a renewal later than a whole lease
	// duration after the stop).
	waitFor(t, "a renewal a lease duration after the stop", func() bool {
		return renewedAfter(t, kube, stopped.Add(o.leaseDuration))
	})
	if h := holder(t, kube); h != "me" {
		t.Errorf("Lease holder while draining = %q, want me", h)
	}
	if err := f.Check(); err != nil {
		t.Errorf("fence closed while draining (renewals stopped?): %v", err)
	}
	close(release)
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("runElected after SIGTERM = %v, want nil (exit 0)", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("runElected did not return after the drain")
	}
	if got, want := j.String(), "leading, stop seen, drained, lease released"; got != want {
		t.Errorf("order: %s, want %s", got, want)
	}
	if h := holder(t, kube); h != "" {
		t.Errorf("Lease holder after the shutdown = %q, want empty (released)", h)
	}
	if err := f.Check(); !errors.Is(err, fence.ErrFenced) {
		t.Errorf("fence after the release: %v, want ErrFenced", err)
	}
}

// TestLostLeaseFencesAndFails: a leader whose renewals fail has its fence
// closed within the renew deadline of the last renewal; its work sees its
// context end, and runElected returns an error (exit non-zero) once the
// work has returned.
func TestLostLeaseFencesAndFails(t *testing.T) {
	var j journal
	var failing atomic.Bool
	kube := leaseClient(&j, &failing)
	o := electionOptions()
	// The fence runs on a clock of the test's: when it closes is a matter
	// of its clock and the last successful renewal (pkg/fence's tests prove
	// the bound), not of how soon this test observes it, which a loaded
	// machine would delay past any wall-clock limit.
	clk := clocktesting.NewFakePassiveClock(time.Now())
	f := fence.New(o.renewDeadline, clk)
	release := make(chan struct{})
	lead := func(term context.Context) {
		j.add("leading")
		<-term.Done()
		if err := f.Check(); !errors.Is(err, fence.ErrFenced) {
			t.Errorf("fence when the lost leader's term ended: %v, want ErrFenced", err)
		}
		j.add("term ended")
		<-release
		j.add("drained")
	}
	done := make(chan error, 1)
	go func() { done <- runElected(context.Background(), o, kube, "me", nil, nil, f, lead) }()
	waitFor(t, "leadership", func() bool { return j.has("leading") })
	waitFor(t, "an open fence", func() bool { return f.Check() == nil })
	failing.Store(true)
	// Every renewal from here on fails, so none moves the fence's last
	// renewal past the clock's present: a renew deadline later by the
	// fence's clock it is closed at once, before the elector has noticed
	// anything (the safety property: the renew deadline is below the lease
	// duration, so no other replica can hold the Lease yet).
	clk.SetTime(clk.Now().Add(o.renewDeadline))
	if err := f.Check(); !errors.Is(err, fence.ErrFenced) {
		t.Errorf("fence a renew deadline after the last successful renewal: %v, want ErrFenced", err)
	}
	waitFor(t, "the term to end", func() bool { return j.has("term ended") })
	select {
	case err := <-done:
		t.Fatalf("runElected returned (%v) before the lost leader's work", err)
	default:
	}
	close(release)
	select {
	case err := <-done:
		if err == nil {
			t.Error("runElected after a lost Lease = nil, want an error")
		}
	case <-time.After(20 * time.Second):
		t.Fatal("runElected did not return after the Lease was lost")
	}
	if got, want := j.String(), "leading, term ended, drained"; got != want {
		t.Errorf("order: %s, want %s", got, want)
	}
}
