package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/test/framework"
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
	framework.Poll(t, 30*time.Second, "the HPA", func(ctx context.Context) (bool, error) {
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
	framework.Poll(t, 30*time.Second, "replicas back to the spec's 1", func(ctx context.Context) (bool, error) {
		d, err := kube.AppsV1().Deployments(ns).Get(ctx, "hs", metav1.GetOptions{})
		return err == nil && d.Spec.Replicas != nil && *d.Spec.Replicas == 1, err
	})
}

// TestHPANewDeploymentStartsAtMinimum: a new autoscaled server's Deployment
// exists with the HPA's minimum from its first version on (not with the
// default of one replica until the HPA acts), and once the count has been
// handed over ogx-controller neither owns it nor writes the Deployment
// again.
func TestHPANewDeploymentStartsAtMinimum(t *testing.T) {
	ns := cp.CreateNamespace(t, "hpamin")
	kube, ogx := clients(t)
	ctx := t.Context()
	ctrl := startController(t, ns)
	w, err := kube.AppsV1().Deployments(ns).Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	two := int32(2)
	s := newServer(ns, "as")
	s.Spec.Workload = &ogxv1beta1.WorkloadSpec{Autoscaling: &ogxv1beta1.AutoscalingSpec{MinReplicas: &two, MaxReplicas: 5}}
	if _, err := ogx.OgxV1beta1().OGXServers(ns).Create(ctx, s, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case ev, ok := <-w.ResultChan():
		if !ok {
			t.Fatal("the Deployment watch closed before any event")
		}
		d, isDep := ev.Object.(*appsv1.Deployment)
		if ev.Type != watch.Added || !isDep {
			t.Fatalf("first Deployment event %s %T, want ADDED", ev.Type, ev.Object)
		}
		if got := replicasOf(d); got != 2 {
			t.Fatalf("the Deployment was created with replicas %d, want minReplicas 2", got)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("no Deployment created within 2 minutes")
	}

	waitReady(t, ogx, ns, "as", 2*time.Minute)
	settleWrites(t, ctrl)
	d, err := kube.AppsV1().Deployments(ns).Get(ctx, "as", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := replicasOf(d); got != 2 {
		t.Errorf("replicas after settling = %d, want 2", got)
	}
	owned, err := appsv1ac.ExtractDeployment(d, "ogx-controller")
	if err != nil {
		t.Fatal(err)
	}
	if owned.Spec != nil && owned.Spec.Replicas != nil {
		t.Errorf("ogx-controller still owns spec.replicas (%d) of an autoscaled Deployment", *owned.Spec.Replicas)
	}
	// The create, the hand-over and the apply without the count; nothing
	// after them.
	_, log := ctrl.writes.snapshot()
	var depWrites []string
	for _, l := range log {
		if strings.HasSuffix(l, "/namespaces/"+ns+"/deployments/as") {
			depWrites = append(depWrites, l)
		}
	}
	if len(depWrites) != 3 {
		t.Errorf("Deployment writes %q, want 3 (create, hand-over, apply)", depWrites)
	}
}

// replicasOf is spec.replicas, or -1 when unset.
func replicasOf(d *appsv1.Deployment) int32 {
	if d.Spec.Replicas == nil {
		return -1
	}
	return *d.Spec.Replicas
}
