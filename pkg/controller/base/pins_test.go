package base

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/configgen"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/events"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/record"
	"github.com/ogx-k8s/ogx-controller/pkg/resolve"
)

// pinsEnv is Pins on a labelRegistry, with a clock the test moves.
type pinsEnv struct {
	t    *testing.T
	reg  *labelRegistry
	pins *Pins
	sink *events.Sink

	mu  sync.Mutex
	now time.Time
}

const testInterval = time.Hour

func newPinsEnv(t *testing.T) *pinsEnv {
	return pinsOn(t, newLabelRegistry(t))
}

// restart is a new process on e's registry: nothing kept in memory.
func (e *pinsEnv) restart() *pinsEnv { return pinsOn(e.t, e.reg) }

func pinsOn(t *testing.T, reg *labelRegistry) *pinsEnv {
	e := &pinsEnv{t: t, reg: reg, now: time.Date(2026, 12, 6, 0, 0, 0, 0, time.UTC)}
	g := newTestGenerator(t, 0, 0)
	g.now = e.clock
	r := record.New()
	e.sink = events.NewSink("test", nil, nil, r)
	e.sink.Lead()
	e.pins = NewPins(r, g, e.sink, testInterval)
	return e
}

func (e *pinsEnv) clock() time.Time {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.now
}

func (e *pinsEnv) advance(d time.Duration) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.now = e.now.Add(d)
}

func pinnedServer(ns, name string) *ogxv1beta1.OGXServer {
	return &ogxv1beta1.OGXServer{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID(ns + "/" + name)}}
}

// image asks for s's pinned image as a pass would: a deferred answer is
// joined and asked again once woken.
func (e *pinsEnv) image(s *ogxv1beta1.OGXServer) (string, error) {
	e.t.Helper()
	for range 2 {
		img, err := e.pins.Image(context.Background(), s, e.reg.image())
		if !isDeferred(err) {
			return img, err
		}
		woken := make(chan struct{})
		err.(*DeferredError).Join("deployment", s.Namespace+"/"+s.Name, func() { close(woken) })
		select {
		case <-woken:
		case <-time.After(10 * time.Second):
			e.t.Fatalf("%s/%s was never woken", s.Namespace, s.Name)
		}
	}
	e.t.Fatalf("%s/%s deferred twice", s.Namespace, s.Name)
	return "", nil
}

func (e *pinsEnv) mustImage(s *ogxv1beta1.OGXServer) string {
	e.t.Helper()
	img, err := e.image(s)
	if err != nil {
		e.t.Fatalf("%s/%s: %v", s.Namespace, s.Name, err)
	}
	return img
}

// reasons lists the reasons of the Events queued since the last call.
func (e *pinsEnv) reasons() []string {
	var out []string
	for _, ev := range e.sink.Queued() {
		out = append(out, ev.Reason+": "+ev.Note)
	}
	return out
}

// TestPinsShareOneResolutionPerInterval: servers on one tag are pinned to
// its digest with one resolution between them, stay on it while the tag
// moves, and move together with one resolution when the interval has
// passed, each with one Event naming both digests.
func TestPinsShareOneResolutionPerInterval(t *testing.T) {
	e := newPinsEnv(t)
	a := e.reg.manifestDigest
	servers := make([]*ogxv1beta1.OGXServer, 20)
	for i := range servers {
		servers[i] = pinnedServer("team", fmt.Sprintf("s%d", i))
		if got, want := e.mustImage(servers[i]), e.reg.image()+"@"+a; got != want {
			t.Fatalf("s%d runs %s, want %s", i, got, want)
		}
	}
	if n := e.reg.tagHeads(); n != 1 {
		t.Errorf("%d tag resolutions for 20 servers, want 1", n)
	}
	if got := e.pins.RecheckIn(servers[0]); got != testInterval {
		t.Errorf("RecheckIn = %s, want %s", got, testInterval)
	}
	b := e.reg.push(t, "version: 2\napis: [inference, files]\n")
	e.advance(testInterval - time.Second)
	for i, s := range servers {
		if got := e.mustImage(s); got != e.reg.image()+"@"+a {
			t.Fatalf("s%d moved to %s before the interval passed", i, got)
		}
	}
	if got := e.reasons(); got != nil {
		t.Errorf("Events before the interval: %v", got)
	}
	e.advance(time.Second)
	for i, s := range servers {
		if got := e.mustImage(s); got != e.reg.image()+"@"+b {
			t.Fatalf("s%d runs %s after the interval, want @%s", i, got, b)
		}
	}
	if n := e.reg.tagHeads(); n != 2 {
		t.Errorf("%d tag resolutions after one interval, want 2", n)
	}
	events := e.reasons()
	want := fmt.Sprintf("ImageDigestChanged: Image %s moved from %s to %s; rolling out the new digest", e.reg.image(), a, b)
	if len(events) != len(servers) || events[0] != want {
		t.Errorf("Events = %q..., %d of them; want %q once per server", events[:min(len(events), 1)], len(events), want)
	}
}

