package resolve

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

const testNS = "team-a"

// mapSource is a Source of in-memory objects: absent objects are not
// found, unlabelled ones not watched, and fail makes every reference
// lookup fail with it.
type mapSource struct {
	configMaps map[string]*corev1.ConfigMap
	secrets    map[string]*corev1.Secret
	adopted    []string
	base       []byte
	fail       error
	imageBases int
	pinned     []string // the tags PinnedImage was asked to pin
}

func lookup[T any](m map[string]*T, name string, labels func(*T) map[string]string, fail error) (*T, error) {
	if fail != nil {
		return nil, fail
	}
	o, ok := m[name]
	switch {
	case !ok:
		return nil, ErrNotFound
	case labels(o)[ogxv1beta1.WatchLabel] != "true":
		return nil, ErrNotWatched
	}
	return o, nil
}

func (m *mapSource) ConfigMap(_ context.Context, _, name string) (*corev1.ConfigMap, error) {
	return m.CachedConfigMap("", name)
}
func (m *mapSource) Secret(_ context.Context, _, name string) (*corev1.Secret, error) {
	return m.CachedSecret("", name)
}
func (m *mapSource) CachedConfigMap(_, name string) (*corev1.ConfigMap, error) {
	return lookup(m.configMaps, name, func(c *corev1.ConfigMap) map[string]string { return c.Labels }, m.fail)
}
func (m *mapSource) CachedSecret(_, name string) (*corev1.Secret, error) {
	return lookup(m.secrets, name, func(s *corev1.Secret) map[string]string { return s.Labels }, m.fail)
}
func (m *mapSource) GeneratedConfigMap(ns, name string) (*corev1.ConfigMap, error) {
	return m.CachedConfigMap(ns, name)
}
func (m *mapSource) AdoptedPVCs(string, string) ([]string, error) { return m.adopted, nil }
func (m *mapSource) PVC(context.Context, string, string) (*corev1.PersistentVolumeClaim, error) {
	return nil, ErrNotFound
}
func (m *mapSource) ImageOverrides() map[string]string { return nil }
func (m *mapSource) OptionalAPIs() (bool, bool)        { return false, false }
func (m *mapSource) HashKey() ([]byte, error)          { return []byte(testHashKey), nil }

// testHashKey keys secret.hash/referenced in these tests.
const testHashKey = "test-hash-key"

func (m *mapSource) GivenBase() ([]byte, bool) { return m.base, m.base != nil }

// PinnedImage pins every tag to testDigest, recording what it was asked.
func (m *mapSource) PinnedImage(_ context.Context, _ *ogxv1beta1.OGXServer, ref string) (string, error) {
	m.pinned = append(m.pinned, ref)
	return ref + "@" + testDigest, nil
}

// testDigest is the digest mapSource pins tags to.
const testDigest = "sha256:0000000000000000000000000000000000000000000000000000000000000001"

func (m *mapSource) ImageBase(_ context.Context, _ *ogxv1beta1.OGXServer, image func() (string, error)) (Base, error) {
	m.imageBases++
	img, err := image()
	if err != nil {
		return Base{}, err
	}
	return Base{}, fmt.Errorf("no labels read for %s", img)
}

var watchedLabels = map[string]string{ogxv1beta1.WatchLabel: "true"}

func cm(name string, labels map[string]string, data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: testNS, Labels: labels}, Data: data}
}

func server(mut func(*ogxv1beta1.OGXServerSpec)) *ogxv1beta1.OGXServer {
	s := &ogxv1beta1.OGXServer{ObjectMeta: metav1.ObjectMeta{Name: "demo", Namespace: testNS},
		Spec: ogxv1beta1.OGXServerSpec{Distribution: ogxv1beta1.DistributionSpec{Name: ptr.To("starter")}}}
	if mut != nil {
		mut(&s.Spec)
	}
	return s
}

func newResolver(src *mapSource, partial bool, warnings *[]string) *Resolver {
	r := &Resolver{Source: src, Table: NewDistributionTable(func(string) string { return "" }), Partial: partial}
	if warnings != nil {
		r.Warn = func(format string, args ...any) { *warnings = append(*warnings, fmt.Sprintf(format, args...)) }
	}
	return r
}

