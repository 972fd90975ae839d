package main

import (
	"os"
	"strings"
	"testing"
	"time"
)

// TestCPUWindow measures this test process while it burns CPU: the window
// sees the CPU time, and a process that cannot be read leaves the figures
// out instead of reporting a partial total.
func TestCPUWindow(t *testing.T) {
	burn := func(d time.Duration) {
		for start := time.Now(); time.Since(start) < d; {
			// Burn CPU on this goroutine.
		}
	}
	// CPU used before the window opens must not count.
	burn(150 * time.Millisecond)
	w := newCPUWindow(map[string]int{"self": os.Getpid()})
	w.start()
	burn(200 * time.Millisecond)
	w.stop()
	if !w.ok() {
		t.Fatalf("window not complete: %v", w.err)
	}
	used, ok := w.process("self")
	// One goroutine burned for 200 ms of the window and little else ran;
	// the readings tick in 10 ms. A figure that was not the difference of
	// two readings would also hold the 150 ms before.
	if !ok || used < 150*time.Millisecond || used > w.wall+50*time.Millisecond {
		t.Errorf("self used %v (ok %v) in a window of %v", used, ok, w.wall)
	}
	if _, ok := w.process("other"); ok {
		t.Error("a process the window does not measure has a figure")
	}
	if got := w.summary(nil); !strings.Contains(got, "): self ") {
		t.Errorf("summary %q does not list self", got)
	}

	broken := newCPUWindow(map[string]int{"self": os.Getpid(), "gone": -1})
	broken.start()
	broken.stop()
	if broken.ok() || broken.err == nil || !strings.Contains(broken.err.Error(), "gone") {
		t.Errorf("a window with an unreadable process: ok %v, err %v", broken.ok(), broken.err)
	}
	if _, ok := broken.process("self"); ok {
		t.Error("an incomplete window reports a process")
	}
	if got := broken.summary(nil); got != "–" {
		t.Errorf("summary of an incomplete window = %q, want –", got)
	}

	var none *cpuWindow
	none.start()
	none.stop()
	if none.ok() || none.summary(w) != "–" {
		t.Error("a nil window reports figures")
	}
}

func TestCPUWindowSummary(t *testing.T) {
	s := time.Second
	complete := func(wall time.Duration, used map[string]time.Duration) *cpuWindow {
		return &cpuWindow{before: map[string]time.Duration{}, used: used, wall: wall}
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
	} {
		if got := tc.w.summary(tc.base); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}
