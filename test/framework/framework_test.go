package framework_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/ogx-k8s/ogx-controller/test/framework"
)

// cp is the package's control plane, started once by TestMain.
var cp *framework.ControlPlane

func TestMain(m *testing.M) {
	os.Exit(framework.RunMain(m, framework.Options{Full: true, Nodes: 1}, func(c *framework.ControlPlane) error {
		cp = c
		return nil
	}))
}

// rolloutTimeout bounds waits for the controller manager, scheduler and kwok;
// each normally acts within a second or two.
const rolloutTimeout = 60 * time.Second

func TestDeploymentBecomesAvailable(t *testing.T) {
	ns := cp.CreateNamespace(t, "deploy")
	ctx := t.Context()

	d, err := cp.Client().AppsV1().Deployments(ns).Create(ctx, newDeployment("web", 2), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating deployment: %v", err)
	}
	waitAvailable(t, ns, d.Name, 2)
}

func TestGarbageCollectionDeletesDependents(t *testing.T) {
	ns := cp.CreateNamespace(t, "gc")
	ctx := t.Context()
	client := cp.Client()

	d, err := client.AppsV1().Deployments(ns).Create(ctx, newDeployment("owner", 1), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating deployment: %v", err)
	}
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{
			Name: "dependent",
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion:         appsv1.SchemeGroupVersion.String(),
				Kind:               "Deployment",
				Name:               d.Name,
				UID:                d.UID,
				Controller:         ptr.To(true),
				BlockOwnerDeletion: ptr.To(true),
			}},
		},
		Data: map[string]string{"k": "v"},
	}
	if _, err := client.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating owned configmap: %v", err)
	}

	err = client.AppsV1().Deployments(ns).Delete(ctx, d.Name, metav1.DeleteOptions{
		PropagationPolicy: ptr.To(metav1.DeletePropagationBackground),
	})
	if err != nil {
		t.Fatalf("deleting deployment: %v", err)
	}
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, rolloutTimeout, true, func(ctx context.Context) (bool, error) {
		_, err := client.CoreV1().ConfigMaps(ns).Get(ctx, cm.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, err
	})
	if err != nil {
		t.Fatalf("owned configmap was not garbage collected after its deployment was deleted: %v", err)
	}
}

// newDeployment returns a Deployment of replicas pods. The image is never
// pulled: kwok only pretends to run containers.
func newDeployment(name string, replicas int32) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					Containers: []corev1.Container{{Name: "app", Image: "registry.example/x:1"}},
				},
			},
		},
	}
}

// waitAvailable waits until the Deployment reports want available replicas
// and the Available condition, failing t with the last observed status.
func waitAvailable(t *testing.T, ns, name string, want int32) {
	t.Helper()
	var last string
	err := wait.PollUntilContextTimeout(t.Context(), 200*time.Millisecond, rolloutTimeout, true, func(ctx context.Context) (bool, error) {
		d, err := cp.Client().AppsV1().Deployments(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		last = fmt.Sprintf("%d/%d available, conditions %v", d.Status.AvailableReplicas, want, d.Status.Conditions)
		if d.Status.AvailableReplicas != want {
			return false, nil
		}
		for _, c := range d.Status.Conditions {
			if c.Type == appsv1.DeploymentAvailable && c.Status == corev1.ConditionTrue {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("deployment %s/%s did not become available (%s): %v", ns, name, last, err)
	}
}

const widgetCRD = `# a CRD split over documents, as controller-gen output may be
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.test.ogx.example
spec:
  group: test.ogx.example
  names: {kind: Widget, listKind: WidgetList, plural: widgets, singular: widget}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer, minimum: 1}
---
`

func TestInstallCRDs(t *testing.T) {
	ns := cp.CreateNamespace(t, "crd")
	ctx := t.Context()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "widgets.yaml"), []byte(widgetCRD), 0o600); err != nil {
		t.Fatal(err)
	}
	// Installing twice must update rather than fail.
	for range 2 {
		if err := cp.InstallCRDs(ctx, dir); err != nil {
			t.Fatalf("installing CRDs: %v", err)
		}
	}

	dyn, err := dynamic.NewForConfig(cp.Config())
	if err != nil {
		t.Fatal(err)
	}
	widgets := dyn.Resource(schema.GroupVersionResource{Group: "test.ogx.example", Version: "v1", Resource: "widgets"}).Namespace(ns)
	newWidget := func(size int64) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "test.ogx.example/v1",
			"kind":       "Widget",
			"metadata":   map[string]any{"generateName": "w-"},
			"spec":       map[string]any{"size": size},
		}}
	}
	if _, err := widgets.Create(ctx, newWidget(3), metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating a valid Widget: %v", err)
	}
	if _, err := widgets.Create(ctx, newWidget(0), metav1.CreateOptions{}); !apierrors.IsInvalid(err) {
		t.Fatalf("creating a Widget violating the schema: got %v, want an Invalid error", err)
	}
}

