package main

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/tools/cache"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

// tracker records, from informer events, when each object was first seen,
// when each Deployment first had an available replica and when each
// OGXServer was first Ready. Times come from the local clock when the event
// arrives, so they include watch latency, the same for every phase.
type tracker struct {
	mu        sync.Mutex
	seen      map[string]map[string]time.Time // kind -> key -> first seen
	available map[string]time.Time            // Deployment name -> first available
	ready     map[string]time.Time            // OGXServer name -> first Ready
}

func newTracker() *tracker {
	return &tracker{
		seen:      map[string]map[string]time.Time{},
		available: map[string]time.Time{},
		ready:     map[string]time.Time{},
	}
}

// handler returns informer callbacks that record objects of kind under the
// key that key computes ("" skips the object).
func (t *tracker) handler(kind string, key func(obj any) string) cache.ResourceEventHandlerFuncs {
	observe := func(obj any) {
		now := time.Now()
		k := key(obj)
		t.mu.Lock()
		defer t.mu.Unlock()
		if k != "" {
			m := t.seen[kind]
			if m == nil {
				m = map[string]time.Time{}
				t.seen[kind] = m
			}
			if _, ok := m[k]; !ok {
				m[k] = now
			}
		}
		switch o := obj.(type) {
		case *appsv1.Deployment:
			if o.Status.AvailableReplicas >= 1 {
				if _, ok := t.available[o.Name]; !ok {
					t.available[o.Name] = now
				}
			}
		case *ogxv1beta1.OGXServer:
			if meta.IsStatusConditionTrue(o.Status.Conditions, "Ready") {
				if _, ok := t.ready[o.Name]; !ok {
					t.ready[o.Name] = now
				}
			}
		}
	}
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    observe,
		UpdateFunc: func(_, obj any) { observe(obj) },
	}
}

// count returns how many objects of kind have been seen.
func (t *tracker) count(kind string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.seen[kind])
}

func (t *tracker) availableCount() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.available)
}

func (t *tracker) readyCount() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.ready)
}

// latest returns the latest of the first-seen times of kind, that is when
// the last of its objects appeared.
func latest(m map[string]time.Time) time.Time {
	var last time.Time
	for _, at := range m {
		if at.After(last) {
			last = at
		}
	}
	return last
}

func (t *tracker) lastSeen(kind string) time.Time {
	t.mu.Lock()
	defer t.mu.Unlock()
	return latest(t.seen[kind])
}

func (t *tracker) lastAvailable() time.Time {
	t.mu.Lock()
	defer t.mu.Unlock()
	return latest(t.available)
}

func (t *tracker) lastReady() time.Time {
	t.mu.Lock()
	defer t.mu.Unlock()
	return latest(t.ready)
}

// readyLag returns, for every server whose Deployment became available and
// which became Ready, the seconds from the first to the second.
func (t *tracker) readyLag() []float64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	var lags []float64
	for name, ready := range t.ready {
		if avail, ok := t.available[name]; ok {
			lags = append(lags, ready.Sub(avail).Seconds())
		}
	}
	sort.Float64s(lags)
	return lags
}

// quantile returns the q-quantile (nearest rank) of sorted values.
func quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q*float64(len(sorted))+0.999999) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// waitUntil polls done (a cheap check of local state) every 100ms until it
// returns true, ctx ends or deadline passes; progress describes the state
// for the error message. alive, when non-nil, fails the wait early when it
// returns an error (the controller died).
func waitUntil(ctx context.Context, deadline time.Time, what string, done func() bool, progress func() string, alive func() error) error {
	ticker := time.NewTicker(100 * time.Millisecond)
	defer ticker.Stop()
	lastLog := time.Now()
	for {
		if done() {
			return nil
		}
		if alive != nil {
			if err := alive(); err != nil {
				return fmt.Errorf("waiting for %s: %w", what, err)
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("timed out waiting for %s (-timeout); at the deadline: %s", what, progress())
		}
		if time.Since(lastLog) > 30*time.Second {
			logf("  still waiting for %s: %s", what, progress())
			lastLog = time.Now()
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("interrupted while waiting for %s: %s", what, progress())
		case <-ticker.C:
		}
	}
}

// kindsByName lists map keys sorted, for stable output.
func kindsByName[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
