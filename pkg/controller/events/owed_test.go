package events

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/record"
	"github.com/ogx-k8s/ogx-controller/pkg/metrics"
)

// spentSink is a leading sink whose budget admits nothing, with the budget,
// the metrics and the keys it asked to wake.
func spentSink(t *testing.T) (*Sink, *Budget, *metrics.Metrics, *[]string) {
	t.Helper()
	b := NewBudget(1000, 1000)
	b.Close()
	m := metrics.New("test")
	e := NewSink("test", b, m, record.New())
	var woken []string
	e.OnOwed(func(key string) { woken = append(woken, key) })
	e.Lead()
	return e, b, m, &woken
}

func testServer() *ogxv1beta1.OGXServer {
	return &ogxv1beta1.OGXServer{ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "ns", UID: "u"}}
}

// sent returns the queued Events as "Type Reason: note".
func sent(e *Sink) []string {
	var out []string
	for _, ev := range e.Queued() {
		out = append(out, ev.Type+" "+ev.Reason+": "+ev.Note)
	}
	return out
}

// dropped is ogx_controller_events_dropped_total{type,reason}.
func dropped(t *testing.T, m *metrics.Metrics, eventType, reason string) float64 {
	t.Helper()
	mfs, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "ogx_controller_events_dropped_total" {
			continue
		}
		for _, metric := range mf.GetMetric() {
			labels := map[string]string{}
			for _, lp := range metric.GetLabel() {
				labels[lp.GetName()] = lp.GetValue()
			}
			if labels["type"] == eventType && labels["reason"] == reason {
				return metric.GetCounter().GetValue()
			}
		}
	}
	return 0
}

// TestDroppedWarningSentOnceAfterBudgetRestored: a Warning the budget drops
// is owed, not sent while the budget stays spent, and sent exactly once by
// the passes after it is given back.
func TestDroppedWarningSentOnceAfterBudgetRestored(t *testing.T) {
	e, b, _, woken := spentSink(t)
	s := testServer()
	e.Warn(s, "ReferenceNotFound", "ConfigMap absent-ca not found", func() bool { return true })
	if got := sent(e); len(got) != 0 || !e.Owes(s.UID) {
		t.Fatalf("spent budget: sent %q, owes %v; want nothing sent and a debt", got, e.Owes(s.UID))
	}
	if !slices.Equal(*woken, []string{"ns/s"}) {
		t.Errorf("woken %q, want the server's status pass once", *woken)
	}
	if !e.Settle(s) || len(sent(e)) != 0 {
		t.Fatalf("a pass with the budget still spent sent the Warning or forgot it")
	}
	b.Set(1000, 1000)
	for pass := range 3 {
		owes := e.Settle(s)
		got := sent(e)
		want := []string{"Warning ReferenceNotFound: ConfigMap absent-ca not found"}
		if pass > 0 {
			want = nil
		}
		if !slices.Equal(got, want) || owes {
			t.Errorf("pass %d after restore: sent %q, owes %v; want %q, nothing owed", pass, got, owes, want)
		}
	}
	if len(*woken) != 1 {
		t.Errorf("woken %d times, want once (the first debt)", len(*woken))
	}
}

// TestOwedWarningOfGoneCauseNotSent: a debt whose cause is gone by the
// time the budget allows it is forgotten, never sent.
func TestOwedWarningOfGoneCauseNotSent(t *testing.T) {
	e, b, _, _ := spentSink(t)
	s := testServer()
	holds := true
	e.Warn(s, "ReferenceNotFound", "ConfigMap absent-ca not found", func() bool { return holds })
	holds = false
	b.Set(1000, 1000)
	if owes := e.Settle(s); owes || len(sent(e)) != 0 {
		t.Errorf("gone cause: owes %v, sent %q; want nothing", owes, sent(e))
	}
	if e.Owes(s.UID) {
		t.Errorf("the debt of a gone cause was kept")
	}
}

