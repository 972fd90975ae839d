package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/events"
)

// TestDroppedWarningSentOnceAfterBudgetRestored: a Warning the Event budget
// drops is not lost (docs/status.md, Events). With the budget spent, a
// server whose CA ConfigMap is missing shows Stalled but gets no Event, also
// past the status pass's first retry; once the budget is back, exactly one
// ReferenceNotFound Warning is stored, with no other activity, and no
// second one follows over a window longer than the retry.
func TestDroppedWarningSentOnceAfterBudgetRestored(t *testing.T) {
	ns := cp.CreateNamespace(t, "warnings")
	budget := events.NewBudget(5, 100)
	budget.Close()
	startController(t, ns, func(o *base.Options) { o.EventBudget = budget })
	kube, ogx := clients(t)
	evs := watchEvents(t, kube, ns)

	s := newServer(ns, "ref")
	s.Spec.TLS = &ogxv1beta1.OutboundTLSSpec{Trust: &ogxv1beta1.TrustSpec{
		CACertificates: []ogxv1beta1.ConfigMapKeyRef{{Name: "absent-ca", Key: "ca.crt"}}}}
	if _, err := ogx.OgxV1beta1().OGXServers(ns).Create(t.Context(), s, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// Status is no Event: it shows the cause while the budget drops its
	// Warning.
	waitObserved(t, ogx, ns, "ref", 1, "Stalled", metav1.ConditionTrue)
	// Past the first retry of the owed Warning (events.OwedRetry after it
	// was dropped), still nothing.
	if got := evs.collect(t, events.OwedRetry+2*time.Second, nil); len(got) != 0 {
		t.Fatalf("Events stored while the budget was spent: %q", got)
	}

	budget.Set(5, 100)
	restored := time.Now()
	isWarning := func(e *eventsv1.Event) bool {
		return e.Regarding.Name == "ref" && e.Type == corev1.EventTypeWarning && e.Reason == ogxv1beta1.ReasonReferenceNotFound
	}
	got := evs.collect(t, 2*events.OwedRetry+10*time.Second, isWarning)
	if len(got) == 0 {
		t.Fatalf("no ReferenceNotFound Warning within %s of the budget's restore", 2*events.OwedRetry+10*time.Second)
	}
	t.Logf("the owed Warning was stored %s after the budget's restore", time.Since(restored).Round(100*time.Millisecond))
	// Settle: longer than the retry, so a second send would show.
	got = append(got, evs.collect(t, events.OwedRetry+5*time.Second, nil)...)
	warnings := 0
	for _, e := range got {
		if isWarning(e.event) {
			warnings++
		}
	}
	if warnings != 1 {
		t.Errorf("%d ReferenceNotFound Warnings after the restore, want exactly 1; Events: %q", warnings, got)
	}
	if list := eventsOf(t, kube, ns, "ref", ogxv1beta1.ReasonReferenceNotFound); len(list) != 1 {
		t.Errorf("%d ReferenceNotFound Events stored, want 1: %q", len(list), notes(list))
	}
}

// eventWatch follows the Events of a namespace from the moment it started.
type eventWatch struct {
	w watch.Interface
}

// seenEvent is one Event the watch delivered, printed as "Type Reason: note".
type seenEvent struct {
	event *eventsv1.Event
}

func (e seenEvent) String() string {
	return fmt.Sprintf("%s %s %s: %s", e.event.Regarding.Name, e.event.Type, e.event.Reason, e.event.Note)
}

// watchEvents starts a watch on the Events of ns from now on; it survives
// the API server closing the watch and stops when the test ends.
func watchEvents(t *testing.T, kube kubernetes.Interface, ns string) *eventWatch {
	t.Helper()
	list, err := kube.EventsV1().Events(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	lw := &cache.ListWatch{WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
		return kube.EventsV1().Events(ns).Watch(ctx, opts)
	}}
	w, err := watchtools.NewRetryWatcherWithContext(t.Context(), list.ResourceVersion, lw)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	return &eventWatch{w: w}
}

// collect returns the Events ogx-controller added within d, or up to and
// including the first one stop accepts (nil: none, wait the whole of d);
// those of other reporters (the scheduler, kube-controller-manager) are
// not about the budget.
func (ew *eventWatch) collect(t *testing.T, d time.Duration, stop func(*eventsv1.Event) bool) []seenEvent {
	t.Helper()
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	var out []seenEvent
	for {
		select {
		case <-deadline.C:
			return out
		case ev, ok := <-ew.w.ResultChan():
			if !ok {
				t.Fatal("the Event watch closed")
			}
			e, isEvent := ev.Object.(*eventsv1.Event)
			if ev.Type != watch.Added || !isEvent || e.ReportingController != events.ReportingController {
				continue
			}
			out = append(out, seenEvent{e})
			if stop != nil && stop(e) {
				return out
			}
		}
	}
}
