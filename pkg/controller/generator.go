package controller

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/configgen"
	"github.com/ogx-k8s/ogx-controller/pkg/configgen/oci"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/render"
)

// baseResolveTTL is how long one successful OCI base-config resolution is
// shared between servers on the same image (one server's config is
// generated once per generation, configmemo.go). Failures are not kept: a retry (paced by the workqueue's backoff) asks the
// registry again, so a registry that recovers is noticed at once.
const baseResolveTTL = 10 * time.Second

// Generator is the controller's ConfigGenerator: the base config comes from
// spec.baseConfig (a watched ConfigMap), else from the image's OCI labels;
// configgen.Generate does the rest.
type Generator struct {
	refs     *references
	table    DistributionTable
	resolver *resolver
	oci      *oci.Resolver

	mu       sync.Mutex
	bases    map[string]ociBase   // successful resolutions, by image
	inflight map[string]*baseCall // resolutions under way, by image
}

// ociBase is a successful resolution and when it was made.
type ociBase struct {
	res *oci.Result
	at  time.Time
}

// baseCall is one resolution under way. Callers that ask for the same image
// meanwhile wait for it and share its result, failure included, so the
// controllers handling one event send one request sequence, not one each.
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

// bind gives the generator the caches it reads references from.
func (g *Generator) bind(r *resolver) {
	g.refs, g.table, g.resolver = r.refs, r.table, r
}

// Generate implements ConfigGenerator.
func (g *Generator) Generate(ctx context.Context, s *v1beta1.OGXServer) (GeneratedConfig, error) {
	var (
		base   []byte
		source string
		digest string
	)
	if ref := s.Spec.BaseConfig; ref != nil {
		text, err := g.refs.configMapKey(ctx, s.Namespace, *ref, "spec.baseConfig", prefixBaseConfig, render.WhatBaseConfig)
		if err != nil {
			return GeneratedConfig{}, err
		}
		base, source = []byte(text), configgen.SourceConfigMap
	} else {
		image, err := g.resolver.image(s)
		if err != nil {
			return GeneratedConfig{}, err
		}
		res, err := g.ociBase(ctx, image)
		if err != nil {
			return GeneratedConfig{}, &UserError{Reason: ReasonBaseConfigUnavailable, Err: err}
		}
		base, source, digest = res.Config, configgen.SourceOCILabel, res.Digest
	}
	out, err := configgen.Generate(&s.Spec, base)
	if err != nil {
		return GeneratedConfig{}, &UserError{Reason: ReasonConfigGenFailed, Err: err}
	}
	return GeneratedConfig{
		ConfigYAML: string(out.ConfigYAML), Hash: out.ContentHash, SQLiteBackend: out.SQLiteBackend,
		ProviderCount: out.ProviderCount, ResourceCount: out.ResourceCount, ConfigVersion: out.ConfigVersion,
		BaseHash: configgen.ConfigHash(base), BaseSource: source, ImageDigest: digest, Warnings: out.Warnings,
	}, nil
}

// ociBase resolves an image's base config. A success is shared for
// baseResolveTTL; a failure only with the callers that waited for that same
// resolution, never with later ones.
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
