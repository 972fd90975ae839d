package e2e

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

// TestHPAHandover: turning autoscaling on for a running Deployment never
// resets its replica count (the count is handed to another field manager
// before ogx-controller stops applying it), and turning it off restores the
// spec's replicas.
func TestHPAHandover(t *testing.T) {
	ns := cp.CreateNamespace(t, "handover")
	kube, ogx := clients(t)
	ctx := t.Context()
	ctrl := startController(t, ns)
	three := int32(3)
	s := newServer(ns, "hs")
	s.Spec.Workload = &ogxv1beta1.WorkloadSpec{Replicas: &three}
	if _, err := ogx.OgxV1beta1().OGXServers(ns).Create(ctx, s, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitReady(t, ogx, ns, "hs", 2*time.Minute)

	// Watch every observed replica count from now on.
	stop := make(chan struct{})
	seen := make(chan int32, 1000)
	go func() {
		defer close(seen) // the sender closes, after its last send
		for {
			select {
			case <-stop:
				return
			default:
			}
			if d, err := kube.AppsV1().Deployments(ns).Get(context.Background(), "hs", metav1.GetOptions{}); err == nil && d.Spec.Replicas != nil {
				select {
				case seen <- *d.Spec.Replicas:
				default:
				}
			}
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
	updateServer(t, ogx, ns, "hs", func(cur *ogxv1beta1.OGXServer) {
		cur.Spec.Workload.Autoscaling = &ogxv1beta1.AutoscalingSpec{MaxReplicas: 5}
	})
	poll(t, 30*time.Second, "the HPA", func(ctx context.Context) (bool, error) {
		_, err := kube.AutoscalingV2().HorizontalPodAutoscalers(ns).Get(ctx, "hs-hpa", metav1.GetOptions{})
		return err == nil, err
	})
	settleWrites(t, ctrl)
	close(stop)
	for r := range seen {
		if r < 3 {
			t.Fatalf("replicas dropped to %d while autoscaling was turned on, want never below 3", r)
		}
	}

	// Off again: the spec's count is applied.
	one := int32(1)
	updateServer(t, ogx, ns, "hs", func(cur *ogxv1beta1.OGXServer) {
		cur.Spec.Workload.Autoscaling = nil
		cur.Spec.Workload.Replicas = &one
	})
	poll(t, 30*time.Second, "replicas back to the spec's 1", func(ctx context.Context) (bool, error) {
		d, err := kube.AppsV1().Deployments(ns).Get(ctx, "hs", metav1.GetOptions{})
		return err == nil && d.Spec.Replicas != nil && *d.Spec.Replicas == 1, err
	})
}
