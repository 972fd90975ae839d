package controller

import (
	"context"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/record"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
	"github.com/ogx-k8s/ogx-controller/pkg/resolve"
)

// countingGenerator is a ConfigGenerator that counts its calls; the config
// names the base ConfigMap's content, so a new base gives a new hash.
type countingGenerator struct {
	calls atomic.Int64
	env   *sfEnv
}

func (g *countingGenerator) Generate(_ context.Context, s *ogxv1beta1.OGXServer) (resolve.GeneratedConfig, error) {
	g.calls.Add(1)
	cm, err := g.env.m.Caches.For(s.Namespace).ConfigMaps.ConfigMaps(s.Namespace).Get(s.Spec.BaseConfig.Name)
	if err != nil {
		return resolve.GeneratedConfig{}, err
	}
	base := cm.Data["config.yaml"]
	hash := map[string]string{"v1": "1111111111111111", "v2": "2222222222222222"}[base]
	return resolve.GeneratedConfig{ConfigYAML: "version: 2\n", Hash: hash, BaseHash: "sha256:" + base, BaseSource: "configmap"}, nil
}

// TestConfigGeneratedOncePerGeneration: the configmap, deployment and status
// passes of one generation share one generation of the config; passes that
// find nothing new generate nothing; status reads the result and never
// generates; a new base (ConfigMap resourceVersion) generates again.
func TestConfigGeneratedOncePerGeneration(t *testing.T) {
	// The fake clientset keeps resourceVersions as given; an API server
	// would move it on every write.
	base := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "base", Namespace: sfNamespace, ResourceVersion: "1",
		Labels: map[string]string{ogxv1beta1.WatchLabel: "true"}}, Data: map[string]string{"config.yaml": "v1"}}
	s := sfServer(sfNamespace, sfName, sfUID, func(sp *ogxv1beta1.OGXServerSpec) {
		sp.BaseConfig = &ogxv1beta1.ConfigMapKeyRef{Name: "base", Key: "config.yaml"}
		sp.Storage = &ogxv1beta1.StateStorageSpec{KV: &ogxv1beta1.KVStorageSpec{}}
	})
	gen := &countingGenerator{}
	e := newSFEnv(t, Options{ConfigGenerator: gen}, []runtime.Object{base}, s)
	gen.env = e

	pass := func() {
		t.Helper()
		e.syncChildren(sfKey)
		e.waitCaught()
		if _, err := e.m.status.sync(e.ctx, sfKey); err != nil {
			t.Fatal(err)
		}
	}
	pass()
	pass()
	if n := gen.calls.Load(); n != 1 {
		t.Errorf("%d generations for one generation and base, want 1", n)
	}
	got, err := e.ogx.OgxV1beta1().OGXServers(sfNamespace).Get(e.ctx, sfName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rd := got.Status.ResolvedDistribution; rd == nil || rd.ConfigHash != "sha256:v1" || rd.ConfigSource != "configmap" {
		t.Errorf("status resolvedDistribution = %+v, want the generated config's base (sha256:v1, configmap)", rd)
	}
	if _, err := e.kube.CoreV1().ConfigMaps(sfNamespace).Get(e.ctx, render.GeneratedConfigName(sfName, "1111111111111111"), metav1.GetOptions{}); err != nil {
		t.Errorf("generated ConfigMap: %v", err)
	}

	// A new base: one more generation, shared again.
	base = base.DeepCopy()
	base.Data["config.yaml"] = "v2"
	base.ResourceVersion = "2"
	if _, err := e.kube.CoreV1().ConfigMaps(sfNamespace).Update(e.ctx, base, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	e.waitCaught()
	pass()
	if n := gen.calls.Load(); n != 2 {
		t.Errorf("%d generations after the base changed, want 2", n)
	}
	// Status alone never generates.
	e.m.Resolver.Memo.Update(sfUID, func(memoEntry, bool) (memoEntry, bool) { return memoEntry{}, false })
	if _, err := e.m.status.sync(e.ctx, sfKey); err != nil {
		t.Fatal(err)
	}
	if n := gen.calls.Load(); n != 2 {
		t.Errorf("a status pass generated the config (%d calls)", n)
	}
	// ... and keeps what it reported rather than blanking it.
	got, err = e.ogx.OgxV1beta1().OGXServers(sfNamespace).Get(e.ctx, sfName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got.Status.ResolvedDistribution.Image += "@sha256:" + strings.Repeat("0", 64)
	in := e.m.status.gather(e.ctx, got)
	if in.configSource != "configmap" || in.configHash != got.Status.ResolvedDistribution.ConfigHash || in.image != got.Status.ResolvedDistribution.Image {
		t.Errorf("after a memo miss status would report source %q, hash %q, image %q; want the last reported %+v",
			in.configSource, in.configHash, in.image, got.Status.ResolvedDistribution)
	}
}

// TestConfigMemoKeepsNewestGeneration: a pass that read an older generation
// and finishes late does not take the memo back; a new base at the same
// generation replaces the entry and tells status.
func TestConfigMemoKeepsNewestGeneration(t *testing.T) {
	r := record.New()
	m := newConfigMemo(r)
	var told []string
	r.AddHandler(func(key string) { told = append(told, key) })
	m.put("u", "ns/s", memoKey{generation: 2, base: "a"}, resolve.GeneratedConfig{Hash: "two"})
	m.put("u", "ns/s", memoKey{generation: 1, base: "a"}, resolve.GeneratedConfig{Hash: "one"})
	if g, ok := m.Current("u", 2); !ok || g.Hash != "two" {
		t.Errorf("current(2) = %+v, %v; want the generation 2 entry", g, ok)
	}
	m.put("u", "ns/s", memoKey{generation: 2, base: "a"}, resolve.GeneratedConfig{Hash: "two"})
	m.put("u", "ns/s", memoKey{generation: 2, base: "b"}, resolve.GeneratedConfig{Hash: "two-b"})
	if g, _ := m.Current("u", 2); g.Hash != "two-b" {
		t.Errorf("current(2) = %+v, want the new base's entry", g)
	}
	if want := []string{"ns/s", "ns/s"}; !slices.Equal(told, want) {
		t.Errorf("status told %v, want %v (the first entry and the new base only)", told, want)
	}
}

// TestKeepReportedConfigOnlyForTheSameSource: while a new generation's
// config is not generated, status keeps the reported base only if the spec
// still takes its base from the same kind of source.
func TestKeepReportedConfigOnlyForTheSameSource(t *testing.T) {
	withBase := func(sp *ogxv1beta1.OGXServerSpec) {
		sp.BaseConfig = &ogxv1beta1.ConfigMapKeyRef{Name: "base", Key: "config.yaml"}
	}
	for _, tc := range []struct {
		name     string
		reported string
		spec     func(*ogxv1beta1.OGXServerSpec)
		kept     bool
	}{
		{"base ConfigMap, still", "configmap", withBase, true},
		{"image labels, still", "oci-label", func(*ogxv1beta1.OGXServerSpec) {}, true},
		{"was override", "override", withBase, false},
		{"was built in", "builtin", func(*ogxv1beta1.OGXServerSpec) {}, false},
		{"image labels, now a base ConfigMap", "oci-label", withBase, false},
	} {
		s := sfServer(sfNamespace, sfName, sfUID, tc.spec)
		s.Status.ResolvedDistribution = &ogxv1beta1.ResolvedDistribution{Image: "img@sha256:" + strings.Repeat("0", 64),
			ConfigSource: tc.reported, ConfigHash: "sha256:old"}
		in := statusInputs{image: "img"}
		keepReportedConfig(s, &in)
		if kept := in.configHash == "sha256:old"; kept != tc.kept || (kept && in.image != s.Status.ResolvedDistribution.Image) {
			t.Errorf("%s: source %q hash %q image %q; kept = %v, want %v", tc.name, in.configSource, in.configHash, in.image, kept, tc.kept)
		}
	}
}

// TestConfigMemoFirstPutWins: two controllers that generated the same
// generation and base at once get the first config put, so they never
// disagree on the ConfigMap's name.
func TestConfigMemoFirstPutWins(t *testing.T) {
	m := newConfigMemo(record.New())
	key := memoKey{generation: 1, base: "image:tag"}
	first := m.put("u", "ns/s", key, resolve.GeneratedConfig{Hash: "a"})
	second := m.put("u", "ns/s", key, resolve.GeneratedConfig{Hash: "b"})
	if first.Hash != "a" || second.Hash != "a" {
		t.Errorf("puts returned %q and %q, want the first config twice", first.Hash, second.Hash)
	}
	s := &ogxv1beta1.OGXServer{}
	s.UID, s.Generation = "u", 1
	g, err := m.Generated(s, "image:tag", func() (resolve.GeneratedConfig, error) { return resolve.GeneratedConfig{Hash: "c"}, nil })
	if err != nil || g.Hash != "a" {
		t.Errorf("Generated = %q, %v; want the stored config", g.Hash, err)
	}
}