func withOverride(s *ogxv1beta1.OGXServerSpec) {
	s.OverrideConfig = &ogxv1beta1.ConfigMapKeyRef{Name: "custom", Key: "config.yaml"}
}

// TestReferenceOutcomes pins the two ways a reference can be missing, the
// missing key, and a failed lookup, as the controller reports them.
func TestReferenceOutcomes(t *testing.T) {
	transient := errors.New("connection refused")
	for name, tc := range map[string]struct {
		src        *mapSource
		wantReason string
		wantMsg    string
	}{
		"absent": {&mapSource{}, ogxv1beta1.ReasonReferenceNotFound,
			"failed to find referenced ConfigMap team-a/custom: not found (referenced by spec.overrideConfig)"},
		"unlabelled": {&mapSource{configMaps: map[string]*corev1.ConfigMap{"custom": cm("custom", nil, nil)}}, ogxv1beta1.ReasonReferenceNotWatched,
			"failed to find referenced ConfigMap team-a/custom: exists but lacks label ogx.io/watch=true (referenced by spec.overrideConfig)"},
		"key absent": {&mapSource{configMaps: map[string]*corev1.ConfigMap{"custom": cm("custom", watchedLabels, nil)}}, ogxv1beta1.ReasonReferenceNotFound,
			"failed to find override config key 'config.yaml' in ConfigMap team-a/custom"},
		"lookup fails": {&mapSource{fail: transient}, "",
			"failed to find referenced ConfigMap team-a/custom: connection refused"},
	} {
		t.Run(name, func(t *testing.T) {
			_, _, err := newResolver(tc.src, false, nil).RuntimeConfig(context.Background(), server(withOverride))
			if err == nil || err.Error() != tc.wantMsg {
				t.Fatalf("err = %v, want %q", err, tc.wantMsg)
			}
			var ue *UserError
			switch {
			case tc.wantReason == "" && IsUserError(err):
				t.Fatalf("a failed lookup is transient, got user error %v", err)
			case tc.wantReason == "" && !errors.Is(err, transient):
				t.Fatalf("err %v does not wrap the lookup's error", err)
			case tc.wantReason != "" && (!errors.As(err, &ue) || ue.Reason != tc.wantReason):
				t.Fatalf("err = %#v, want reason %s", err, tc.wantReason)
			}
		})
	}
}

// TestPartialOmitsMissingReferences: a Partial resolver leaves out the
// hashes of objects its source lacks, with one warning each, and still
// fails on an unlabelled one; a strict one fails on the first absence.
func TestPartialOmitsMissingReferences(t *testing.T) {
	mut := func(s *ogxv1beta1.OGXServerSpec) {
		withOverride(s)
		s.Network = &ogxv1beta1.NetworkSpec{TLS: &ogxv1beta1.ServerTLSSpec{SecretName: "serving"}}
	}
	var warnings []string
	in, err := newResolver(&mapSource{}, true, &warnings).Inputs(context.Background(), server(mut))
	if err != nil {
		t.Fatal(err)
	}
	if in.RuntimeConfig.Hash != "" || in.ServerTLSHash != "" {
		t.Errorf("hashes of missing objects: config %q, TLS %q", in.RuntimeConfig.Hash, in.ServerTLSHash)
	}
	want := []string{
		"annotation configmap.hash/user-config omitted: ConfigMap team-a/custom of spec.overrideConfig is not in the input",
		"annotation secret.hash/tls omitted: Secret team-a/serving of spec.network.tls is not in the input",
	}
	if strings.Join(warnings, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(warnings, "\n"), strings.Join(want, "\n"))
	}
	if _, err := newResolver(&mapSource{}, false, nil).Inputs(context.Background(), server(mut)); !IsUserError(err) ||
		!strings.Contains(err.Error(), "custom: not found") {
		t.Errorf("strict: err = %v, want the override ConfigMap not found", err)
	}
	unlabelled := &mapSource{configMaps: map[string]*corev1.ConfigMap{"custom": cm("custom", nil, nil)}}
	if _, err := newResolver(unlabelled, true, nil).Inputs(context.Background(), server(mut)); err == nil ||
		!strings.Contains(err.Error(), "lacks label") {
		t.Errorf("partial, unlabelled: err = %v, want lacks label", err)
	}
}

