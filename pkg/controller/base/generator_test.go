package base

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/ogx-k8s/ogx-controller/pkg/configgen/oci"
)

func newTestGenerator(t *testing.T, perNamespace, total int) *Generator {
	t.Helper()
	r, err := oci.NewResolver(oci.Options{Timeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return NewGenerator(r, perNamespace, total)
}

// wakes counts the wakes of each pass key.
type wakes struct {
	mu sync.Mutex
	n  map[string]int
}

// ask asks g for image on behalf of pass key and, when the pass is
// deferred, joins as Controller.Sync does: the wake counts for key.
func (w *wakes) ask(g *Generator, key, ns, image string) (*oci.Result, error) {
	res, err := g.ociBase(context.Background(), ns, image)
	var d *DeferredError
	if errors.As(err, &d) && d.Join != nil {
		controller, server, _ := strings.Cut(key, "/")
		d.Join(controller, server, func() {
			w.mu.Lock()
			defer w.mu.Unlock()
			if w.n == nil {
				w.n = map[string]int{}
			}
			w.n[key]++
		})
	}
	return res, err
}

func (w *wakes) count(key string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.n[key]
}

// waitFor polls cond for up to 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 5*time.Millisecond, 10*time.Second, true,
		func(context.Context) (bool, error) { return cond(), nil })
	if err != nil {
		t.Fatalf("timed out waiting for %s", what)
	}
}

// askDeferred asks g for image on behalf of pass key and fails unless the
// pass is deferred.
func askDeferred(t *testing.T, g *Generator, w *wakes, key, ns, image string) {
	t.Helper()
	if _, err := w.ask(g, key, ns, image); !isDeferred(err) {
		t.Fatalf("%s: err = %v, want a DeferredError", key, err)
	}
}

func isDeferred(err error) bool {
	var d *DeferredError
	return errors.As(err, &d)
}

// TestOCIBaseDefersAndWakes: a pass never waits for the registry. The
// first ask starts a resolution and is deferred; the pass is woken when it
// finishes, and its next ask gets the result, which is then shared without
// another request for baseResolveTTL.
func TestOCIBaseDefersAndWakes(t *testing.T) {
	f := newLabelRegistry(t)
	g := newTestGenerator(t, 0, 0)
	var w wakes

	if _, err := w.ask(g, "configmap/ns/a", "ns", f.image()); !isDeferred(err) {
		t.Fatalf("first ask: err = %v, want a DeferredError", err)
	}
	waitFor(t, "the wake", func() bool { return w.count("configmap/ns/a") == 1 })
	res, err := w.ask(g, "configmap/ns/a", "ns", f.image())
	if err != nil {
		t.Fatalf("ask after the wake: %v", err)
	}
	if string(res.Config) != genBase || res.Digest != f.manifestDigest {
		t.Fatalf("result = %q @ %s, want %q @ %s", res.Config, res.Digest, genBase, f.manifestDigest)
	}
	before := f.count()
	if _, err := w.ask(g, "deployment/ns/b", "ns", f.image()); err != nil {
		t.Fatalf("another server within the TTL: %v", err)
	}
	if n := f.count() - before; n != 0 {
		t.Errorf("a shared result cost %d requests, want 0", n)
	}
	if n := w.count("deployment/ns/b"); n != 0 {
		t.Errorf("a pass served from the shared result was woken %d times", n)
	}
}

// TestOCIBaseFailureIsShared: a failed resolution is reported to every pass
// that joined it, and kept for baseResolveTTL like a success, so a failing
// registry gets one resolution per image per TTL, not one per server.
func TestOCIBaseFailureIsShared(t *testing.T) {
	f := newLabelRegistry(t)
	g := newTestGenerator(t, 0, 0)
	var w wakes
	f.set(true, nil)

	if _, err := w.ask(g, "configmap/ns/a", "ns", f.image()); !isDeferred(err) {
		t.Fatalf("first ask: err = %v, want a DeferredError", err)
	}
	waitFor(t, "the wake", func() bool { return w.count("configmap/ns/a") == 1 })
	failed := f.count()
	for _, key := range []string{"configmap/ns/a", "deployment/ns/b"} {
		var ue *oci.UnavailableError
		if _, err := w.ask(g, key, "ns", f.image()); !errors.As(err, &ue) || !strings.Contains(err.Error(), "503") {
			t.Errorf("%s after the failure: err = %v, want the shared *oci.UnavailableError with the 503", key, err)
		}
	}
	if n := f.count() - failed; n != 0 {
		t.Errorf("asks within the TTL of a failure sent %d requests, want 0", n)
	}
}