func TestHostPathPVBindsClaim(t *testing.T) {
	ns := cp.CreateNamespace(t, "pv")
	ctx := t.Context()
	client := cp.Client()

	pvName := "pv-" + ns
	if _, err := cp.CreateHostPathPV(ctx, pvName, resource.MustParse("2Gi"), ""); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = client.CoreV1().PersistentVolumes().Delete(context.Background(), pvName, metav1.DeleteOptions{})
	})
	pvc := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: "data"},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources: corev1.VolumeResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
			},
		},
	}
	if _, err := client.CoreV1().PersistentVolumeClaims(ns).Create(ctx, pvc, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating claim: %v", err)
	}
	var phase corev1.PersistentVolumeClaimPhase
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, rolloutTimeout, true, func(ctx context.Context) (bool, error) {
		got, err := client.CoreV1().PersistentVolumeClaims(ns).Get(ctx, pvc.Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		phase = got.Status.Phase
		return phase == corev1.ClaimBound && got.Spec.VolumeName == pvName, nil
	})
	if err != nil {
		t.Fatalf("claim did not bind to %s (phase %q): %v", pvName, phase, err)
	}
}

// TestUsersAndAuditLog starts a second, minimal control plane with an extra
// user and an audit policy for it, and checks that the user's requests, and
// only those, reach the audit log.
func TestUsersAndAuditLog(t *testing.T) {
	ctx := t.Context()
	c, err := framework.Start(ctx, framework.Options{
		Users:       []string{"alice"},
		AuditPolicy: framework.AuditPolicyForUsers("alice"),
	})
	if err != nil {
		t.Fatalf("starting control plane: %v", err)
	}
	t.Cleanup(func() {
		if err := c.Stop(); err != nil {
			t.Errorf("stopping: %v", err)
		}
	})
	if c.UserConfig("nobody") != nil || c.UserKubeconfigPath("nobody") != "" {
		t.Errorf("unknown user has a config")
	}
	if _, err := os.Stat(c.UserKubeconfigPath("alice")); err != nil {
		t.Errorf("alice's kubeconfig: %v", err)
	}
	alice, err := kubernetes.NewForConfig(c.UserConfig("alice"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := alice.CoreV1().ConfigMaps("default").List(ctx, metav1.ListOptions{}); err != nil {
		t.Fatalf("alice lists ConfigMaps: %v", err)
	}
	if _, err := c.Client().CoreV1().Secrets("default").List(ctx, metav1.ListOptions{}); err != nil {
		t.Fatalf("admin lists Secrets: %v", err)
	}
	// The event may be written just after the client has its response.
	var log string
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		data, err := os.ReadFile(c.AuditLogPath())
		log = string(data)
		return err == nil && strings.Contains(log, `"username":"alice"`) && strings.Contains(log, `"resource":"configmaps"`), nil
	})
	if err != nil {
		t.Errorf("alice's list is not in the audit log:\n%s", log)
	}
	if strings.Contains(log, `"resource":"secrets"`) {
		t.Errorf("the admin's request was audited:\n%s", log)
	}
}

// TestPIDs checks that PIDs names every component of a full control plane
// with the process that runs its binary, as the benchmark's CPU figures
// read them from /proc.
func TestPIDs(t *testing.T) {
	pids := cp.PIDs()
	var names []string
	for name := range pids {
		names = append(names, name)
	}
	for _, name := range []string{framework.Etcd, framework.APIServer, framework.ControllerManager, framework.Scheduler, framework.Kwok} {
		pid, ok := pids[name]
		if !ok {
			t.Errorf("no PID for %s (have %v)", name, names)
			continue
		}
		exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		// A binary rebuilt while its process runs reads "<path> (deleted)".
		if filepath.Base(strings.TrimSuffix(exe, " (deleted)")) != name {
			t.Errorf("PID %d of %s runs %s", pid, name, exe)
		}
	}
}
