package main

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/ogx-k8s/ogx-controller/test/framework"
)

// Both phases of a run keep this machine's cores busy, so the ratio of
// their times is roughly the ratio of the CPU work they need, and that
// work varies from run to run (docs/performance.md, The two phases side by
// side). A cpuWindow records the CPU time of every process of the run
// during one phase, so that each report shows what a phase cost and where,
// next to how long it took.

// operatorProcess, followerProcess and benchProcess name the operator (the
// leader), its follower (-follower) and the bench program among the control
// plane's components in a cpuWindow.
const (
	operatorProcess = "ogx-controller"
	followerProcess = "ogx-controller-follower"
	benchProcess    = "bench"
)

// cpuWindow is the CPU time a set of processes used between start and
// stop. A nil window ignores both, for callers that measure nothing. Its
// methods are called from one goroutine.
type cpuWindow struct {
	pids   map[string]int
	before map[string]time.Duration
	began  time.Time
	// After stop: used per process read at both ends, and the window's
	// wall time. err says why a reading failed; the totals are then left
	// out, the processes that were read are not.
	used map[string]time.Duration
	wall time.Duration
	err  error

	// scrape, when set, reads the API server's request metrics: before the
	// first CPU reading and after the second, so that the scrapes' own cost
	// stays out of the window. requests is what they differ by; reqErr says
	// why it is nil.
	scrape   func() (requestStats, error)
	reqFirst requestStats
	requests requestStats
	reqErr   error
}

// newCPUWindow measures the processes of pids (name to process ID).
func newCPUWindow(pids map[string]int) *cpuWindow {
	return &cpuWindow{pids: pids}
}

// readAll reads the CPU time of every process of the window.
func (w *cpuWindow) readAll() (map[string]time.Duration, error) {
	out := make(map[string]time.Duration, len(w.pids))
	var errs []error
	for name, pid := range w.pids {
		d, err := readCPU(pid)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
			continue
		}
		out[name] = d
	}
	return out, errors.Join(errs...)
}

// start takes the first reading.
func (w *cpuWindow) start() {
	if w == nil {
		return
	}
	if w.scrape != nil {
		w.reqFirst, w.reqErr = w.scrape()
	}
	w.began = time.Now()
	w.before, w.err = w.readAll()
}

// stop takes the second reading; without a first one it does nothing.
func (w *cpuWindow) stop() {
	if w == nil || w.before == nil {
		return
	}
	after, err := w.readAll()
	w.wall = time.Since(w.began)
	w.err = errors.Join(w.err, err)
	w.used = make(map[string]time.Duration, len(after))
	for name, d := range after {
		if b, ok := w.before[name]; ok {
			w.used[name] = d - b
		}
	}
	if w.scrape != nil && w.reqFirst != nil {
		var last requestStats
		if last, w.reqErr = w.scrape(); w.reqErr == nil {
			w.requests = last.since(w.reqFirst)
		}
	}
}

// requestCosts is the API server's requests of a stopped window by kind,
// with their share of its CPU when that was read; nil without metrics.
func (w *cpuWindow) requestCosts() []kindCost {
	if w == nil || w.requests == nil {
		return nil
	}
	api, _ := w.process(framework.APIServer)
	return attribute(w.requests, api)
}

// ok reports whether every process was read at both ends.
func (w *cpuWindow) ok() bool {
	return w != nil && w.err == nil && w.used != nil && w.wall > 0
}

// total is the CPU time of all processes of a complete window.
func (w *cpuWindow) total() time.Duration {
	var sum time.Duration
	for _, d := range w.used {
		sum += d
	}
	return sum
}

// process is one process's CPU time; ok is false when that process was
// not read at both ends (or the window was never stopped), whatever
// happened to the others.
func (w *cpuWindow) process(name string) (time.Duration, bool) {
	if w == nil || w.wall <= 0 {
		return 0, false
	}
	d, ok := w.used[name]
	return d, ok
}

// summary renders a complete window as "total (cores): process core-s, …",
// the processes by CPU time, largest first; "–" without a complete reading.
// base, when complete too, adds the total's ratio to base's.
func (w *cpuWindow) summary(base *cpuWindow) string {
	if !w.ok() {
		return "–"
	}
	total := w.total()
	head := fmt.Sprintf("%.1f (%.2f cores", total.Seconds(), total.Seconds()/w.wall.Seconds())
	if ratio, ok := rawRatio(total, base); ok {
		head += "; " + ratio
	}
	names := slices.SortedFunc(maps.Keys(w.used), func(a, b string) int {
		return cmp.Or(cmp.Compare(w.used[b], w.used[a]), strings.Compare(a, b))
	})
	parts := make([]string, len(names))
	for i, name := range names {
		parts[i] = fmt.Sprintf("%s %.1f", name, w.used[name].Seconds())
	}
	return head + "): " + strings.Join(parts, ", ")
}

// without renders a complete window's total less the CPU time of the named
// processes, with its ratio to base's total when base is complete: "74.1
// (1.44× raw)". Both phases keep the machine's cores busy, so this is about
// the ratio the phase would have reached had those processes (the operator
// and its follower) used no CPU but sent the same requests: the part of the
// ratio they cannot change by using less CPU themselves. "–" when the
// window or one of the processes was not read.
func (w *cpuWindow) without(base *cpuWindow, names ...string) string {
	if !w.ok() {
		return "–"
	}
	rest := w.total()
	for _, name := range names {
		d, ok := w.process(name)
		if !ok {
			return "–"
		}
		rest -= d
	}
	out := fmt.Sprintf("%.1f", rest.Seconds())
	if ratio, ok := rawRatio(rest, base); ok {
		out += " (" + ratio + ")"
	}
	return out
}

// rawRatio renders v as a ratio to base's total, "1.44× raw"; ok is false
// when base is incomplete or used no CPU, and the ratio is then left out.
func rawRatio(v time.Duration, base *cpuWindow) (string, bool) {
	if !base.ok() || base.total() <= 0 {
		return "", false
	}
	return fmt.Sprintf("%.2f× raw", v.Seconds()/base.total().Seconds()), true
}
