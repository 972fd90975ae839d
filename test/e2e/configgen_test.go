package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/configgen/oci/ocitest"
	"github.com/ogx-k8s/ogx-controller/test/framework"
)

// baseConfigYAML is the base config of every generated-mode test.
const baseConfigYAML = ocitest.StarterBase

// TestGeneratedConfig: a declarative OGXServer gets a generated, immutable,
// hashed ConfigMap that the Deployment mounts; secrets reach the pod only as
// secretKeyRef env vars; changing a provider makes a new ConfigMap and rolls
// the Deployment; a Secret value change rolls it too; superseded ConfigMaps
// are collected down to the retention minimum; no ConfigMap ever holds a
// secret value.
func TestGeneratedConfig(t *testing.T) {
	ns := cp.CreateNamespace(t, "configgen")
	kube, ogx := clients(t)
	ctx := t.Context()
	startController(t, ns)
	const secretValue = "s3cr3t-token-value-xyz"
	mustCreate(t, kube, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "base", Namespace: ns, Labels: watched(nil)},
		Data: map[string]string{"config.yaml": baseConfigYAML}})
	mustCreate(t, kube, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "llm", Namespace: ns, Labels: watched(nil)},
		Data: map[string][]byte{"token": []byte(secretValue)}})

	s := newServer(ns, "gen")
	s.Spec.BaseConfig = &ogxv1beta1.ConfigMapKeyRef{Name: "base", Key: "config.yaml"}
	s.Spec.Providers = &ogxv1beta1.ProvidersSpec{Inference: &ogxv1beta1.InferenceProviders{Remote: &ogxv1beta1.RemoteInferenceProviders{
		Vllm: []ogxv1beta1.VLLMProvider{{Endpoint: "http://vllm-a:8000/v1", APIToken: &ogxv1beta1.SecretKeyRef{Name: "llm", Key: "token"}}}}}}
	s.Spec.Resources = &ogxv1beta1.ResourcesSpec{Models: []ogxv1beta1.ModelSpec{{Name: "llama"}}}
	if _, err := ogx.OgxV1beta1().OGXServers(ns).Create(ctx, s, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	got := waitReady(t, ogx, ns, "gen", 2*time.Minute)
	cg := got.Status.ConfigGeneration
	if cg == nil || !strings.HasPrefix(cg.ConfigMapName, "gen-config-") || cg.ProviderCount != 1 || cg.ResourceCount != 1 {
		t.Fatalf("configGeneration = %+v", cg)
	}
	assertCondition(t, got, "ConfigGenerated", metav1.ConditionTrue, "ConfigGenerationSucceeded", "Generated config.yaml with 1 providers and 1 resources")
	if rd := got.Status.ResolvedDistribution; rd == nil || rd.ConfigSource != "configmap" || !strings.HasPrefix(rd.ConfigHash, "sha256:") {
		t.Errorf("resolvedDistribution = %+v", rd)
	}
	first := cg.ConfigMapName
	cm, err := kube.CoreV1().ConfigMaps(ns).Get(ctx, first, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if cm.Immutable == nil || !*cm.Immutable || !strings.Contains(cm.Data["config.yaml"], "${env.OGX_REMOTE_VLLM_API_TOKEN}") {
		t.Errorf("generated ConfigMap: immutable %v, config:\n%s", cm.Immutable, cm.Data["config.yaml"])
	}
	d, _ := kube.AppsV1().Deployments(ns).Get(ctx, "gen", metav1.GetOptions{})
	if !mountsConfig(d.Spec.Template.Spec.Volumes, first) {
		t.Errorf("Deployment does not mount %s: %+v", first, d.Spec.Template.Spec.Volumes)
	}
	var tokenEnv *corev1.EnvVar
	for i, e := range d.Spec.Template.Spec.Containers[0].Env {
		if e.Name == "OGX_REMOTE_VLLM_API_TOKEN" {
			tokenEnv = &d.Spec.Template.Spec.Containers[0].Env[i]
		}
	}
	if tokenEnv == nil || tokenEnv.ValueFrom == nil || tokenEnv.ValueFrom.SecretKeyRef == nil || tokenEnv.Value != "" {
		t.Errorf("secret env = %+v, want a secretKeyRef", tokenEnv)
	}
	secretHash := d.Spec.Template.Annotations["secret.hash/referenced"]

	// A Secret value change rolls the pods.
	sec, _ := kube.CoreV1().Secrets(ns).Get(ctx, "llm", metav1.GetOptions{})
	sec.Data["token"] = []byte(secretValue + "-rotated")
	if _, err := kube.CoreV1().Secrets(ns).Update(ctx, sec, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Poll(t, 30*time.Second, "the rotated Secret rolled out", func(ctx context.Context) (bool, error) {
		d, err := kube.AppsV1().Deployments(ns).Get(ctx, "gen", metav1.GetOptions{})
		return err == nil && d.Spec.Template.Annotations["secret.hash/referenced"] != secretHash, err
	})

	// Changing a provider three times: new ConfigMaps, a rollout each, and
	// collection down to the retention rule.
	names := map[string]bool{first: true}
	for i, endpoint := range []string{"http://vllm-b:8000/v1", "http://vllm-c:8000/v1", "http://vllm-d:8000/v1"} {
		updateServer(t, ogx, ns, "gen", func(cur *ogxv1beta1.OGXServer) {
			cur.Spec.Providers.Inference.Remote.Vllm[0].Endpoint = endpoint
		})
		got = waitReady(t, ogx, ns, "gen", time.Minute)
		name := got.Status.ConfigGeneration.ConfigMapName
		if names[name] {
			t.Fatalf("change %d kept ConfigMap %s", i, name)
		}
		names[name] = true
		d, _ = kube.AppsV1().Deployments(ns).Get(ctx, "gen", metav1.GetOptions{})
		if !mountsConfig(d.Spec.Template.Spec.Volumes, name) {
			t.Errorf("after change %d the Deployment does not mount %s", i, name)
		}
	}
	// Old ReplicaSets still mount old configs and protect them; scale-down
	// leaves them at 0 replicas but they remain, so the protected set decides.
	framework.Poll(t, 30*time.Second, "superseded ConfigMaps collected", func(ctx context.Context) (bool, error) {
		list, err := kube.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{LabelSelector: "ogx.io/generated-config=true"})
		if err != nil {
			return false, err
		}
		rs, err := kube.AppsV1().ReplicaSets(ns).List(ctx, metav1.ListOptions{LabelSelector: "app.kubernetes.io/instance=gen"})
		if err != nil {
			return false, err
		}
		mounted := map[string]bool{}
		for _, r := range rs.Items {
			for _, v := range r.Spec.Template.Spec.Volumes {
				if v.ConfigMap != nil {
					mounted[v.ConfigMap.Name] = true
				}
			}
		}
		for _, cm := range list.Items {
			if !mounted[cm.Name] && cm.Name != got.Status.ConfigGeneration.ConfigMapName && len(list.Items) > 2 {
				return false, nil // an unprotected one beyond the minimum is still there
			}
		}
		return true, nil
	})
	// No ConfigMap holds the secret value.
	all, _ := kube.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
	for _, cm := range all.Items {
		for k, v := range cm.Data {
			if strings.Contains(v, secretValue) {
				t.Errorf("ConfigMap %s key %s contains the secret value", cm.Name, k)
			}
		}
	}
}

// TestBaseConfigUnavailable: without spec.baseConfig and without a way to
// read the image's labels, generation fails with the specified reason and a
// message pointing at spec.baseConfig; nothing else is created.
func TestBaseConfigUnavailable(t *testing.T) {
	ns := cp.CreateNamespace(t, "nobase")
	_, ogx := clients(t)
	ctx := t.Context()
	startController(t, ns)
	s := newServer(ns, "nobase")
	s.Spec.Storage = &ogxv1beta1.StateStorageSpec{}
	if _, err := ogx.OgxV1beta1().OGXServers(ns).Create(ctx, s, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Poll(t, time.Minute, "ConfigGenerated BaseConfigUnavailable", func(ctx context.Context) (bool, error) {
		got, err := ogx.OgxV1beta1().OGXServers(ns).Get(ctx, "nobase", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for _, c := range got.Status.Conditions {
			if c.Type == "ConfigGenerated" && c.Reason == "BaseConfigUnavailable" && strings.Contains(c.Message, "Set spec.baseConfig") {
				return got.Status.Phase == ogxv1beta1.PhaseFailed, nil
			}
		}
		return false, nil
	})
}

func mountsConfig(vols []corev1.Volume, name string) bool {
	for _, v := range vols {
		if v.Name == "user-config" && v.ConfigMap != nil && v.ConfigMap.Name == name {
			return true
		}
	}
	return false
}
