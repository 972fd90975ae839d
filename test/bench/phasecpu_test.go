package main

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

// TestCPUWindow measures this test process while it burns CPU: the window
// holds what was burned inside it and nothing from before, by the
// kernel's other account of the process's CPU time (getrusage), whatever
// else loads the machine.
func TestCPUWindow(t *testing.T) {
	burnCPU(t, 150*time.Millisecond) // before the window: must not count
	w := newCPUWindow(map[string]int{"self": os.Getpid()})
	least, most := burnBetween(t, w.start, w.stop, 200*time.Millisecond)
	if !w.ok() {
		t.Fatalf("window not complete: %v", w.err)
	}
	used, ok := w.process("self")
	if !ok || used < least || used > most {
		t.Errorf("self used %v (ok %v), getrusage says %v .. %v", used, ok, least, most)
	}
	if _, ok := w.process("other"); ok {
		t.Error("a process the window does not measure has a figure")
	}
	if got := w.summary(nil); !strings.Contains(got, "): self ") {
		t.Errorf("summary %q does not list self", got)
	}
}

// TestCPUWindowIncomplete covers the windows that must not report totals:
// a process that cannot be read (the others still can), a window stopped
// without a start, and none at all.
func TestCPUWindowIncomplete(t *testing.T) {
	broken := newCPUWindow(map[string]int{"self": os.Getpid(), "gone": -1})
	broken.start()
	broken.stop()
	if broken.ok() || broken.err == nil || !strings.Contains(broken.err.Error(), "gone") {
		t.Errorf("a window with an unreadable process: ok %v, err %v", broken.ok(), broken.err)
	}
	if _, ok := broken.process("self"); !ok {
		t.Error("a process read at both ends has no figure because another could not be read")
	}
	if _, ok := broken.process("gone"); ok {
		t.Error("an unreadable process has a figure")
	}
	if got := broken.summary(nil); got != "–" {
		t.Errorf("summary of an incomplete window = %q, want –", got)
	}

	unstarted := newCPUWindow(map[string]int{"self": os.Getpid()})
	unstarted.stop()
	if _, ok := unstarted.process("self"); ok || unstarted.ok() || unstarted.summary(nil) != "–" {
		t.Error("a window stopped without a start reports figures")
	}

	var none *cpuWindow
	none.start()
	none.stop()
	if _, ok := none.process("self"); ok || none.ok() || none.summary(nil) != "–" {
		t.Error("a nil window reports figures")
	}
}

func TestCPUWindowSummary(t *testing.T) {
	s := time.Second
	complete := func(wall time.Duration, used map[string]time.Duration) *cpuWindow {
		return &cpuWindow{used: used, wall: wall}
	}
	base := complete(10*s, map[string]time.Duration{"kube-apiserver": 10 * s, "etcd": 5 * s})
	for _, tc := range []struct {
		name string
		w    *cpuWindow
		base *cpuWindow
		want string
	}{
		{
			name: "largest first, ties by name, ratio to the base's total",
			w:    complete(20*s, map[string]time.Duration{"kwok": 5 * s, "kube-apiserver": 20 * s, "etcd": 5 * s}),
			base: base,
			want: "30.0 (1.50 cores; 2.00× raw): kube-apiserver 20.0, etcd 5.0, kwok 5.0",
		},
		{
			name: "no base",
			w:    base,
			want: "15.0 (1.50 cores): kube-apiserver 10.0, etcd 5.0",
		},
		{
			name: "an incomplete base gives no ratio",
			w:    base,
			base: &cpuWindow{},
			want: "15.0 (1.50 cores): kube-apiserver 10.0, etcd 5.0",
		},
		{
			name: "a base that used no CPU gives no ratio",
			w:    base,
			base: complete(s, map[string]time.Duration{"etcd": 0}),
			want: "15.0 (1.50 cores): kube-apiserver 10.0, etcd 5.0",
		},
	} {
		if got := tc.w.summary(tc.base); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestCPUWindowWithout(t *testing.T) {
	s := time.Second
	raw := &cpuWindow{used: map[string]time.Duration{"kube-apiserver": 40 * s, "etcd": 10 * s}, wall: 25 * s}
	ogx := &cpuWindow{used: map[string]time.Duration{"kube-apiserver": 60 * s, "etcd": 14 * s, operatorProcess: 9 * s}, wall: 40 * s}
	followed := &cpuWindow{used: map[string]time.Duration{"kube-apiserver": 60 * s, "etcd": 14 * s, operatorProcess: 9 * s, followerProcess: 4 * s}, wall: 40 * s}
	for _, tc := range []struct {
		name    string
		w, base *cpuWindow
		process string
		also    []string
		want    string
	}{
		{name: "less the operator and its follower", w: followed, base: raw, process: operatorProcess, also: []string{followerProcess}, want: "74.0 (1.48× raw)"},
		{name: "one of two processes not read", w: ogx, base: raw, process: operatorProcess, also: []string{followerProcess}, want: "–"},
		{name: "the rest and its ratio to the base", w: ogx, base: raw, process: operatorProcess, want: "74.0 (1.48× raw)"},
		{name: "no base", w: ogx, process: operatorProcess, want: "74.0"},
		{name: "an incomplete base gives no ratio", w: ogx, base: &cpuWindow{}, process: operatorProcess, want: "74.0"},
		{name: "a process that was not read", w: raw, base: raw, process: operatorProcess, want: "–"},
		{name: "an incomplete window", w: &cpuWindow{err: errors.New("gone")}, base: raw, process: operatorProcess, want: "–"},
		{name: "a window with a failed reading", w: &cpuWindow{used: ogx.used, wall: ogx.wall, err: errors.New("gone")}, base: raw, process: operatorProcess, want: "–"},
		{name: "a base with a failed reading gives no ratio", w: ogx, base: &cpuWindow{used: raw.used, wall: raw.wall, err: errors.New("gone")}, process: operatorProcess, want: "74.0"},
	} {
		if got := tc.w.without(tc.base, append([]string{tc.process}, tc.also...)...); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}
