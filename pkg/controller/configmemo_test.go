package controller

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clocktesting "k8s.io/utils/clock/testing"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/controllertest"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/status"
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
	baseCM := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "base", Namespace: sfNamespace, ResourceVersion: "1",
		Labels: map[string]string{ogxv1beta1.WatchLabel: "true"}}, Data: map[string]string{"config.yaml": "v1"}}
	s := controllertest.Server(sfNamespace, sfName, sfUID, func(sp *ogxv1beta1.OGXServerSpec) {
		sp.BaseConfig = &ogxv1beta1.ConfigMapKeyRef{Name: "base", Key: "config.yaml"}
		sp.Storage = &ogxv1beta1.StateStorageSpec{KV: &ogxv1beta1.KVStorageSpec{}}
	})
	gen := &countingGenerator{}
	// Each status pass runs past the coalesce window, so what status
	// computes is what it stores.
	clock := clocktesting.NewFakePassiveClock(time.Now())
	e := newSFEnv(t, base.Options{ConfigGenerator: gen, Clock: clock}, []runtime.Object{baseCM}, s)
	statusPass := func() {
		t.Helper()
		clock.SetTime(clock.Now().Add(status.CoalesceWindow + time.Second))
		if _, err := e.m.status.Sync(e.ctx, sfKey); err != nil {
			t.Fatal(err)
		}
	}
	gen.env = e

	pass := func() {
		t.Helper()
		e.syncChildren(sfKey)
		e.WaitCaught()
		statusPass()
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
	baseCM = baseCM.DeepCopy()
	baseCM.Data["config.yaml"] = "v2"
	baseCM.ResourceVersion = "2"
	if _, err := e.kube.CoreV1().ConfigMaps(sfNamespace).Update(e.ctx, baseCM, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	e.WaitCaught()
	pass()
	if n := gen.calls.Load(); n != 2 {
		t.Errorf("%d generations after the base changed, want 2", n)
	}
	// Status alone never generates, and after a memo miss (a restart) it
	// keeps what it reported, a digest-pinned image included, rather than
	// blanking it.
	reported, err := e.ogx.OgxV1beta1().OGXServers(sfNamespace).Get(e.ctx, sfName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rd := reported.Status.ResolvedDistribution; rd == nil || rd.ConfigHash != "sha256:v2" {
		t.Fatalf("status resolvedDistribution = %+v, want the new base's config (sha256:v2)", rd)
	}
	reported.Status.ResolvedDistribution.Image += "@sha256:" + strings.Repeat("0", 64)
	if reported, err = e.ogx.OgxV1beta1().OGXServers(sfNamespace).UpdateStatus(e.ctx, reported, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	e.WaitCaught()
	e.m.Resolver.Memo.Drop(sfUID)
	statusPass()
	if n := gen.calls.Load(); n != 2 {
		t.Errorf("a status pass generated the config (%d calls)", n)
	}
	got, err = e.ogx.OgxV1beta1().OGXServers(sfNamespace).Get(e.ctx, sfName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rd := got.Status.ResolvedDistribution; rd == nil || rd.ConfigSource != "configmap" ||
		!equality.Semantic.DeepEqual(rd, reported.Status.ResolvedDistribution) {
		t.Errorf("after a memo miss status reports %+v, want the last reported %+v", rd, reported.Status.ResolvedDistribution)
	}
}