// TestPinsSurviveARestart: a new process reads the pin from status and
// keeps it, however the tag moved, until the interval has passed from its
// start; it sends no request and no Event for it.
func TestPinsSurviveARestart(t *testing.T) {
	e := newPinsEnv(t)
	old := "sha256:" + fmt.Sprintf("%064x", 7)
	s := pinnedServer("team", "restarted")
	s.Status.ResolvedDistribution = &ogxv1beta1.ResolvedDistribution{Image: e.reg.image() + "@" + old, ConfigSource: configgen.SourceOCILabel}
	if got := e.mustImage(s); got != e.reg.image()+"@"+old {
		t.Fatalf("after a restart the server runs %s, want its pinned %s", got, old)
	}
	if n := e.reg.count(); n != 0 {
		t.Errorf("%d registry requests for a pinned server after a restart, want 0", n)
	}
	// A digest status learned another way (a config not from the labels)
	// is no pin.
	other := pinnedServer("team", "other-source")
	other.Status.ResolvedDistribution = &ogxv1beta1.ResolvedDistribution{Image: e.reg.image() + "@" + old, ConfigSource: "builtin"}
	if got := e.mustImage(other); got != e.reg.image()+"@"+e.reg.manifestDigest {
		t.Errorf("a server whose status digest is not a pin runs %s, want the tag's digest", got)
	}
	e.advance(testInterval)
	if got := e.mustImage(s); got != e.reg.image()+"@"+e.reg.manifestDigest {
		t.Errorf("after the interval the server runs %s, want the tag's digest", got)
	}
}

// TestPinsRecheckAnnotation: a new annotation value re-checks at once,
// once; status's echo of it keeps a new process from asking again.
func TestPinsRecheckAnnotation(t *testing.T) {
	e := newPinsEnv(t)
	s := pinnedServer("team", "asked")
	a := e.reg.manifestDigest
	e.mustImage(s)
	b := e.reg.push(t, "version: 2\napis: [files]\n")
	e.advance(time.Second)
	s.Annotations = map[string]string{ogxv1beta1.AnnotationRecheckImage: "1"}
	if got := e.mustImage(s); got != e.reg.image()+"@"+b {
		t.Fatalf("after the request the server runs %s, want @%s", got, b)
	}
	if got := e.pins.LastHandled(s); got != "1" {
		t.Errorf("LastHandled = %q, want 1", got)
	}
	heads := e.reg.tagHeads()
	e.reg.push(t, "version: 2\napis: [batches]\n")
	if got := e.mustImage(s); got != e.reg.image()+"@"+b || e.reg.tagHeads() != heads {
		t.Errorf("an answered request was answered again: %s, %d tag resolutions", got, e.reg.tagHeads()-heads)
	}
	// A new process: status holds the pin and the answered value.
	fresh := e.restart()
	requests := e.reg.count()
	restarted := s.DeepCopy()
	restarted.Status.ResolvedDistribution = &ogxv1beta1.ResolvedDistribution{Image: e.reg.image() + "@" + b,
		ConfigSource: configgen.SourceOCILabel, LastHandledRecheck: "1"}
	if got := fresh.pins.LastHandled(restarted); got != "1" {
		t.Errorf("LastHandled before any pass = %q, want status's 1", got)
	}
	fresh.mustImage(restarted)
	if e.reg.count() != requests {
		t.Errorf("a new process answered the request again")
	}
	if got := e.reasons(); len(got) != 1 || got[0] != fmt.Sprintf("ImageDigestChanged: Image %s moved from %s to %s; rolling out the new digest", e.reg.image(), a, b) {
		t.Errorf("Events = %q, want one ImageDigestChanged", got)
	}
}

// TestPinsFailedRecheckKeepsTheDigest: a registry failing at a re-check
// keeps the server on its digest, with one Warning while it lasts and a
// retry after recheckRetry; a first resolution's failure is a user error.
func TestPinsFailedRecheckKeepsTheDigest(t *testing.T) {
	e := newPinsEnv(t)
	s := pinnedServer("team", "kept")
	pinned := e.mustImage(s)
	e.reg.set(true, nil)
	e.advance(testInterval)
	for range 3 {
		if got := e.mustImage(s); got != pinned {
			t.Fatalf("during a failed re-check the server runs %s, want %s", got, pinned)
		}
	}
	if got := e.pins.RecheckIn(s); got != recheckRetry {
		t.Errorf("RecheckIn after a failure = %s, want %s", got, recheckRetry)
	}
	events := e.reasons()
	if len(events) != 1 || !strings.HasPrefix(events[0], "ImageRecheckFailed: ") {
		t.Errorf("Events = %q, want one ImageRecheckFailed", events)
	}
	e.reg.set(false, nil)
	e.advance(recheckRetry)
	if got := e.mustImage(s); got != pinned {
		t.Errorf("after the registry recovered the server runs %s, want %s", got, pinned)
	}
	if got := e.pins.RecheckIn(s); got != testInterval {
		t.Errorf("RecheckIn after the recovery = %s, want %s", got, testInterval)
	}
	// A new server takes the digest resolved within the interval; with
	// none, a failure is the server's error.
	e.reg.set(true, nil)
	if got := e.mustImage(pinnedServer("team", "joins")); got != pinned {
		t.Errorf("a new server runs %s, want the digest resolved within the interval, %s", got, pinned)
	}
	first := newPinsEnv(t)
	first.reg.set(true, nil)
	var user *resolve.UserError
	if _, err := first.image(pinnedServer("team", "new")); !errors.As(err, &user) || user.Reason != ogxv1beta1.ReasonBaseConfigUnavailable {
		t.Errorf("a new server on a failing registry: err = %v, want a BaseConfigUnavailable user error", err)
	}
}
