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

// baseResolveTTL is how long one OCI base-config resolution (or failure) is
// shared. The deployment, configmap and status controllers all need the
// generated config for the same event; without sharing, each would ask the
// registry. Tag references still see a re-pushed tag within seconds.
const baseResolveTTL = 10 * time.Second

// Generator is the controller's ConfigGenerator: the base config comes from
// spec.baseConfig (a watched ConfigMap), else from the image's OCI labels;
// configgen.Generate does the rest.
type Generator struct {
	refs     *references
	table    DistributionTable
	resolver *resolver
	oci      *oci.Resolver

	mu    sync.Mutex
	bases map[string]ociBase
}

type ociBase struct {
	res *oci.Result
	err error
	at  time.Time
}

// NewGenerator builds the generator; ociResolver may be nil (then only
// spec.baseConfig works, and image labels are reported unavailable).
func NewGenerator(ociResolver *oci.Resolver) *Generator {
	return &Generator{oci: ociResolver, bases: map[string]ociBase{}}
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

// ociBase resolves an image's base config, sharing results for a few
// seconds.
func (g *Generator) ociBase(ctx context.Context, image string) (*oci.Result, error) {
	g.mu.Lock()
	if b, ok := g.bases[image]; ok && time.Since(b.at) < baseResolveTTL {
		g.mu.Unlock()
		return b.res, b.err
	}
	g.mu.Unlock()
	if g.oci == nil {
		return nil, &oci.UnavailableError{Image: image, Err: errors.New("image label resolution is disabled")}
	}
	res, err := g.oci.Resolve(ctx, image)
	g.mu.Lock()
	g.bases[image] = ociBase{res: res, err: err, at: time.Now()}
	for k, b := range g.bases {
		if time.Since(b.at) > baseResolveTTL {
			delete(g.bases, k)
		}
	}
	g.mu.Unlock()
	return res, err
}
