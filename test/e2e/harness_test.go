package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/ogx-k8s/ogx-controller/test/framework"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// TestHarnessDeploymentAvailableAndCollected proves the control plane end
// to end without ogx-controller: a Deployment owned by an OGXServer is
// scheduled onto a kwok node, becomes Available, and is garbage-collected
// when the OGXServer is deleted.
func TestHarnessDeploymentAvailableAndCollected(t *testing.T) {
	ns := cp.CreateNamespace(t, "harness")
	kube, ogx := clients(t)
	ctx := t.Context()
	owner, err := ogx.OgxV1beta1().OGXServers(ns).Create(ctx, newServer(ns, "owner"), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating OGXServer: %v", err)
	}
	labels := map[string]string{"app": "harness"}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "harness", Namespace: ns, OwnerReferences: []metav1.OwnerReference{{
			APIVersion: "ogx.io/v1beta1", Kind: "OGXServer", Name: owner.Name, UID: owner.UID,
			Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
		}}},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(int32(2)),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "registry.invalid/x:1"}}},
			},
		},
	}
	if _, err := kube.AppsV1().Deployments(ns).Create(ctx, d, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating Deployment: %v", err)
	}
	framework.Poll(t, 90*time.Second, "Deployment 2/2 available", func(ctx context.Context) (bool, error) {
		got, err := kube.AppsV1().Deployments(ns).Get(ctx, "harness", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return got.Status.AvailableReplicas == 2, nil
	})
	if err := ogx.OgxV1beta1().OGXServers(ns).Delete(ctx, owner.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("deleting OGXServer: %v", err)
	}
	waitGone(t, 90*time.Second, "Deployment harness", func(ctx context.Context) error {
		_, err := kube.AppsV1().Deployments(ns).Get(ctx, "harness", metav1.GetOptions{})
		return err
	})
}
