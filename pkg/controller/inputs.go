package controller

import (
	"context"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/contenthash"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/render"
)

// ConfigGenerator produces the generated config.yaml of an OGXServer in
// generated mode: the ConfigMap name and content hash, whether a sqlite
// backend is used, and the provider and resource counts for status.
type ConfigGenerator interface {
	Generate(ctx context.Context, s *ogxv1beta1.OGXServer) (GeneratedConfig, error)
}

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

// optionalAPIs records what discovery last found (docs/controllers.md,
// Optional APIs).
type optionalAPIs struct {
	monitoring atomic.Bool
	openshift  atomic.Bool
}

// resolver computes the render inputs of an OGXServer from the caches. It is
// shared and read-only; every controller that needs an input asks it, so no
// controller reads another controller's child to decide its own.
type resolver struct {
	caches    *Caches
	refs      *references
	table     DistributionTable
	generator ConfigGenerator
	// memo holds each server's config generated for its current generation
	// and base; status reads it, the generating controllers fill it.
	memo              *configMemo
	apis              *optionalAPIs
	operatorNamespace string
	clusterDomain     string
}

// imageOverrides reads the image-overrides of the operator ConfigMap; invalid
// entries are ignored here (the event is emitted where the ConfigMap is
// watched).
func (r *resolver) imageOverrides() map[string]string {
	cm, err := r.caches.operatorConfigMap.ConfigMaps(r.operatorNamespace).Get(render.OperatorConfigMapName)
	if err != nil {
		return nil
	}
	o, _ := ImageOverrides(cm.Data[render.ImageOverridesKey])
	return o
}

// image resolves the server image.
func (r *resolver) image(s *ogxv1beta1.OGXServer) (string, error) {
	return r.table.ResolveImage(&s.Spec, r.imageOverrides())
}

// runtimeConfig resolves the mounted config: nothing (inactive), the user's
// override ConfigMap key, or the generated ConfigMap.
func (r *resolver) runtimeConfig(ctx context.Context, s *ogxv1beta1.OGXServer) (render.RuntimeConfig, *GeneratedConfig, error) {
	switch s.Spec.ConfigMode() {
	case ogxv1beta1.ConfigModeOverride:
		ref := *s.Spec.OverrideConfig
		text, err := r.refs.configMapKey(ctx, s.Namespace, ref, "spec.overrideConfig", prefixConfigMap, "override config")
		if err != nil {
			return render.RuntimeConfig{}, nil, err
		}
		return render.RuntimeConfig{Mode: ogxv1beta1.ConfigModeOverride, ConfigMapName: ref.Name, Key: ref.Key,
			Hash: contenthash.H16([]byte(text))}, nil, nil
	case ogxv1beta1.ConfigModeGenerated:
		g, err := r.generated(ctx, s)
		if err != nil {
			return render.RuntimeConfig{}, nil, err
		}
		return render.RuntimeConfig{Mode: ogxv1beta1.ConfigModeGenerated,
			ConfigMapName: render.GeneratedConfigName(s.Name, g.Hash), Key: render.GeneratedConfigKey,
			Hash: g.Hash, SQLiteBackend: g.SQLiteBackend}, &g, nil
	}
	return render.RuntimeConfig{Mode: ogxv1beta1.ConfigModeInactive}, nil, nil
}

