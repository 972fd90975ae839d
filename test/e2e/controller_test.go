package e2e

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/test/framework"
)

// TestStarterLifecycle drives one OGXServer through its life on the real
// control plane: Ready, children as specified, drift reverted by events,
// a spec change rolled out, and deletion collecting every child but the PVC.
func TestStarterLifecycle(t *testing.T) {
	ns := cp.CreateNamespace(t, "lifecycle")
	kube, ogx := clients(t)
	ctx := t.Context()
	startController(t, ns)

	size := resource.MustParse("1Gi")
	if _, err := cp.CreateHostPathPV(ctx, "pv-"+ns, size, ""); err != nil {
		t.Fatalf("creating PV: %v", err)
	}
	s := newServer(ns, "llm")
	s.Spec.Workload = &ogxv1beta1.WorkloadSpec{Storage: &ogxv1beta1.PVCStorageSpec{Size: &size}}
	if _, err := ogx.OgxV1beta1().OGXServers(ns).Create(ctx, s, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating OGXServer: %v", err)
	}
	got := waitReady(t, ogx, ns, "llm", 2*time.Minute)
	if got.Status.Phase != ogxv1beta1.PhaseReady || got.Status.AvailableReplicas != 1 {
		t.Errorf("status = phase %q available %d, want Ready 1", got.Status.Phase, got.Status.AvailableReplicas)
	}
	if want := "http://llm-service." + ns + ".svc.cluster.local:8321"; got.Status.ServiceURL != want {
		t.Errorf("serviceURL = %q, want %q", got.Status.ServiceURL, want)
	}

	// Children as specified.
	d, err := kube.AppsV1().Deployments(ns).Get(ctx, "llm", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("Deployment: %v", err)
	}
	if c := d.Spec.Template.Spec.Containers; len(c) != 1 || c[0].Name != "ogx" || c[0].Image != "docker.io/ogxai/distribution-starter:latest" {
		t.Errorf("containers = %+v", c)
	}
	if d.Spec.Strategy.Type != appsv1.RecreateDeploymentStrategyType {
		t.Errorf("strategy = %s, want Recreate with storage", d.Spec.Strategy.Type)
	}
	if sa := d.Spec.Template.Spec.ServiceAccountName; sa != "llm-sa" {
		t.Errorf("serviceAccountName = %q", sa)
	}
	svc, err := kube.CoreV1().Services(ns).Get(ctx, "llm-service", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("Service: %v", err)
	}
	if p := svc.Spec.Ports; len(p) != 2 || p[0].Port != 8321 || p[1].Port != 9464 {
		t.Errorf("service ports = %+v", p)
	}
	if _, err := kube.CoreV1().ServiceAccounts(ns).Get(ctx, "llm-sa", metav1.GetOptions{}); err != nil {
		t.Errorf("ServiceAccount: %v", err)
	}
	pvc, err := kube.CoreV1().PersistentVolumeClaims(ns).Get(ctx, "llm-pvc", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("PVC: %v", err)
	}
	if len(pvc.OwnerReferences) != 0 {
		t.Errorf("PVC has owner references %v; it must outlive the OGXServer", pvc.OwnerReferences)
	}

	// A hand-deleted Service is recreated from its delete event.
	if err := kube.CoreV1().Services(ns).Delete(ctx, "llm-service", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Poll(t, 10*time.Second, "Service recreated", func(ctx context.Context) (bool, error) {
		got, err := kube.CoreV1().Services(ns).Get(ctx, "llm-service", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return got.UID != svc.UID, nil
	})

	// A hand edit of a field we own is reverted.
	patch, _ := json.Marshal(map[string]any{"spec": map[string]any{"template": map[string]any{"spec": map[string]any{
		"containers": []any{map[string]any{"name": "ogx", "image": "registry.invalid/hand-edited:1"}}}}}})
	if _, err := kube.AppsV1().Deployments(ns).Patch(ctx, "llm", types.StrategicMergePatchType, patch,
		metav1.PatchOptions{FieldManager: "kubectl-edit"}); err != nil {
		t.Fatal(err)
	}
	framework.Poll(t, 10*time.Second, "hand-edited image reverted", func(ctx context.Context) (bool, error) {
		d, err := kube.AppsV1().Deployments(ns).Get(ctx, "llm", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return d.Spec.Template.Spec.Containers[0].Image == "docker.io/ogxai/distribution-starter:latest", nil
	})

	// A spec change rolls the Deployment and is reported by generation.
	updateServer(t, ogx, ns, "llm", func(cur *ogxv1beta1.OGXServer) {
		cur.Spec.Workload.Overrides = &ogxv1beta1.WorkloadOverrides{Env: []corev1.EnvVar{{Name: "EXTRA", Value: "1"}}}
	})
	framework.Poll(t, 30*time.Second, "env rolled out", func(ctx context.Context) (bool, error) {
		d, err := kube.AppsV1().Deployments(ns).Get(ctx, "llm", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		env := d.Spec.Template.Spec.Containers[0].Env
		return len(env) > 0 && env[len(env)-1].Name == "EXTRA", nil
	})
	waitReady(t, ogx, ns, "llm", time.Minute)

	// Deleting the OGXServer collects its children and keeps the PVC.
	if err := ogx.OgxV1beta1().OGXServers(ns).Delete(ctx, "llm", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitGone(t, 90*time.Second, "Deployment llm", func(ctx context.Context) error {
		_, err := kube.AppsV1().Deployments(ns).Get(ctx, "llm", metav1.GetOptions{})
		return err
	})
	waitGone(t, 30*time.Second, "Service llm-service", func(ctx context.Context) error {
		_, err := kube.CoreV1().Services(ns).Get(ctx, "llm-service", metav1.GetOptions{})
		return err
	})
	if _, err := kube.CoreV1().PersistentVolumeClaims(ns).Get(ctx, "llm-pvc", metav1.GetOptions{}); err != nil {
		t.Errorf("PVC after deletion: %v (it must be kept)", err)
	}
}
