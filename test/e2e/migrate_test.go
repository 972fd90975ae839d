package e2e

import (
	"bytes"
	"context"
	"os/exec"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/test/framework"
)

// legacyManifest is a LlamaStackDistribution as a user wrote it: storage,
// and no replicas (the legacy CRD defaults them to 1).
const legacyManifest = `apiVersion: llamastack.io/v1alpha1
kind: LlamaStackDistribution
metadata:
  name: legacy
spec:
  server:
    distribution:
      name: starter
    storage:
      size: 1Gi
`

// TestMigratedInstallKeepsServing migrates a running legacy install with
// storage and no replicas the way a user would: the legacy file through
// the real `kubectl ogx migrate`, the output applied as is. The new
// server must run pods on the legacy claim, not scale to 0 (migrate once
// turned the absent replicas into 0, and adoption scaled the legacy
// workload down too: an outage).
func TestMigratedInstallKeepsServing(t *testing.T) {
	ns := cp.CreateNamespace(t, "migrate")
	kube, ogx := clients(t)
	ctx := t.Context()
	legacyInstall(t, ns, "legacy")
	startController(t, ns)

	bin, err := buildPlugin()
	if err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, "migrate", "-f", "-")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewBufferString(legacyManifest), &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("migrate: %v\n%s", err, errOut.String())
	}
	t.Logf("migrate output:\n%s\nwarnings:\n%s", out.String(), errOut.String())
	var obj unstructured.Unstructured
	if err := yaml.Unmarshal(out.Bytes(), &obj.Object); err != nil {
		t.Fatalf("migrate output is not one object: %v", err)
	}
	if obj.GetNamespace() != "" {
		t.Errorf("migrate invented namespace %q", obj.GetNamespace())
	}
	// As `kubectl apply -n <ns> -f -` would.
	obj.SetNamespace(ns)
	if _, err := dynamic.NewForConfigOrDie(cp.Config()).Resource(ogxv1beta1.SchemeGroupVersion.WithResource("ogxservers")).Namespace(ns).
		Create(ctx, &obj, metav1.CreateOptions{FieldManager: "kubectl"}); err != nil {
		t.Fatalf("applying the migrated OGXServer: %v", err)
	}
	name := obj.GetName()

	got := waitReady(t, ogx, ns, name, 3*time.Minute)
	assertCondition(t, got, "StorageAdopted", metav1.ConditionTrue, "StorageAdopted", "PVC legacy-pvc adopted")
	framework.Poll(t, time.Minute, "the migrated server's pods ready", func(ctx context.Context) (bool, error) {
		d, err := kube.AppsV1().Deployments(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return d.Spec.Replicas != nil && *d.Spec.Replicas == 1 && d.Status.ReadyReplicas == 1, nil
	})
	d, err := kube.AppsV1().Deployments(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	claim := ""
	for _, v := range d.Spec.Template.Spec.Volumes {
		if v.PersistentVolumeClaim != nil {
			claim = v.PersistentVolumeClaim.ClaimName
		}
	}
	if claim != "legacy-pvc" {
		t.Errorf("the migrated server mounts claim %q, want the legacy one, legacy-pvc", claim)
	}
	if _, err := kube.CoreV1().PersistentVolumeClaims(ns).Get(ctx, name+"-pvc", metav1.GetOptions{}); err == nil {
		t.Errorf("a fresh %s-pvc was created next to the legacy one", name)
	}
	legacy, err := kube.AppsV1().Deployments(ns).Get(ctx, "legacy", metav1.GetOptions{})
	if err != nil || legacy.Spec.Replicas == nil || *legacy.Spec.Replicas != 0 {
		t.Errorf("legacy Deployment: %v, replicas %v; want scaled to 0 after the hand-over", err, legacy.Spec.Replicas)
	}
}
