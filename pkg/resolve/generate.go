package resolve

import (
	"context"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/configgen"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

// GeneratedConfig is the result of config generation.
type GeneratedConfig struct {
	ConfigYAML    string
	Hash          string
	SQLiteBackend bool
	ProviderCount int
	ResourceCount int
	ConfigVersion int
	// BaseHash is sha256:<hex> of the base config bytes and BaseSource is
	// configmap or oci-label, for status.resolvedDistribution.
	BaseHash   string
	BaseSource string
	// ImageDigest is the digest learned while reading the image's labels.
	ImageDigest string
	// Warnings are the generator's warnings.
	Warnings []string
}

// Generator produces the generated config.yaml of an OGXServer in
// generated mode.
type Generator interface {
	Generate(ctx context.Context, s *ogxv1beta1.OGXServer) (GeneratedConfig, error)
}

// Memo keeps generated configs: generate runs only when the memo holds
// none for s under baseKey (Resolver.baseKey).
type Memo interface {
	Generated(s *ogxv1beta1.OGXServer, baseKey string, generate func() (GeneratedConfig, error)) (GeneratedConfig, error)
}

// Generated returns the generated config of s, through the Memo when there
// is one, and refuses a config whose ConfigMap name is already taken by
// other content (the names are immutable, so only a hash collision can do
// that).
func (r *Resolver) Generated(ctx context.Context, s *ogxv1beta1.OGXServer) (GeneratedConfig, error) {
	gen := r.Generator
	if gen == nil {
		gen = r
	}
	var g GeneratedConfig
	var err error
	if r.Memo == nil {
		g, err = gen.Generate(ctx, s)
	} else {
		var key string
		if key, err = r.baseKey(ctx, s); err != nil {
			return GeneratedConfig{}, err
		}
		g, err = r.Memo.Generated(s, key, func() (GeneratedConfig, error) { return gen.Generate(ctx, s) })
	}
	if err != nil {
		return GeneratedConfig{}, err
	}
	for _, w := range g.Warnings {
		r.warn("%s", w)
	}
	name := render.GeneratedConfigName(s.Name, g.Hash)
	if cm, err := r.Source.GeneratedConfigMap(s.Namespace, name); err == nil && cm.Data[render.GeneratedConfigKey] != g.ConfigYAML {
		return GeneratedConfig{}, NewUserError(ogxv1beta1.ReasonConfigGenerationFailed, "generated ConfigMap %s exists with different content (hash collision)", name)
	}
	return g, nil
}

// Generate runs the generation pipeline (docs/config-generation.md,
// Pipeline): spec checks (no I/O, so a spec error is reported before any
// read), the base config, then configgen.Generate.
func (r *Resolver) Generate(ctx context.Context, s *ogxv1beta1.OGXServer) (GeneratedConfig, error) {
	if err := configgen.ValidateSpec(&s.Spec); err != nil {
		return GeneratedConfig{}, &UserError{Reason: ogxv1beta1.ReasonConfigGenerationFailed, Err: err}
	}
	base, err := r.base(ctx, s)
	if err != nil {
		return GeneratedConfig{}, err
	}
	out, err := configgen.Generate(&s.Spec, base.Config)
	if err != nil {
		return GeneratedConfig{}, &UserError{Reason: ogxv1beta1.ReasonConfigGenerationFailed, Err: err}
	}
	return GeneratedConfig{
		ConfigYAML: string(out.ConfigYAML), Hash: out.ContentHash, SQLiteBackend: out.SQLiteBackend,
		ProviderCount: out.ProviderCount, ResourceCount: out.ResourceCount, ConfigVersion: out.ConfigVersion,
		BaseHash: configgen.ConfigHash(base.Config), BaseSource: base.Source, ImageDigest: base.Digest, Warnings: out.Warnings,
	}, nil
}

// base picks the base config (docs/config-generation.md, Base config): one
// the Source was given, spec.baseConfig's ConfigMap, else the image's
// labels. A Partial resolver goes on to the labels when the ConfigMap is
// not in its Source.
func (r *Resolver) base(ctx context.Context, s *ogxv1beta1.OGXServer) (Base, error) {
	if b, ok := r.Source.GivenBase(); ok {
		return Base{Config: b}, nil
	}
	if ref := s.Spec.BaseConfig; ref != nil {
		text, err := r.ConfigMapKey(ctx, s.Namespace, *ref, "spec.baseConfig", PrefixBaseConfig, WhatBaseConfig)
		if err == nil {
			return Base{Config: []byte(text), Source: configgen.SourceConfigMap}, nil
		}
		if !r.Partial || !absent(err) {
			return Base{}, err
		}
	}
	return r.Source.ImageBase(ctx, s, func() (string, error) { return r.ServerImage(ctx, s) })
}

// baseKey names the base config s's generated config is built on: the
// base ConfigMap at its cached resourceVersion, or the image, pinned to its
// digest, whose labels hold it. A base that cannot be named yet (ConfigMap
// not cached, image name not resolvable) gets a key of its own, and
// generation reports why; a pin that is not known yet (a tag being
// resolved, a registry failing) ends the call with the pin's error.
func (r *Resolver) baseKey(ctx context.Context, s *ogxv1beta1.OGXServer) (string, error) {
	if ref := s.Spec.BaseConfig; ref != nil {
		if cm, err := r.Source.CachedConfigMap(s.Namespace, ref.Name); err == nil {
			return "configmap:" + ref.Name + "@" + cm.ResourceVersion, nil
		}
		return "configmap:" + ref.Name + "@absent", nil
	}
	if _, err := r.Image(s); err != nil {
		return "image:?", nil
	}
	image, err := r.ServerImage(ctx, s)
	if err != nil {
		return "", err
	}
	return "image:" + image, nil
}
