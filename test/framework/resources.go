package framework

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestNameAnnotation records on a namespace made by CreateNamespace which
// test created it, to find a test's objects when reading a kept control
// plane or its logs.
const TestNameAnnotation = "ogx.test/test-name"

// NewNamespace creates a namespace with a server-generated name starting with
// prefix, so tests sharing a control plane never collide, and returns its
// name. In Full mode it also waits for the namespace's default
// ServiceAccount, which the controller manager creates asynchronously and
// without which the apiserver rejects pods.
func (cp *ControlPlane) NewNamespace(ctx context.Context, prefix string, annotations map[string]string) (string, error) {
	if !strings.HasSuffix(prefix, "-") {
		prefix += "-"
	}
	ns, err := cp.client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{
		ObjectMeta: metav1.ObjectMeta{GenerateName: prefix, Annotations: annotations},
	}, metav1.CreateOptions{})
	if err != nil {
		return "", fmt.Errorf("creating namespace %s*: %w", prefix, err)
	}
	if !cp.opts.Full {
		return ns.Name, nil
	}
	err = cp.waitFor(ctx, "default ServiceAccount in namespace "+ns.Name, nil, func(ctx context.Context) error {
		_, err := cp.client.CoreV1().ServiceAccounts(ns.Name).Get(ctx, "default", metav1.GetOptions{})
		return err
	})
	if err != nil {
		return "", err
	}
	return ns.Name, nil
}

// CreateNamespace is NewNamespace for tests: it fails t on error, annotates
// the namespace with the test's name, and deletes the namespace when the
// test ends (in Full mode the controller manager then removes its contents).
// The prefix is typically a short form of the test name; namespace names
// must be DNS labels.
func (cp *ControlPlane) CreateNamespace(t testing.TB, prefix string) string {
	t.Helper()
	name, err := cp.NewNamespace(t.Context(), prefix, map[string]string{TestNameAnnotation: t.Name()})
	if err != nil {
		t.Fatalf("%v", err)
	}
	t.Cleanup(func() {
		// t.Context is already cancelled when cleanups run.
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := cp.client.CoreV1().Namespaces().Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
			t.Errorf("deleting namespace %s: %v", name, err)
		}
	})
	return name
}

// CreateHostPathPV creates a PersistentVolume of the given size for a test's
// PersistentVolumeClaim to bind to: no provisioner runs here, so without it
// a claim stays Pending. It offers every access mode so any claim of at most
// size in storageClass ("" for claims without a class) matches, and the
// Retain policy because no plugin could delete a hostPath volume. The path
// is never touched, since kwok runs no containers.
func (cp *ControlPlane) CreateHostPathPV(ctx context.Context, name string, size resource.Quantity, storageClass string) (*corev1.PersistentVolume, error) {
	pv := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PersistentVolumeSpec{
			Capacity: corev1.ResourceList{corev1.ResourceStorage: size},
			AccessModes: []corev1.PersistentVolumeAccessMode{
				corev1.ReadWriteOnce, corev1.ReadOnlyMany, corev1.ReadWriteMany,
			},
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
			StorageClassName:              storageClass,
			PersistentVolumeSource: corev1.PersistentVolumeSource{
				HostPath: &corev1.HostPathVolumeSource{Path: filepath.Join(cp.dir, "volumes", name)},
			},
		},
	}
	created, err := cp.client.CoreV1().PersistentVolumes().Create(ctx, pv, metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("creating PersistentVolume %s (%s): %w", name, size.String(), err)
	}
	return created, nil
}
