package base

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/ogx-k8s/ogx-controller/pkg/configgen/oci"
)

// baseResolveTTL is how long a successful OCI base-config resolution is
// shared between servers on the same image. Failures are not kept, so a
// retry notices a recovered registry at once.
const baseResolveTTL = 10 * time.Second

// Generator reads base configs from images' OCI labels for the resolver
// when spec.baseConfig names none. Resolutions of one image are shared
// while under way and for baseResolveTTL after a success.
type Generator struct {
	oci *oci.Resolver

	mu       sync.Mutex
	bases    map[string]ociBase   // successful resolutions, by image
	inflight map[string]*baseCall // resolutions under way, by image
}

// ociBase is a successful resolution and when it was made.
type ociBase struct {
	res *oci.Result
	at  time.Time
}

// baseCall is one resolution under way; callers that ask for the same image
// meanwhile share its result, failure included, so the controllers handling
// one event send one request sequence, not one each.
type baseCall struct {
	done    chan struct{} // closed when res and err are set
	res     *oci.Result
	err     error
	waiters int // callers waiting besides the one resolving (read by tests)
}

// NewGenerator builds the generator; ociResolver may be nil (then only
// spec.baseConfig works, and image labels are reported unavailable).
func NewGenerator(ociResolver *oci.Resolver) *Generator {
	return &Generator{oci: ociResolver, bases: map[string]ociBase{}, inflight: map[string]*baseCall{}}
}

// ociBase resolves an image's base config, or shares a resolution under
// way or a success younger than baseResolveTTL.
func (g *Generator) ociBase(ctx context.Context, image string) (*oci.Result, error) {
	if g.oci == nil {
		return nil, &oci.UnavailableError{Image: image, Err: errors.New("image label resolution is disabled")}
	}
	g.mu.Lock()
	if b, ok := g.bases[image]; ok && time.Since(b.at) < baseResolveTTL {
		g.mu.Unlock()
		return b.res, nil
	}
	if call, ok := g.inflight[image]; ok {
		call.waiters++
		g.mu.Unlock()
		select {
		case <-call.done:
			return call.res, call.err
		case <-ctx.Done():
			return nil, &oci.UnavailableError{Image: image, Err: ctx.Err()}
		}
	}
	call := &baseCall{done: make(chan struct{})}
	g.inflight[image] = call
	g.mu.Unlock()

	call.res, call.err = g.oci.Resolve(ctx, image)

	g.mu.Lock()
	delete(g.inflight, image)
	now := time.Now()
	if call.err == nil {
		g.bases[image] = ociBase{res: call.res, at: now}
	}
	for k, b := range g.bases {
		if now.Sub(b.at) > baseResolveTTL {
			delete(g.bases, k)
		}
	}
	g.mu.Unlock()
	close(call.done)
	return call.res, call.err
}
