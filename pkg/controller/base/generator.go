package base

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ogx-k8s/ogx-controller/pkg/configgen/oci"
)

// baseResolveTTL is how long a finished OCI base-config resolution,
// success or failure, is shared between servers on the same image. A
// failure kept this long is not retried sooner; the failing servers' own
// backoff retries them anyway.
const baseResolveTTL = 10 * time.Second

// baseUnreadTTL is how long a finished resolution is kept past
// baseResolveTTL while passes it woke have not read it yet: a woken pass
// that waited long in a busy queue must find the result, not start the
// resolution again.
const baseUnreadTTL = 5 * time.Minute

// Defaults of --resolutions-per-namespace and --resolutions.
const (
	DefaultResolutionsPerNamespace = 2
	// DefaultResolutions bounds the resolutions of all namespaces: each
	// holds a connection and up to a 4 MiB body while it reads, so 16
	// bound that memory to about 64 MiB; a namespace holds at most
	// DefaultResolutionsPerNamespace of them.
	DefaultResolutions = 16
)

// Generator reads base configs from images' OCI labels for the resolver
// when spec.baseConfig names none.
//
// A resolution may take the resolver's whole timeout (30 s by default), so
// no pass waits for one, and a tenant's slow registry holds no worker of
// the controllers every namespace shares: the first pass that needs an
// image starts its resolution in the background and ends deferred
// (DeferredError), and passes asking for the image meanwhile join it
// (DeferredError.Join). When it finishes, every joined pass's controller
// is woken and its next pass reads the result. At most perNamespace
// resolutions run at once for one namespace and total for all; waiting
// ones start in order within a namespace and in turns across namespaces,
// so servers on many images or a registry that never answers delay only
// their own namespace (test/faults, TestStalledRegistryDelaysOnlyItsNamespace).
type Generator struct {
	oci                 *oci.Resolver
	perNamespace, total int
	// now is the clock of results and pins (time.Now; tests set another).
	now func() time.Time

	mu      sync.Mutex
	done    map[string]finished    // finished resolutions, by image
	tags    map[string]tagDigest   // the last digest each tag resolved to
	calls   map[callKey]*baseCall  // resolutions running or waiting
	running map[string]int         // resolutions running, by namespace
	active  int                    // resolutions running in all
	waiting map[string][]*baseCall // resolutions waiting for a slot, by namespace
	turns   []string               // namespaces with waiting resolutions, next turn first
}

// callKey names a resolution by namespace and image: a namespace never
// joins another's resolution, so it never waits in that namespace's queue
// (two namespaces on one image resolve it once each; the result is shared).
type callKey struct{ namespace, image string }

// finished is a resolution's result, when it was made, and how many woken
// passes have not read it yet.
type finished struct {
	res    *oci.Result
	err    error
	at     time.Time
	unread int
}

// fresh reports whether f may still be served at now.
func (f finished) fresh(now time.Time) bool {
	age := now.Sub(f.at)
	return age < baseResolveTTL || (f.unread > 0 && age < baseUnreadTTL)
}

// tagDigest is the digest a tag resolved to and when: Pins share one
// resolution of a tag between all the servers that run it.
type tagDigest struct {
	digest string
	at     time.Time
}

// tagKeep bounds how long a tag's digest is kept after its resolution;
// Pins ask for results newer than a server's due time, which is never
// older than the re-check interval.
const tagKeep = 24 * time.Hour

// baseCall is one resolution running or waiting, with the wakes of the
// passes that joined it, by controller and server (so a pass asking again
// is woken once), and the servers they are for.
type baseCall struct {
	image, namespace string
	// ctx carries the first pass's logger, not its deadline: the
	// resolution outlives the pass, bounded by the resolver's timeout.
	ctx     context.Context
	wakes   map[[2]string]func()
	servers map[string]bool
}

// NewGenerator builds the generator; ociResolver may be nil (then only
// spec.baseConfig works, and image labels are reported unavailable).
// perNamespace and total <= 0 mean their defaults.
func NewGenerator(ociResolver *oci.Resolver, perNamespace, total int) *Generator {
	if perNamespace <= 0 {
		perNamespace = DefaultResolutionsPerNamespace
	}
	if total <= 0 {
		total = DefaultResolutions
	}
	return &Generator{oci: ociResolver, perNamespace: perNamespace, total: total, now: time.Now,
		done: map[string]finished{}, tags: map[string]tagDigest{},
		calls: map[callKey]*baseCall{}, running: map[string]int{}, waiting: map[string][]*baseCall{}}
}

