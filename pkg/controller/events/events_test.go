package events

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/record"
)

// TestHeldWarningOncePerTransition: a warning whose condition holds is sent
// when it starts and when its note changes, not again while it holds; once
// it stops holding it is sent again if it comes back.
func TestHeldWarningOncePerTransition(t *testing.T) {
	e := NewSink("test", nil, nil, record.New())
	steps := []struct {
		note  string
		holds bool
		want  bool
	}{
		{"no certificates", true, true},
		{"no certificates", true, false},
		{"no certificates", true, false},
		{"other note", true, true},
		{"", false, false},
		{"no certificates", true, true},
	}
	for i, s := range steps {
		if got := e.hold("u", "EmptyCABundle", s.note, s.holds); got != s.want {
			t.Errorf("step %d (%q, holds %v): send = %v, want %v", i, s.note, s.holds, got, s.want)
		}
	}
	if !e.hold("u", "AdoptionSourceNotFound", "PVC x not found", true) {
		t.Errorf("another reason of the same server is its own warning")
	}
}

// TestHeldWarningNotSentIsRetried: a warning the sink could not send
// because it is not leading yet is not marked held, so a later pass sends
// it. (One the budget dropped is held and owed instead: owed_test.go.)
func TestHeldWarningNotSentIsRetried(t *testing.T) {
	e := NewSink("test", nil, nil, record.New())
	s := &ogxv1beta1.OGXServer{ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "ns", UID: "u"}}
	e.WarnWhile(s, "EmptyCABundle", "no certificates", true)
	if held, ok := e.holding.Get(s.UID); len(e.queue) != 0 || ok {
		t.Fatalf("inactive sink: %d queued, held %v", len(e.queue), held)
	}
	e.active.Store(true)
	e.WarnWhile(s, "EmptyCABundle", "no certificates", true)
	e.WarnWhile(s, "EmptyCABundle", "no certificates", true)
	if len(e.queue) != 1 {
		t.Errorf("%d Events queued, want 1", len(e.queue))
	}
}
