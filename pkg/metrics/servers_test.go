package metrics

import (
	"testing"
)

func TestServerPhasesFollowTheCallback(t *testing.T) {
	m := New("test")
	if mf := gather(t, m)["ogx_controller_servers"]; mf != nil {
		t.Fatalf("ogx_controller_servers before a callback was set: %v", mf)
	}
	fleet := map[string]int{"Ready": 3, "Failed": 0, PhaseUnknown: 1}
	m.CountServersWith(func() map[string]int { return fleet })
	for phase, want := range fleet {
		if got := value(t, m, "ogx_controller_servers", map[string]string{"phase": phase}); got != float64(want) {
			t.Errorf("ogx_controller_servers{phase=%q} = %v, want %d", phase, got, want)
		}
	}
	// Counted at every scrape, not cached.
	fleet = map[string]int{"Ready": 2, "Failed": 1}
	if got := value(t, m, "ogx_controller_servers", map[string]string{"phase": "Failed"}); got != 1 {
		t.Errorf("after a change ogx_controller_servers{phase=Failed} = %v, want 1", got)
	}
	if n := len(gather(t, m)["ogx_controller_servers"].GetMetric()); n != 2 {
		t.Errorf("%d series after the callback returned 2 phases", n)
	}
	// A later callback replaces the first.
	m.CountServersWith(func() map[string]int { return map[string]int{"Pending": 7} })
	if got := value(t, m, "ogx_controller_servers", map[string]string{"phase": "Pending"}); got != 7 {
		t.Errorf("after replacing the callback ogx_controller_servers{phase=Pending} = %v, want 7", got)
	}
}

func TestServerChangesStartAtZero(t *testing.T) {
	m := New("test")
	if got := value(t, m, "ogx_controller_server_changes_total", nil); got != 0 {
		t.Fatalf("ogx_controller_server_changes_total = %v at start, want 0", got)
	}
	m.CountServerChange()
	m.CountServerChange()
	if got := value(t, m, "ogx_controller_server_changes_total", nil); got != 2 {
		t.Errorf("ogx_controller_server_changes_total = %v after two changes, want 2", got)
	}
}