// ociBase returns the base config of image for a server of namespace ns
// when a fresh finished resolution has it; otherwise it starts one, or
// queues it, and returns a *DeferredError whose Join wakes the pass when
// the resolution ends.
func (g *Generator) ociBase(ctx context.Context, ns, image string) (*oci.Result, error) {
	if g.oci == nil {
		return nil, &oci.UnavailableError{Image: image, Err: errors.New("image label resolution is disabled")}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if f, ok := g.done[image]; ok && f.fresh(g.now()) {
		if f.unread > 0 {
			f.unread--
			g.done[image] = f
		}
		return f.res, f.err
	}
	return nil, g.startLocked(ctx, ns, image, "reading the base config from the labels of "+image)
}

// tagDigest returns the digest the tag ref resolved to, and when, if that
// resolution was made at notBefore or later; or the error of such a
// resolution that failed within baseResolveTTL. Otherwise it starts a
// resolution of ref, or queues it, and returns a *DeferredError as
// ociBase does. The resolution reads the labels too, so the pass it wakes
// finds the base config of ref@digest at hand.
func (g *Generator) tagDigest(ctx context.Context, ns, ref string, notBefore time.Time) (string, time.Time, error) {
	if g.oci == nil {
		return "", time.Time{}, &oci.UnavailableError{Image: ref, Err: errors.New("image label resolution is disabled")}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if t, ok := g.tags[ref]; ok && !t.at.Before(notBefore) {
		return t.digest, t.at, nil
	}
	if f, ok := g.done[ref]; ok && f.err != nil && f.fresh(g.now()) && !f.at.Before(notBefore) {
		return "", f.at, f.err
	}
	return "", time.Time{}, g.startLocked(ctx, ns, ref, "resolving the digest of "+ref)
}

// startLocked starts or queues the resolution of image for namespace ns
// unless one is under way, and returns the DeferredError whose Join wakes
// a pass when it ends. g.mu is held.
func (g *Generator) startLocked(ctx context.Context, ns, image, message string) *DeferredError {
	call, ok := g.calls[callKey{ns, image}]
	if !ok {
		call = &baseCall{image: image, namespace: ns, ctx: context.WithoutCancel(ctx),
			wakes: map[[2]string]func(){}, servers: map[string]bool{}}
		g.calls[callKey{ns, image}] = call
		if len(g.waiting[ns]) == 0 {
			g.turns = append(g.turns, ns)
		}
		g.waiting[ns] = append(g.waiting[ns], call)
		g.dispatch()
	}
	return &DeferredError{Message: message,
		Join: func(controller, server string, wake func()) { g.join(call, controller, server, wake) }}
}

// join registers wake, for the pass of controller over server, to be called
// when call ends; if it has ended meanwhile, wake is called now and its
// result counted as unread.
func (g *Generator) join(call *baseCall, controller, server string, wake func()) {
	g.mu.Lock()
	if g.calls[callKey{call.namespace, call.image}] == call {
		call.wakes[[2]string{controller, server}] = wake
		call.servers[server] = true
		g.mu.Unlock()
		return
	}
	if f, ok := g.done[call.image]; ok {
		f.unread++
		g.done[call.image] = f
	}
	g.mu.Unlock()
	wake()
}

// dispatch starts waiting resolutions while the total allows: each turn
// goes to the next namespace below its own cap, which then goes to the
// back of the turns if it has more waiting. g.mu is held.
func (g *Generator) dispatch() {
	for g.active < g.total {
		i := slices.IndexFunc(g.turns, func(ns string) bool { return g.running[ns] < g.perNamespace })
		if i < 0 {
			return
		}
		ns := g.turns[i]
		g.turns = slices.Delete(g.turns, i, i+1)
		call := g.waiting[ns][0]
		if rest := g.waiting[ns][1:]; len(rest) > 0 {
			g.waiting[ns] = rest
			g.turns = append(g.turns, ns)
		} else {
			delete(g.waiting, ns)
		}
		g.running[ns]++
		g.active++
		go g.resolve(call)
	}
}

// prune drops finished resolutions that may no longer be served and tag
// digests older than tagKeep. g.mu is held.
func (g *Generator) prune(now time.Time) {
	for k, f := range g.done {
		if !f.fresh(now) {
			delete(g.done, k)
		}
	}
	for k, t := range g.tags {
		if now.Sub(t.at) > tagKeep {
			delete(g.tags, k)
		}
	}
}

// keep stores f as image's result; woken passes of another namespace on
// the same image that have not read the previous result keep their count.
// g.mu is held.
func (g *Generator) keep(image string, f finished) {
	if old, ok := g.done[image]; ok {
		f.unread += old.unread
	}
	g.done[image] = f
}

// resolve runs one resolution, keeps its result, lets the next waiting
// ones start and wakes the passes that joined it.
func (g *Generator) resolve(call *baseCall) {
	res, err := g.oci.Resolve(call.ctx, call.image)
	g.mu.Lock()
	now := g.now()
	g.prune(now)
	// One read per server: its first woken pass reads the result, the
	// others of the same generation find the config in the ConfigMemo.
	f := finished{res: res, err: err, at: now, unread: len(call.servers)}
	if err == nil && !strings.Contains(call.image, "@") {
		// A tag: Pins pin its servers to the digest (tagDigest), and the
		// passes this wakes read the labels of image@digest, so they find
		// the result there too.
		g.tags[call.image] = tagDigest{digest: res.Digest, at: now}
		g.keep(oci.PinnedImage(call.image, res.Digest), f)
	}
	g.keep(call.image, f)
	delete(g.calls, callKey{call.namespace, call.image})
	ns := call.namespace
	g.active--
	if g.running[ns]--; g.running[ns] == 0 {
		delete(g.running, ns)
	}
	g.dispatch()
	g.mu.Unlock()
	for _, fn := range call.wakes {
		fn()
	}
}
