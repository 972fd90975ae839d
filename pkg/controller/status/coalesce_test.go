package status

import (
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/record"
)

// TestStatusCoalesce: while a server is starting, a change within the same
// phase waits until the last write is CoalesceWindow old; a change of
// phase or generation, or a first write, is written at once.
func TestStatusCoalesce(t *testing.T) {
	now := metav1.Now().Time
	c := &Controller{d: &base.Deps{Opts: base.Options{Clock: clocktesting.NewFakePassiveClock(now)}}, writes: record.NewSlot[statusWrite](record.New())}
	server := func(phase ogxv1beta1.Phase) *ogxv1beta1.OGXServer {
		return &ogxv1beta1.OGXServer{ObjectMeta: metav1.ObjectMeta{UID: "u", Generation: 1},
			Status: ogxv1beta1.OGXServerStatus{Phase: phase, ObservedGeneration: 1}}
	}
	status := func(phase ogxv1beta1.Phase, gen int64) ogxv1beta1.OGXServerStatus {
		return ogxv1beta1.OGXServerStatus{Phase: phase, ObservedGeneration: gen}
	}
	if w := c.coalesce(server(ogxv1beta1.PhaseInitializing), status(ogxv1beta1.PhaseInitializing, 1), nil); w != 0 {
		t.Errorf("never written: wait %s, want 0", w)
	}
	c.writes.Set("u", statusWrite{at: now.Add(-500 * time.Millisecond)})
	for _, tc := range []struct {
		name      string
		stored    ogxv1beta1.Phase
		computed  ogxv1beta1.OGXServerStatus
		wantDelay bool
	}{
		{"same starting phase", ogxv1beta1.PhaseInitializing, status(ogxv1beta1.PhaseInitializing, 1), true},
		{"pending stays pending", ogxv1beta1.PhasePending, status(ogxv1beta1.PhasePending, 1), true},
		{"phase change", ogxv1beta1.PhaseInitializing, status(ogxv1beta1.PhaseReady, 1), false},
		{"new generation", ogxv1beta1.PhaseInitializing, status(ogxv1beta1.PhaseInitializing, 2), false},
		{"ready is never delayed", ogxv1beta1.PhaseReady, status(ogxv1beta1.PhaseReady, 1), false},
	} {
		w := c.coalesce(server(tc.stored), tc.computed, nil)
		if tc.wantDelay && w != CoalesceWindow-500*time.Millisecond {
			t.Errorf("%s: wait %s, want %s", tc.name, w, CoalesceWindow-500*time.Millisecond)
		}
		if !tc.wantDelay && w != 0 {
			t.Errorf("%s: wait %s, want 0", tc.name, w)
		}
	}
	c.writes.Set("u", statusWrite{at: now.Add(-CoalesceWindow)})
	if w := c.coalesce(server(ogxv1beta1.PhaseInitializing), status(ogxv1beta1.PhaseInitializing, 1), nil); w != 0 {
		t.Errorf("window passed: wait %s, want 0", w)
	}
}

// TestFirstStatusWait: a server never written that would say Initializing
// waits until its Deployment is CoalesceWindow old, so pods that are
// quickly available make Ready its first status; nothing else waits, and a
// Deployment stamped in the future (clocks differ) waits one window at most.
func TestFirstStatusWait(t *testing.T) {
	now := metav1.Now().Time
	c := &Controller{d: &base.Deps{Opts: base.Options{Clock: clocktesting.NewFakePassiveClock(now)}}, writes: record.NewSlot[statusWrite](record.New())}
	deployment := func(age time.Duration) *appsv1.Deployment {
		return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.NewTime(now.Add(-age))}}
	}
	server := func(phase ogxv1beta1.Phase) *ogxv1beta1.OGXServer {
		return &ogxv1beta1.OGXServer{ObjectMeta: metav1.ObjectMeta{UID: "u", Generation: 1},
			Status: ogxv1beta1.OGXServerStatus{Phase: phase}}
	}
	computed := func(phase ogxv1beta1.Phase) ogxv1beta1.OGXServerStatus {
		return ogxv1beta1.OGXServerStatus{Phase: phase, ObservedGeneration: 1}
	}
	for _, tc := range []struct {
		name     string
		stored   ogxv1beta1.Phase
		computed ogxv1beta1.Phase
		d        *appsv1.Deployment
		want     time.Duration
	}{
		{"young Deployment", "", ogxv1beta1.PhaseInitializing, deployment(time.Second), CoalesceWindow - time.Second},
		{"Deployment old enough", "", ogxv1beta1.PhaseInitializing, deployment(CoalesceWindow), 0},
		{"clocks differ", "", ogxv1beta1.PhaseInitializing, deployment(-time.Minute), CoalesceWindow},
		{"first status Ready", "", ogxv1beta1.PhaseReady, deployment(time.Second), 0},
		{"first status Pending", "", ogxv1beta1.PhasePending, nil, 0},
		{"first status Failed", "", ogxv1beta1.PhaseFailed, deployment(time.Second), 0},
		{"written before", ogxv1beta1.PhasePending, ogxv1beta1.PhaseInitializing, deployment(time.Second), 0},
	} {
		if got := c.coalesce(server(tc.stored), computed(tc.computed), tc.d); got != tc.want {
			t.Errorf("%s: wait %s, want %s", tc.name, got, tc.want)
		}
	}
}
