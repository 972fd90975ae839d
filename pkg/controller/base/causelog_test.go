package base

import (
	"testing"

	"k8s.io/apimachinery/pkg/types"

	"github.com/ogx-k8s/ogx-controller/pkg/controller/record"
)

// TestCauseLogOncePerCause: a cause is reported once however often it is
// found, again when it changes or comes back after being fixed; topics and
// servers are apart, and a deleted server's causes are forgotten.
func TestCauseLogOncePerCause(t *testing.T) {
	r := record.New()
	l := NewCauseLog(r)
	steps := []struct {
		uid, topic, cause string
		want              bool
	}{
		{"a", "ca", "bad PEM", true},
		{"a", "ca", "bad PEM", false},
		{"a", "ca", "bad PEM", false},
		{"a", "other", "bad PEM", true},
		{"b", "ca", "bad PEM", true},
		{"a", "ca", "key missing", true},
		{"a", "ca", "", false},
		{"a", "ca", "", false},
		{"a", "ca", "key missing", true},
	}
	for i, s := range steps {
		if got := l.Changed(types.UID(s.uid), s.topic, s.cause); got != s.want {
			t.Errorf("step %d (%s %s %q): Changed = %v, want %v", i, s.uid, s.topic, s.cause, got, s.want)
		}
	}
	l.Changed("a", "ca", "")
	l.Changed("a", "other", "")
	if r.Has("a") {
		t.Error("a server without causes keeps a record")
	}
	r.Forget("b")
	if !l.Changed("b", "ca", "bad PEM") {
		t.Error("a forgotten server's cause is not logged again")
	}
}