// secretEnv resolves the Secret-backed variables (generated mode only) and
// the secret.hash/referenced value, which covers every referenced value so a
// rotated Secret rolls the pods. Values are hashed, never kept or logged.
func (r *resolver) secretEnv(ctx context.Context, s *ogxv1beta1.OGXServer) ([]ogxv1beta1.SecretEnvVar, string, error) {
	if s.Spec.ConfigMode() != ogxv1beta1.ConfigModeGenerated {
		return nil, "", nil
	}
	vars, errs := ogxv1beta1.SecretEnv(&s.Spec)
	if len(errs) > 0 {
		return nil, "", &UserError{Reason: ReasonInvalidSpec, Err: errs.ToAggregate()}
	}
	entries := make([]render.SecretHashEntry, 0, len(vars))
	for _, v := range vars {
		value, err := r.refs.secretKey(ctx, s.Namespace, v.Ref, v.Path.String(), v.Name)
		if err != nil {
			return nil, "", err
		}
		entries = append(entries, render.SecretHashEntry{Env: v.Name, Secret: v.Ref.Name, Key: v.Ref.Key, Value: value})
	}
	return vars, render.SecretHash(entries), nil
}

// serverTLSHash hashes the serving certificate and key of spec.network.tls.
func (r *resolver) serverTLSHash(ctx context.Context, s *ogxv1beta1.OGXServer) (string, error) {
	t := s.Spec.ServerTLS()
	if t == nil {
		return "", nil
	}
	path := field.NewPath("spec", "network", "tls", "secretName").String()
	missing := func(ns, name, key, _ string) string { return render.MissingServerTLSKeyMessage(ns, name, key) }
	crt, err := r.refs.secretKeyWith(ctx, s.Namespace, ogxv1beta1.SecretKeyRef{Name: t.SecretName, Key: corev1.TLSCertKey}, path, "OGX_TLS_CERTFILE", missing)
	if err != nil {
		return "", err
	}
	key, err := r.refs.secretKeyWith(ctx, s.Namespace, ogxv1beta1.SecretKeyRef{Name: t.SecretName, Key: corev1.TLSPrivateKeyKey}, path, "OGX_TLS_KEYFILE", missing)
	if err != nil {
		return "", err
	}
	return render.PairHash(crt, key), nil
}

// identityHash hashes the client certificate and key of spec.tls.identity.
func (r *resolver) identityHash(ctx context.Context, s *ogxv1beta1.OGXServer) (string, error) {
	if s.Spec.TLS == nil || s.Spec.TLS.Identity == nil {
		return "", nil
	}
	id := s.Spec.TLS.Identity
	crt, err := r.refs.configMapKey(ctx, s.Namespace, id.Cert, "spec.tls.identity.cert", prefixConfigMap, "client certificate")
	if err != nil {
		return "", err
	}
	key, err := r.refs.secretKey(ctx, s.Namespace, id.Key, "spec.tls.identity.key", "OGX_TLS_CLIENT_KEY")
	if err != nil {
		return "", err
	}
	return render.PairHash([]byte(crt), key), nil
}

// inputs resolves everything the deployment needs. An error aborts the pass
// before any write, so a failing input never degrades a running server.
func (r *resolver) inputs(ctx context.Context, s *ogxv1beta1.OGXServer) (render.Inputs, error) {
	in := render.Inputs{
		OperatorNamespace:       r.operatorNamespace,
		ClusterDomain:           r.clusterDomain,
		MonitoringServed:        r.apis.monitoring.Load(),
		OpenShiftSecurityServed: r.apis.openshift.Load(),
	}
	var err error
	if in.PVCName, err = r.effectivePVCName(ctx, s); err != nil {
		return in, err
	}
	if in.Image, err = r.image(s); err != nil {
		return in, err
	}
	if in.RuntimeConfig, _, err = r.runtimeConfig(ctx, s); err != nil {
		return in, err
	}
	if in.SecretEnv, in.SecretHash, err = r.secretEnv(ctx, s); err != nil {
		return in, err
	}
	if in.ServerTLSHash, err = r.serverTLSHash(ctx, s); err != nil {
		return in, err
	}
	if in.IdentityHash, err = r.identityHash(ctx, s); err != nil {
		return in, err
	}
	bundle, err := r.caBundle(ctx, s)
	if err != nil {
		return in, err
	}
	if bundle.data != "" {
		in.CABundleHash = contenthash.H16([]byte(bundle.data))
	}
	return in, nil
}