// TestOCIBaseConcurrentCallersShareOneResolution: passes asking for an
// image while its resolution runs join it: one request sequence for all,
// each pass woken once however often it asked.
func TestOCIBaseConcurrentCallersShareOneResolution(t *testing.T) {
	f := newLabelRegistry(t)
	g := newTestGenerator(t, 0, 0)
	var w wakes
	hold := make(chan struct{})
	f.set(false, hold)

	keys := []string{"configmap/ns/a", "deployment/ns/a", "configmap/ns/b", "configmap/ns/a"}
	for _, key := range keys {
		if _, err := w.ask(g, key, "ns", f.image()); !isDeferred(err) {
			t.Fatalf("%s while the resolution runs: err = %v, want a DeferredError", key, err)
		}
	}
	waitFor(t, "the resolution to reach the registry", func() bool { return f.count() > 0 })
	close(hold)
	waitFor(t, "the wakes", func() bool {
		return w.count("configmap/ns/a") > 0 && w.count("deployment/ns/a") > 0 && w.count("configmap/ns/b") > 0
	})
	if n := w.count("configmap/ns/a"); n != 1 {
		t.Errorf("a pass that asked twice was woken %d times, want 1", n)
	}
	requests := f.count()
	if _, err := w.ask(g, "configmap/ns/a", "ns", f.image()); err != nil {
		t.Fatalf("ask after the wake: %v", err)
	}
	// What one pass alone costs, on a registry of its own.
	single := newLabelRegistry(t)
	alone := newTestGenerator(t, 0, 0)
	_, _ = w.ask(alone, "alone", "ns", single.image())
	waitFor(t, "the single resolution", func() bool { return w.count("alone") == 1 })
	if requests != single.count() {
		t.Errorf("%d passes sent %d registry requests, want the %d of one resolution", len(keys), requests, single.count())
	}
}

// TestOCIBaseCapsResolutionsPerNamespace: with a cap of one, a second image
// of the same namespace waits while the first resolution hangs, and an
// image of another namespace does not; the waiting one runs when the first
// ends.
func TestOCIBaseCapsResolutionsPerNamespace(t *testing.T) {
	f := newLabelRegistry(t)
	g := newTestGenerator(t, 1, 0)
	var w wakes
	hold := make(chan struct{})
	f.set(false, hold)
	other := strings.Replace(f.image(), ":1.0", ":2.0", 1)
	third := strings.Replace(f.image(), ":1.0", ":3.0", 1)

	ask := func(key, ns, image string) { askDeferred(t, g, &w, key, ns, image) }
	ask("configmap/a/one", "a", f.image())
	waitFor(t, "the first resolution to reach the registry", func() bool { return f.count() == 1 })
	ask("configmap/a/two", "a", other)
	ask("configmap/b/three", "b", third)
	waitFor(t, "namespace b's resolution to reach the registry", func() bool { return f.count() == 2 })
	g.mu.Lock()
	waitingA := len(g.waiting["a"])
	g.mu.Unlock()
	if waitingA != 1 {
		t.Fatalf("namespace a has %d resolutions waiting, want 1 (its second image)", waitingA)
	}
	close(hold)
	waitFor(t, "every pass to be woken", func() bool {
		return w.count("configmap/a/one") == 1 && w.count("configmap/a/two") == 1 && w.count("configmap/b/three") == 1
	})
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.running)+len(g.waiting)+len(g.calls)+len(g.turns)+g.active != 0 {
		t.Errorf("state left after every resolution ended: running %v, waiting %v, calls %d, turns %v, active %d",
			g.running, g.waiting, len(g.calls), g.turns, g.active)
	}
}

// TestOCIBaseNamespacesDoNotShareQueues: an image that one namespace has
// queued behind its own stalled resolution starts at once for another
// namespace that asks for it: no namespace waits in another's queue.
func TestOCIBaseNamespacesDoNotShareQueues(t *testing.T) {
	f := newLabelRegistry(t)
	g := newTestGenerator(t, 1, 0)
	var w wakes
	hold := make(chan struct{})
	f.set(false, hold)
	shared := strings.Replace(f.image(), ":1.0", ":2.0", 1)
	ask := func(key, ns, image string) { askDeferred(t, g, &w, key, ns, image) }
	ask("configmap/a/stalled", "a", f.image())
	waitFor(t, "namespace a's resolution to reach the registry", func() bool { return f.count() == 1 })
	ask("configmap/a/shared", "a", shared)
	ask("configmap/b/shared", "b", shared)
	waitFor(t, "namespace b's resolution of the shared image to reach the registry", func() bool { return f.count() == 2 })
	close(hold)
	waitFor(t, "every pass to be woken", func() bool {
		return w.count("configmap/a/stalled") == 1 && w.count("configmap/a/shared") == 1 && w.count("configmap/b/shared") == 1
	})
}

