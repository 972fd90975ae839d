package e2e

import (
	"bytes"
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
	"github.com/ogx-k8s/ogx-controller/pkg/resolve"
	"github.com/ogx-k8s/ogx-controller/test/framework"
)

// TestHashKeyRotation: the secret.hash/referenced annotation is keyed with
// the key of the operator's hash-key Secret, which the controller creates;
// deleting that Secret rotates the key, and the annotation follows.
func TestHashKeyRotation(t *testing.T) {
	ns := cp.CreateNamespace(t, "hashkey")
	kube, ogx := clients(t)
	ctx := t.Context()
	startController(t, ns)
	mustCreate(t, kube, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "base", Namespace: ns, Labels: watched(nil)},
		Data: map[string]string{"config.yaml": baseConfigYAML}})
	mustCreate(t, kube, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "llm", Namespace: ns, Labels: watched(nil)},
		Data: map[string][]byte{"token": []byte("weak")}})
	s := newServer(ns, "hk")
	s.Spec.BaseConfig = &ogxv1beta1.ConfigMapKeyRef{Name: "base", Key: "config.yaml"}
	s.Spec.Providers = &ogxv1beta1.ProvidersSpec{Inference: &ogxv1beta1.InferenceProviders{Remote: &ogxv1beta1.RemoteInferenceProviders{
		Vllm: []ogxv1beta1.VLLMProvider{{Endpoint: "http://vllm:8000/v1", APIToken: &ogxv1beta1.SecretKeyRef{Name: "llm", Key: "token"}}}}}}
	if _, err := ogx.OgxV1beta1().OGXServers(ns).Create(ctx, s, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitReady(t, ogx, ns, "hk", 2*time.Minute)

	// want is the annotation the current key gives, with the key.
	want := func(ctx context.Context) (string, []byte, error) {
		sec, err := kube.CoreV1().Secrets(ns).Get(ctx, render.HashKeySecretName, metav1.GetOptions{})
		if err != nil {
			return "", nil, err
		}
		key := sec.Data[render.HashKeyDataKey]
		return resolve.SecretHash(key, []resolve.SecretHashEntry{{Env: "OGX_REMOTE_VLLM_API_TOKEN", Secret: "llm", Key: "token", Value: []byte("weak")}}), key, nil
	}
	annotation := func(ctx context.Context) (string, error) {
		d, err := kube.AppsV1().Deployments(ns).Get(ctx, "hk", metav1.GetOptions{})
		if err != nil {
			return "", err
		}
		return d.Spec.Template.Annotations[render.AnnotationSecretHash], nil
	}
	var first []byte
	framework.Poll(t, 30*time.Second, "the annotation keyed with the created key", func(ctx context.Context) (bool, error) {
		w, key, err := want(ctx)
		if err != nil {
			return false, nil
		}
		got, err := annotation(ctx)
		first = key
		return err == nil && got == w, nil
	})
	if len(first) != 32 {
		t.Fatalf("hash key of %d bytes, want 32", len(first))
	}
	if err := kube.CoreV1().Secrets(ns).Delete(ctx, render.HashKeySecretName, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Poll(t, 60*time.Second, "a new key and the annotation keyed with it", func(ctx context.Context) (bool, error) {
		w, key, err := want(ctx)
		if err != nil || bytes.Equal(key, first) {
			return false, nil
		}
		got, err := annotation(ctx)
		return err == nil && got == w, nil
	})
}