// TestNormalEventsNotOwed: only Warnings are owed; a dropped Normal Event
// is counted and gone.
func TestNormalEventsNotOwed(t *testing.T) {
	e, b, m, woken := spentSink(t)
	s := testServer()
	e.Normal(s, "ConfigGenerated", "Generated ConfigMap s-config-1")
	e.Flush(s, ogxv1beta1.PhaseInitializing, ogxv1beta1.PhaseReady)
	if e.Owes(s.UID) || len(*woken) != 0 {
		t.Errorf("dropped Normal Events are owed (woken %q)", *woken)
	}
	b.Set(1000, 1000)
	if e.Settle(s); len(sent(e)) != 0 {
		t.Errorf("dropped Normal Events were sent later: %q", sent(e))
	}
	if got := dropped(t, m, corev1.EventTypeNormal, "ConfigGenerated"); got != 1 {
		t.Errorf("dropped Normal ConfigGenerated counted %v, want 1", got)
	}
}

// TestDroppedEventsCounted: every Event the budget drops counts in
// ogx_controller_events_dropped_total by type and reason, also a retry of
// an owed Warning the budget drops again.
func TestDroppedEventsCounted(t *testing.T) {
	e, _, m, _ := spentSink(t)
	s := testServer()
	e.Warn(s, "ReferenceNotFound", "x", func() bool { return true })
	if got := dropped(t, m, corev1.EventTypeWarning, "ReferenceNotFound"); got != 1 {
		t.Errorf("after one drop: %v, want 1", got)
	}
	e.Settle(s)
	if got := dropped(t, m, corev1.EventTypeWarning, "ReferenceNotFound"); got != 2 {
		t.Errorf("after the owed Warning was dropped again: %v, want 2", got)
	}
}

// TestHeldWarningDroppedIsOwedWhileItHolds: a While Warning the budget
// drops stays held (the caller's next pass does not send it again) and is
// sent once by Settle while it holds with the same cause; released, its
// debt is forgotten.
func TestHeldWarningDroppedIsOwedWhileItHolds(t *testing.T) {
	for _, tc := range []struct {
		name    string
		release bool
		want    []string
	}{
		{"still holding", false, []string{"Warning EmptyCABundle: no certificates"}},
		{"released", true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, b, _, _ := spentSink(t)
			s := testServer()
			e.WarnWhile(s, "EmptyCABundle", "no certificates", true)
			if tc.release {
				e.WarnWhile(s, "EmptyCABundle", "", false)
			}
			b.Set(1000, 1000)
			e.WarnWhile(s, "EmptyCABundle", "no certificates", !tc.release)
			if got := sent(e); len(got) != 0 {
				t.Fatalf("the caller's next pass sent %q; the debt is Settle's", got)
			}
			e.Settle(s)
			e.Settle(s)
			if got := sent(e); !slices.Equal(got, tc.want) {
				t.Errorf("sent %q, want %q", got, tc.want)
			}
		})
	}
}

// TestWarningSentAgainPaysDebt: a cause that went away and came back while
// owed, and whose new Warning was sent, is not reported again by Settle.
func TestWarningSentAgainPaysDebt(t *testing.T) {
	e, b, _, _ := spentSink(t)
	s := testServer()
	e.Warn(s, "ReferenceNotFound", "x", func() bool { return true })
	b.Set(1000, 1000)
	e.Warn(s, "ReferenceNotFound", "x", func() bool { return true })
	e.Settle(s)
	if got := sent(e); len(got) != 1 || e.Owes(s.UID) {
		t.Errorf("sent %q, owes %v; want one Warning, nothing owed", got, e.Owes(s.UID))
	}
}

// TestNotLeadingOwesNothing: a sink that does not send (a follower) drops
// Warnings without owing them; a new leader's first passes report causes
// again.
func TestNotLeadingOwesNothing(t *testing.T) {
	e := NewSink("test", nil, nil, record.New())
	s := testServer()
	e.Warn(s, "ReferenceNotFound", "x", func() bool { return true })
	if e.Owes(s.UID) {
		t.Errorf("a follower owes a Warning")
	}
}

// TestBudgetSetAndClose: Close admits nothing, Set gives a full bucket, a
// nil budget has no limit.
func TestBudgetSetAndClose(t *testing.T) {
	b := NewBudget(1, 2)
	if !b.allow() || !b.allow() || b.allow() {
		t.Errorf("a burst of 2 did not admit exactly two")
	}
	b.Close()
	if b.allow() {
		t.Errorf("a closed budget admitted an Event")
	}
	b.Set(0, 0)
	for range 100 {
		if !b.allow() {
			t.Fatalf("qps 0 (no limit) refused an Event")
		}
	}
	var unlimited *Budget
	if !unlimited.allow() {
		t.Errorf("a nil budget refused an Event")
	}
}
