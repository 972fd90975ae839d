package base

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/ogx-k8s/ogx-controller/pkg/configgen/oci"
)

// baseResolveTTL is how long a finished OCI base-config resolution,
// success or failure, is shared between servers on the same image. No pass
// waits for a registry (see Generator): the passes that asked while it ran
// read its result on their next pass, so it must outlive their wait in
// their queues. A failure kept this long is not retried sooner; the
// failing servers' own backoff retries them anyway.
const baseResolveTTL = 10 * time.Second

// DefaultResolutionsPerNamespace bounds the registry resolutions that run
// at once for the servers of one namespace (--resolutions-per-namespace).
const DefaultResolutionsPerNamespace = 2

// Generator reads base configs from images' OCI labels for the resolver
// when spec.baseConfig names none.
//
// A resolution may take the resolver's whole timeout (30 s by default), so
// no pass waits for one, and a tenant's slow registry holds no worker of
// the controllers every namespace shares: the first pass that needs an
// image starts its resolution in the background and ends deferred
// (DeferredError), and passes asking for the image meanwhile join it. When
// it finishes, every joined pass's controller is woken (WithWake) and its
// next pass reads the result. At most perNamespace resolutions run at once
// for one namespace, the rest wait in order, so servers on many images or
// a registry that never answers delay only their own namespace
// (test/faults, TestStalledRegistryDelaysOnlyItsNamespace).
type Generator struct {
	oci          *oci.Resolver
	perNamespace int

	mu      sync.Mutex
	done    map[string]finished    // finished resolutions, by image
	calls   map[callKey]*baseCall  // resolutions running or waiting
	running map[string]int         // resolutions running, by namespace
	waiting map[string][]*baseCall // resolutions waiting for a slot, by namespace
}

// callKey names a resolution by namespace and image: a namespace never
// joins another's resolution, so it never waits in that namespace's queue
// (two namespaces on one image resolve it once each; the result is shared).
type callKey struct{ namespace, image string }

// finished is a resolution's result and when it was made.
type finished struct {
	res *oci.Result
	err error
	at  time.Time
}

// baseCall is one resolution running or waiting, with the wakes of the
// passes that joined it, by the pass's wake key (so a server asking again
// is woken once).
type baseCall struct {
	image, namespace string
	// ctx carries the first pass's logger, not its deadline: the
	// resolution outlives the pass, bounded by the resolver's timeout.
	ctx   context.Context
	wakes map[string]func()
}

// NewGenerator builds the generator; ociResolver may be nil (then only
// spec.baseConfig works, and image labels are reported unavailable).
// perNamespace <= 0 means DefaultResolutionsPerNamespace.
func NewGenerator(ociResolver *oci.Resolver, perNamespace int) *Generator {
	if perNamespace <= 0 {
		perNamespace = DefaultResolutionsPerNamespace
	}
	return &Generator{oci: ociResolver, perNamespace: perNamespace, done: map[string]finished{},
		calls: map[callKey]*baseCall{}, running: map[string]int{}, waiting: map[string][]*baseCall{}}
}

// wake is what WithWake puts in a pass's context.
type wake struct {
	key string
	fn  func()
}

type wakeKey struct{}

// WithWake returns ctx carrying fn, which the Generator calls when a
// resolution the pass joined finishes; key names the pass (controller and
// server), so that one pass asking again is woken once.
func WithWake(ctx context.Context, key string, fn func()) context.Context {
	return context.WithValue(ctx, wakeKey{}, wake{key: key, fn: fn})
}

// ociBase returns the base config of image for a server of namespace ns
// when a finished resolution younger than baseResolveTTL has it; otherwise
// it joins or starts one and returns a *DeferredError.
func (g *Generator) ociBase(ctx context.Context, ns, image string) (*oci.Result, error) {
	if g.oci == nil {
		return nil, &oci.UnavailableError{Image: image, Err: errors.New("image label resolution is disabled")}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if f, ok := g.done[image]; ok && time.Since(f.at) < baseResolveTTL {
		return f.res, f.err
	}
	call, ok := g.calls[callKey{ns, image}]
	if !ok {
		call = &baseCall{image: image, namespace: ns, ctx: context.WithoutCancel(ctx), wakes: map[string]func(){}}
		g.calls[callKey{ns, image}] = call
		if g.running[ns] < g.perNamespace {
			g.start(call)
		} else {
			g.waiting[ns] = append(g.waiting[ns], call)
		}
	}
	if w, ok := ctx.Value(wakeKey{}).(wake); ok {
		call.wakes[w.key] = w.fn
	}
	return nil, &DeferredError{Message: "reading the base config from the labels of " + image}
}

// start runs call in the background; g.mu is held.
func (g *Generator) start(call *baseCall) {
	g.running[call.namespace]++
	go g.resolve(call)
}

// resolve runs one resolution, keeps its result, starts the namespace's
// next waiting one and wakes the passes that joined it.
func (g *Generator) resolve(call *baseCall) {
	res, err := g.oci.Resolve(call.ctx, call.image)
	g.mu.Lock()
	now := time.Now()
	for k, f := range g.done {
		if now.Sub(f.at) >= baseResolveTTL {
			delete(g.done, k)
		}
	}
	g.done[call.image] = finished{res: res, err: err, at: now}
	delete(g.calls, callKey{call.namespace, call.image})
	ns := call.namespace
	g.running[ns]--
	if next := g.waiting[ns]; len(next) > 0 {
		g.waiting[ns] = next[1:]
		g.start(next[0])
	}
	if g.running[ns] == 0 {
		delete(g.running, ns)
		delete(g.waiting, ns)
	}
	g.mu.Unlock()
	for _, fn := range call.wakes {
		fn()
	}
}
