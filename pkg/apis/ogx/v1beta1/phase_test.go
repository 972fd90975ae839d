package v1beta1

import "testing"

// TestPhaseStarting: only Pending and Initializing are starting phases.
func TestPhaseStarting(t *testing.T) {
	for p, want := range map[Phase]bool{
		"": false, PhasePending: true, PhaseInitializing: true, PhaseReady: false, PhaseFailed: false, PhaseTerminating: false,
	} {
		if got := p.Starting(); got != want {
			t.Errorf("Phase(%q).Starting() = %v, want %v", p, got, want)
		}
	}
}
