package base

import (
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/record"
)

// TestOutcomeBoard: a record notifies only when it changes what the status
// controller would read, and a server's state is gone after Forget.
func TestOutcomeBoard(t *testing.T) {
	var notified []string
	r := record.New()
	r.AddHandler(func(key string) { notified = append(notified, key) })
	b := NewOutcomeBoard(r)
	ok := Outcome{Generation: 1, Class: OutcomeOK}
	wait := Outcome{Generation: 1, Class: OutcomeWaiting, Reason: ogxv1beta1.ReasonProgressing, Message: "waiting"}
	steps := []struct {
		controller string
		o          Outcome
		changed    bool
	}{
		{"deployment", wait, true},
		{"service", ok, true},
		{"deployment", wait, false},
		{"deployment", ok, true},
		{"service", ok, false},
	}
	for i, s := range steps {
		if got := b.Record("ns/a", "u1", s.controller, s.o); got != s.changed {
			t.Errorf("step %d: Record(%s) changed = %v, want %v", i, s.controller, got, s.changed)
		}
	}
	if diff := cmp.Diff([]string{"ns/a", "ns/a", "ns/a"}, notified); diff != "" {
		t.Errorf("notifications (-want +got):\n%s", diff)
	}
	got := b.Get("u1")
	if diff := cmp.Diff(map[string]Outcome{"deployment": ok, "service": ok}, got); diff != "" {
		t.Errorf("Get (-want +got):\n%s", diff)
	}
	got["deployment"] = wait
	if b.Get("u1")["deployment"] != ok {
		t.Error("Get returned the board's own state")
	}

	cond := metav1.Condition{Type: "StorageAdopted", Status: metav1.ConditionTrue}
	b.SetFacts("ns/a", "u1", "pvc", []metav1.Condition{cond})
	if diff := cmp.Diff([]metav1.Condition{cond}, b.Facts("u1")); diff != "" {
		t.Errorf("Facts (-want +got):\n%s", diff)
	}
	b.SetFacts("ns/a", "u1", "pvc", nil)
	if _, ok := b.facts.Get("u1"); ok || len(b.Facts("u1")) != 0 {
		t.Errorf("facts left after clearing: %v", b.Facts("u1"))
	}
	r.Forget("u1")
	if len(b.Get("u1")) != 0 || r.Len() != 0 {
		t.Errorf("outcomes left after Forget: %v", b.Get("u1"))
	}
}

func TestOutcomeBoardHoldsNoSpareRoom(t *testing.T) {
	b := NewOutcomeBoard(record.New())
	for _, c := range []string{"a", "b", "c", "d", "e"} {
		b.Record("ns/s", "u", c, Outcome{Class: OutcomeOK})
	}
	b.Record("ns/s", "u", "c", Outcome{Class: OutcomeOK, Generation: 2})
	if list, _ := b.outcomes.Get("u"); cap(list) != 5 {
		got := cap(list)
		t.Errorf("capacity %d for 5 outcomes", got)
	}
	if got := b.Get("u")["c"].Generation; got != 2 {
		t.Errorf("outcome of c: generation %d, want 2", got)
	}
}

// TestOneCauseOneEvent: the same user error reported by several
// controllers is one new cause; it is new again only once no controller
// reports it any more.
func TestOneCauseOneEvent(t *testing.T) {
	b := NewOutcomeBoard(record.New())
	invalid := Outcome{Class: OutcomeUserError, Reason: ogxv1beta1.ReasonInvalidSpec, Message: "spec.port: Invalid value"}
	var news []string
	for _, c := range []string{"deployment", "service", "pvc", "configmap"} {
		if _, n := b.RecordCause("ns/s", "u", c, invalid); n {
			news = append(news, c)
		}
	}
	if len(news) != 1 || news[0] != "deployment" {
		t.Errorf("new causes from %v, want only the first controller", news)
	}
	if _, n := b.RecordCause("ns/s", "u", "deployment", invalid); n {
		t.Errorf("a repeated outcome is not a new cause")
	}
	other := Outcome{Class: OutcomeUserError, Reason: ogxv1beta1.ReasonChildConflict, Message: "Service taken"}
	if _, n := b.RecordCause("ns/s", "u", "service", other); !n {
		t.Errorf("another cause is new")
	}
	for _, c := range []string{"deployment", "pvc", "configmap"} {
		b.RecordCause("ns/s", "u", c, Outcome{Class: OutcomeOK})
	}
	if _, n := b.RecordCause("ns/s", "u", "pvc", invalid); !n {
		t.Errorf("a cause that came back after every controller cleared it is new again")
	}
}

// TestOutcomeBoardKeepsEveryField: an outcome of each class, with and
// without a reason or message, reads back as recorded from the board's
// compact entries, for each controller apart.
func TestOutcomeBoardKeepsEveryField(t *testing.T) {
	b := NewOutcomeBoard(record.New())
	want := map[string]Outcome{
		"ok":        {Generation: 3, Class: OutcomeOK},
		"waiting":   {Generation: 4, Class: OutcomeWaiting, Reason: ogxv1beta1.ReasonProgressing, Message: "pods terminating"},
		"user":      {Generation: 5, Class: OutcomeUserError, Reason: ogxv1beta1.ReasonInvalidSpec},
		"transient": {Generation: 6, Class: OutcomeTransient, Message: "connection refused"},
	}
	for c, o := range want {
		b.Record("ns/s", "u", c, o)
	}
	if diff := cmp.Diff(want, b.Get("u")); diff != "" {
		t.Errorf("Get (-want +got):\n%s", diff)
	}
	if !b.ReportsUserError("u", ogxv1beta1.ReasonInvalidSpec, "") || b.ReportsUserError("u", ogxv1beta1.ReasonProgressing, "pods terminating") {
		t.Error("ReportsUserError reads the wrong entries")
	}
	if b.Record("ns/s", "u", "waiting", want["waiting"]) {
		t.Error("the same outcome again is a change")
	}
	if list, _ := b.outcomes.Get("u"); unsafe.Sizeof(list[0]) > 24 {
		t.Errorf("an entry takes %d bytes", unsafe.Sizeof(list[0]))
	}
}