// TestOCIBaseCapsResolutionsInAll: with two resolutions allowed in all,
// a third namespace's image waits while two hang, and a namespace's second
// image waits behind it: namespaces take turns. All run once the first end.
func TestOCIBaseCapsResolutionsInAll(t *testing.T) {
	f := newLabelRegistry(t)
	g := newTestGenerator(t, 2, 2)
	var w wakes
	hold := make(chan struct{})
	f.set(false, hold)
	tag := func(v string) string { return strings.Replace(f.image(), ":1.0", ":"+v, 1) }
	ask := func(key, ns, image string) { askDeferred(t, g, &w, key, ns, image) }
	ask("configmap/a/one", "a", tag("1.0"))
	ask("configmap/b/two", "b", tag("2.0"))
	waitFor(t, "two resolutions to reach the registry", func() bool { return f.count() == 2 })
	ask("configmap/c/three", "c", tag("3.0"))
	ask("configmap/a/four", "a", tag("4.0"))
	g.mu.Lock()
	active, turns := g.active, slices.Clone(g.turns)
	g.mu.Unlock()
	if active != 2 || !slices.Equal(turns, []string{"c", "a"}) {
		t.Fatalf("active %d, turns %v: want 2 running and c's turn before a's second image", active, turns)
	}
	if n := f.count(); n != 2 {
		t.Errorf("%d requests reached the registry over the cap of 2", n)
	}
	close(hold)
	waitFor(t, "every pass to be woken", func() bool {
		return w.count("configmap/a/one") == 1 && w.count("configmap/b/two") == 1 &&
			w.count("configmap/c/three") == 1 && w.count("configmap/a/four") == 1
	})
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.running)+len(g.waiting)+len(g.calls)+len(g.turns)+g.active != 0 {
		t.Errorf("state left: running %v, waiting %v, calls %d, turns %v, active %d", g.running, g.waiting, len(g.calls), g.turns, g.active)
	}
}

// TestOCIBaseKeepsUnreadResults: a result that woken servers have not read
// is served past baseResolveTTL, once per server (not per controller: a
// server's other passes find its config in the ConfigMemo), without
// another request; after that an old result is resolved anew.
func TestOCIBaseKeepsUnreadResults(t *testing.T) {
	f := newLabelRegistry(t)
	g := newTestGenerator(t, 0, 0)
	var w wakes
	hold := make(chan struct{})
	f.set(false, hold)
	for _, key := range []string{"configmap/ns/a", "deployment/ns/a", "configmap/ns/b"} {
		askDeferred(t, g, &w, key, "ns", f.image())
	}
	close(hold)
	waitFor(t, "the wakes", func() bool {
		return w.count("configmap/ns/a") == 1 && w.count("deployment/ns/a") == 1 && w.count("configmap/ns/b") == 1
	})
	g.mu.Lock()
	d := g.done[f.image()]
	d.at = d.at.Add(-2 * baseResolveTTL) // as if the woken passes waited long in their queues
	g.done[f.image()] = d
	g.mu.Unlock()
	if d.unread != 2 {
		t.Errorf("%d unread, want 2: one per server", d.unread)
	}
	requests := f.count()
	for _, key := range []string{"configmap/ns/a", "configmap/ns/b"} {
		if _, err := w.ask(g, key, "ns", f.image()); err != nil {
			t.Fatalf("%s, woken, past the TTL: %v", key, err)
		}
	}
	if n := f.count() - requests; n != 0 {
		t.Errorf("the woken servers' reads sent %d requests, want 0", n)
	}
	if _, err := w.ask(g, "configmap/ns/c", "ns", f.image()); !isDeferred(err) {
		t.Errorf("a read of the old, fully read result: err = %v, want a new resolution (DeferredError)", err)
	}
}

// TestOCIBaseJoinAfterTheEnd: a pass that joins a resolution which has
// already ended is woken at once, so no wake is lost between the deferral
// and the join.
func TestOCIBaseJoinAfterTheEnd(t *testing.T) {
	f := newLabelRegistry(t)
	g := newTestGenerator(t, 0, 0)
	_, err := g.ociBase(context.Background(), "ns", f.image())
	var d *DeferredError
	if !errors.As(err, &d) || d.Join == nil {
		t.Fatalf("err = %v, want a DeferredError with Join", err)
	}
	waitFor(t, "the resolution to end", func() bool {
		g.mu.Lock()
		defer g.mu.Unlock()
		return len(g.calls) == 0
	})
	woken := false
	d.Join("configmap", "ns/a", func() { woken = true })
	if !woken {
		t.Error("a join after the end was not woken at once")
	}
}
