//go:build faults

package faults

import (
	"context"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

// TestChangesWhileOperatorIsDown stops both replicas, then deletes one
// server's Service, changes another's Deployment image, deletes a third
// server (which has storage) and creates a fourth. Once the replicas are
// back, all of it must be reconciled from their initial lists: the Service
// recreated, the image restored, the new server Ready, the deleted server's
// children collected but its PVC kept.
func TestChangesWhileOperatorIsDown(t *testing.T) {
	ns := s.cp.CreateNamespace(t, "offline")
	kube, ogx := s.cp.Client(), ogxClient(t)
	ctx := t.Context()
	size := resource.MustParse("1Gi")
	withStorage := func(srv *ogxv1beta1.OGXServer) *ogxv1beta1.OGXServer {
		srv.Spec.Workload.Storage = &ogxv1beta1.PVCStorageSpec{Size: &size}
		return srv
	}
	for _, name := range []string{"gone", "fresh"} {
		if _, err := s.cp.CreateHostPathPV(ctx, "pv-"+ns+"-"+name, size, ""); err != nil {
			t.Fatal(err)
		}
	}
	names := []string{"replica-a", "replica-b"}
	replicas := startReplicas(t, ns, names...)
	waitLeader(t, ns, time.Minute, names...)
	for _, srv := range []*ogxv1beta1.OGXServer{
		newServer(ns, "svc", "v1"), newServer(ns, "image", "v1"), withStorage(newServer(ns, "gone", "v1")),
	} {
		if _, err := ogx.OgxV1beta1().OGXServers(ns).Create(ctx, srv, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	waitConverged(t, ns, 3, "v1", 3*time.Minute)
	dep, err := kube.AppsV1().Deployments(ns).Get(ctx, "image", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wantImage := dep.Spec.Template.Spec.Containers[0].Image
	gone, err := ogx.OgxV1beta1().OGXServers(ns).Get(ctx, "gone", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}

	for _, r := range replicas {
		r.Stop()
	}
	if err := kube.CoreV1().Services(ns).Delete(ctx, "svc-service", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		d, err := kube.AppsV1().Deployments(ns).Get(ctx, "image", metav1.GetOptions{})
		if err != nil {
			return err
		}
		d.Spec.Template.Spec.Containers[0].Image = "registry.invalid/tampered:1"
		_, err = kube.AppsV1().Deployments(ns).Update(ctx, d, metav1.UpdateOptions{FieldManager: "faults-test"})
		return err
	})
	if err != nil {
		t.Fatalf("editing Deployment image: %v", err)
	}
	if err := ogx.OgxV1beta1().OGXServers(ns).Delete(ctx, "gone", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := ogx.OgxV1beta1().OGXServers(ns).Create(ctx, withStorage(newServer(ns, "fresh", "v1")), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	back := time.Now()
	startReplicas(t, ns, "replica-c", "replica-d")
	waitConverged(t, ns, 3, "v1", 3*time.Minute)
	poll(t, 2*time.Minute, 500*time.Millisecond, "the offline changes reconciled", func(ctx context.Context) (bool, error) {
		if _, err := kube.CoreV1().Services(ns).Get(ctx, "svc-service", metav1.GetOptions{}); err != nil {
			return false, err
		}
		d, err := kube.AppsV1().Deployments(ns).Get(ctx, "image", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		if img := d.Spec.Template.Spec.Containers[0].Image; img != wantImage {
			return false, errorf("Deployment image is %q, want %q", img, wantImage)
		}
		if _, err := ogx.OgxV1beta1().OGXServers(ns).Get(ctx, "gone", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return false, errorf("OGXServer gone still exists (err %v)", err)
		}
		// Owned children go with their server (garbage collection).
		if _, err := kube.AppsV1().Deployments(ns).Get(ctx, "gone", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return false, errorf("Deployment gone still exists (err %v)", err)
		}
		return true, nil
	})
	t.Logf("offline changes reconciled %s after the replicas started", time.Since(back).Round(100*time.Millisecond))

	pvc, err := kube.CoreV1().PersistentVolumeClaims(ns).Get(ctx, "gone-pvc", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the deleted server's PVC: %v (it must be kept)", err)
	}
	if pvc.DeletionTimestamp != nil {
		t.Errorf("the deleted server's PVC is being deleted")
	}
	for _, ref := range pvc.OwnerReferences {
		if ref.UID == gone.UID {
			t.Errorf("PVC gone-pvc is owned by the deleted server: %+v", ref)
		}
	}
	if _, err := kube.CoreV1().PersistentVolumeClaims(ns).Get(ctx, "fresh-pvc", metav1.GetOptions{}); err != nil {
		t.Errorf("the new server's PVC: %v", err)
	}
	reqs, err := operatorRequests(ns, back)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range reqs {
		if r.isWrite() && r.resource == "persistentvolumeclaims" && r.name == "gone-pvc" {
			t.Errorf("the operator wrote the deleted server's PVC: %s %s %d", r.verb, r.key(), r.code)
		}
	}
}