// TestBaseOrder: a given base wins over spec.baseConfig; a missing
// spec.baseConfig fails a strict resolver and sends a Partial one to the
// image's labels.
func TestBaseOrder(t *testing.T) {
	const base = "version: 2\napis: []\n"
	mut := func(s *ogxv1beta1.OGXServerSpec) {
		s.BaseConfig = &ogxv1beta1.ConfigMapKeyRef{Name: "base", Key: "config.yaml"}
		s.Storage = &ogxv1beta1.StateStorageSpec{}
	}
	ctx := context.Background()
	given := &mapSource{base: []byte(base)}
	if g, err := newResolver(given, false, nil).Generate(ctx, server(mut)); err != nil || g.BaseSource != "" {
		t.Errorf("given base: %+v, %v", g, err)
	}
	fromCM := &mapSource{configMaps: map[string]*corev1.ConfigMap{"base": cm("base", watchedLabels, map[string]string{"config.yaml": base})}}
	if g, err := newResolver(fromCM, false, nil).Generate(ctx, server(mut)); err != nil || g.BaseSource != "configmap" {
		t.Errorf("spec.baseConfig: %+v, %v", g, err)
	}
	strict := &mapSource{}
	if _, err := newResolver(strict, false, nil).Generate(ctx, server(mut)); !strings.Contains(fmt.Sprint(err), "base ConfigMap team-a/base: not found") || strict.imageBases != 0 {
		t.Errorf("strict, absent: err = %v, image reads %d", err, strict.imageBases)
	}
	partial := &mapSource{}
	if _, err := newResolver(partial, true, nil).Generate(ctx, server(mut)); !strings.Contains(fmt.Sprint(err), "no labels read") || partial.imageBases != 1 {
		t.Errorf("partial, absent: err = %v, image reads %d", err, partial.imageBases)
	}
}

// TestHashCollision: a ConfigMap of the generated name with other content
// is refused.
func TestHashCollision(t *testing.T) {
	const base = "version: 2\napis: []\n"
	mut := func(s *ogxv1beta1.OGXServerSpec) { s.Storage = &ogxv1beta1.StateStorageSpec{} }
	src := &mapSource{base: []byte(base), configMaps: map[string]*corev1.ConfigMap{}}
	r := newResolver(src, false, nil)
	g, err := r.Generated(context.Background(), server(mut))
	if err != nil {
		t.Fatal(err)
	}
	name := render.GeneratedConfigName("demo", g.Hash)
	src.configMaps[name] = cm(name, watchedLabels, map[string]string{render.GeneratedConfigKey: g.ConfigYAML})
	if _, err := r.Generated(context.Background(), server(mut)); err != nil {
		t.Fatalf("same content: %v", err)
	}
	src.configMaps[name] = cm(name, watchedLabels, map[string]string{render.GeneratedConfigKey: "other"})
	if _, err := r.Generated(context.Background(), server(mut)); err == nil || !strings.Contains(err.Error(), "hash collision") {
		t.Fatalf("other content: err = %v", err)
	}
}

// TestEffectivePVCName: N-pvc, the one adopted PVC, or a user error for
// several.
func TestEffectivePVCName(t *testing.T) {
	for _, tc := range []struct {
		adopted []string
		want    string
		wantErr string
	}{
		{nil, "demo-pvc", ""},
		{[]string{"legacy-pvc"}, "legacy-pvc", ""},
		{[]string{"b-pvc", "a-pvc"}, "", `multiple adopted PVCs found for instance "demo": [a-pvc b-pvc]`},
	} {
		got, err := newResolver(&mapSource{adopted: tc.adopted}, false, nil).EffectivePVCName(server(nil))
		if got != tc.want || (tc.wantErr == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.wantErr)) {
			t.Errorf("adopted %v: %q, %v; want %q, %q", tc.adopted, got, err, tc.want, tc.wantErr)
		}
	}
}
