package resolve

import (
	"context"
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/configgen"
	"github.com/ogx-k8s/ogx-controller/pkg/contenthash"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

// Resolver resolves the render inputs of an OGXServer from a Source. It is
// read-only and safe for concurrent use when its Source and Memo are.
type Resolver struct {
	Source Source
	// Table is the distribution image table (after RELATED_IMAGE_*).
	Table             DistributionTable
	OperatorNamespace string
	ClusterDomain     string
	// ServerAnyUID is copied into every Inputs (render.Inputs.ServerAnyUID).
	ServerAnyUID bool
	// Memo keeps generated configs between calls; nil generates each time.
	Memo Memo
	// Generator replaces the generation pipeline (Generate) when set.
	Generator Generator
	// Partial says the Source holds only some of the cluster's objects
	// (render's input files): a referenced object it lacks leaves the hash
	// that covers it out, with a warning, instead of failing
	// (docs/cli.md, render).
	Partial bool
	// Warn receives warnings in the order they arise (nil: dropped).
	Warn func(format string, args ...any)
}

// Resolved is everything one resolution produced.
type Resolved struct {
	render.Inputs
	// Generated is the generated config in generated mode, else nil.
	Generated *GeneratedConfig
	// CABundle is the assembled CA bundle.
	CABundle CABundle
}

func (r *Resolver) warn(format string, args ...any) {
	if r.Warn != nil {
		r.Warn(format, args...)
	}
}

// Image resolves the server image (docs/controllers.md, Image resolution).
func (r *Resolver) Image(s *ogxv1beta1.OGXServer) (string, error) {
	return r.Table.ResolveImage(&s.Spec, r.Source.ImageOverrides())
}

// ServerImage is the image the pods run: Image, pinned by the Source to a
// digest when the base config is read from that image's labels and the
// reference names a tag, so the pods run the bytes their config came from
// (docs/config-generation.md, Digest pinning). The spec is checked first:
// a spec error is reported before any registry is contacted.
func (r *Resolver) ServerImage(ctx context.Context, s *ogxv1beta1.OGXServer) (string, error) {
	ref, err := r.Image(s)
	if err != nil || !pinnable(s, ref) {
		return ref, err
	}
	if err := configgen.ValidateSpec(&s.Spec); err != nil {
		return "", &UserError{Reason: ogxv1beta1.ReasonConfigGenerationFailed, Err: err}
	}
	return r.Source.PinnedImage(ctx, s, ref)
}

// pinnable reports whether s's config is generated from the labels of ref
// and ref names a tag, not a digest. In the other modes the config does
// not come from the image, so the image is run as written.
func pinnable(s *ogxv1beta1.OGXServer, ref string) bool {
	return s.Spec.ConfigMode() == ogxv1beta1.ConfigModeGenerated && s.Spec.BaseConfig == nil && !strings.Contains(ref, "@")
}

// Inputs resolves everything the children need; see Resolve.
func (r *Resolver) Inputs(ctx context.Context, s *ogxv1beta1.OGXServer) (render.Inputs, error) {
	res, err := r.Resolve(ctx, s)
	return res.Inputs, err
}

// Resolve resolves everything the children need, in a fixed order whose
// first failure is the one reported. An error aborts the controller's pass
// before any write, so a failing input never degrades a running server.
func (r *Resolver) Resolve(ctx context.Context, s *ogxv1beta1.OGXServer) (Resolved, error) {
	monitoring, openShift := r.Source.OptionalAPIs()
	out := Resolved{Inputs: render.Inputs{
		OperatorNamespace:       r.OperatorNamespace,
		MonitoringServed:        monitoring,
		OpenShiftSecurityServed: openShift,
		ServerAnyUID:            r.ServerAnyUID,
	}}
	in := &out.Inputs
	var err error
	if in.PVCName, err = r.EffectivePVCName(s); err != nil {
		return out, err
	}
	if in.Image, err = r.ServerImage(ctx, s); err != nil {
		return out, err
	}
	if in.RuntimeConfig, out.Generated, err = r.RuntimeConfig(ctx, s); err != nil {
		return out, err
	}
	if in.SecretEnv, in.SecretHash, err = r.secretEnv(ctx, s); err != nil {
		return out, err
	}
	if in.ServerTLSHash, err = r.serverTLSHash(ctx, s); err != nil {
		return out, err
	}
	if in.IdentityHash, err = r.identityHash(ctx, s); err != nil {
		return out, err
	}
	if out.CABundle, err = r.CABundle(ctx, s); err != nil {
		return out, err
	}
	if out.CABundle.Data != "" {
		in.CABundleHash = contenthash.H16([]byte(out.CABundle.Data))
	}
	return out, nil
}

// RuntimeConfig resolves the mounted config: nothing (inactive), the user's
// override ConfigMap key, or the generated ConfigMap (then with the
// generated config).
func (r *Resolver) RuntimeConfig(ctx context.Context, s *ogxv1beta1.OGXServer) (render.RuntimeConfig, *GeneratedConfig, error) {
	switch s.Spec.ConfigMode() {
	case ogxv1beta1.ConfigModeOverride:
		ref := *s.Spec.OverrideConfig
		rc := render.RuntimeConfig{Mode: ogxv1beta1.ConfigModeOverride, ConfigMapName: ref.Name, Key: ref.Key}
		text, err := r.ConfigMapKey(ctx, s.Namespace, ref, "spec.overrideConfig", PrefixConfigMap, "override config")
		if r.Partial && absent(err) {
			r.warn("annotation %s omitted: ConfigMap %s/%s of spec.overrideConfig is not in the input", render.AnnotationUserConfigHash, s.Namespace, ref.Name)
			return rc, nil, nil
		}
		if err != nil {
			return render.RuntimeConfig{}, nil, err
		}
		rc.Hash = contenthash.H16([]byte(text))
		return rc, nil, nil
	case ogxv1beta1.ConfigModeGenerated:
		g, err := r.Generated(ctx, s)
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
func (r *Resolver) secretEnv(ctx context.Context, s *ogxv1beta1.OGXServer) ([]ogxv1beta1.SecretEnvVar, string, error) {
	if s.Spec.ConfigMode() != ogxv1beta1.ConfigModeGenerated {
		return nil, "", nil
	}
	vars, errs := ogxv1beta1.SecretEnv(&s.Spec)
	if len(errs) > 0 {
		return nil, "", &UserError{Reason: ogxv1beta1.ReasonInvalidSpec, Err: errs.ToAggregate()}
	}
	entries := make([]SecretHashEntry, 0, len(vars))
	var missing []string
	for _, v := range vars {
		value, err := r.secretKey(ctx, s.Namespace, v.Ref, v.Path.String(), v.Name)
		if r.Partial && absent(err) {
			missing = append(missing, fmt.Sprintf("Secret %s/%s", s.Namespace, v.Ref.Name))
			continue
		}
		if err != nil {
			return nil, "", err
		}
		entries = append(entries, SecretHashEntry{Env: v.Name, Secret: v.Ref.Name, Key: v.Ref.Key, Value: value})
	}
	if len(missing) > 0 {
		r.warn("annotation %s omitted: %s not in the input", render.AnnotationSecretHash, joinMissing(missing))
		return vars, "", nil
	}
	if len(entries) == 0 {
		return vars, "", nil
	}
	key, err := r.Source.HashKey()
	if err != nil {
		return nil, "", err
	}
	return vars, SecretHash(key, entries), nil
}

// serverTLSHash hashes the serving certificate and key of spec.network.tls.
func (r *Resolver) serverTLSHash(ctx context.Context, s *ogxv1beta1.OGXServer) (string, error) {
	t := s.Spec.ServerTLS()
	if t == nil {
		return "", nil
	}
	path := field.NewPath("spec", "network", "tls", "secretName").String()
	missing := func(ns, name, key, _ string) string { return MissingServerTLSKeyMessage(ns, name, key) }
	crt, err := r.secretKeyWith(ctx, s.Namespace, ogxv1beta1.SecretKeyRef{Name: t.SecretName, Key: corev1.TLSCertKey}, path, "OGX_TLS_CERTFILE", missing)
	if r.Partial && absent(err) {
		r.warn("annotation %s omitted: Secret %s/%s of spec.network.tls is not in the input", render.AnnotationServerTLSHash, s.Namespace, t.SecretName)
		return "", nil
	}
	if err != nil {
		return "", err
	}
	key, err := r.secretKeyWith(ctx, s.Namespace, ogxv1beta1.SecretKeyRef{Name: t.SecretName, Key: corev1.TLSPrivateKeyKey}, path, "OGX_TLS_KEYFILE", missing)
	if err != nil {
		return "", err
	}
	return PairHash(crt, key), nil
}

// identityHash hashes the client certificate and key of spec.tls.identity.
func (r *Resolver) identityHash(ctx context.Context, s *ogxv1beta1.OGXServer) (string, error) {
	if s.Spec.TLS == nil || s.Spec.TLS.Identity == nil {
		return "", nil
	}
	id := s.Spec.TLS.Identity
	var missing []string
	crt, err := r.ConfigMapKey(ctx, s.Namespace, id.Cert, "spec.tls.identity.cert", PrefixConfigMap, "client certificate")
	if r.Partial && absent(err) {
		missing, err = append(missing, fmt.Sprintf("ConfigMap %s/%s", s.Namespace, id.Cert.Name)), nil
	}
	if err != nil {
		return "", err
	}
	key, err := r.secretKey(ctx, s.Namespace, id.Key, "spec.tls.identity.key", render.EnvTLSClientKey)
	if r.Partial && absent(err) {
		missing, err = append(missing, fmt.Sprintf("Secret %s/%s", s.Namespace, id.Key.Name)), nil
	}
	if err != nil {
		return "", err
	}
	if len(missing) > 0 {
		r.warn("annotation %s omitted: %s of spec.tls.identity not in the input", render.AnnotationIdentityHash, joinMissing(missing))
		return "", nil
	}
	return PairHash([]byte(crt), key), nil
}

// ServerCA reports whether the server TLS Secret carries a ca.crt, which the
// ServiceMonitor's scrape then verifies against (read from the watched view,
// like the status probe).
func (r *Resolver) ServerCA(s *ogxv1beta1.OGXServer) bool {
	t := s.Spec.ServerTLS()
	if t == nil {
		return false
	}
	sec, err := r.Source.CachedSecret(s.Namespace, t.SecretName)
	if err != nil {
		return false
	}
	v, _ := SecretValue(sec, render.ServerTLSCAKey)
	return len(v) > 0
}

// joinMissing words a list of missing objects, sorted and without repeats.
func joinMissing(items []string) string {
	sort.Strings(items)
	out := items[:0]
	for i, s := range items {
		if i == 0 || s != items[i-1] {
			out = append(out, s)
		}
	}
	if len(out) == 1 {
		return out[0] + " is"
	}
	return strings.Join(out, ", ") + " are"
}
