package e2e

import (
	"context"
	"testing"
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/util/retry"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/test/framework"
)

// kubectlScalePatch is the request `kubectl scale --replicas=3` sends when
// no precondition (--current-replicas, --resource-version) is given: a merge
// patch of the scale subresource, with no read of the scale first.
const kubectlScalePatch = `{"spec":{"replicas":3}}`

// TestScaleSubresource: on a server created without spec.workload, the API
// server cannot read a scale (GET answers 500: the spec replicas path does
// not exist) but applies kubectl scale's merge patch, which creates
// spec.workload.replicas; from then on GET and an update of the scale, as an
// HPA's controller makes them, work, and the status reports the
// Deployment's replicas and a selector that finds exactly its pods
// (docs/user-guide.md, Scaling).
func TestScaleSubresource(t *testing.T) {
	ns := cp.CreateNamespace(t, "scale")
	kube, ogx := clients(t)
	ctx := t.Context()
	startController(t, ns)
	servers := ogx.OgxV1beta1().OGXServers(ns)
	if _, err := servers.Create(ctx, newServer(ns, "sc"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	s := waitReady(t, ogx, ns, "sc", 2*time.Minute)
	if s.Spec.Workload != nil {
		t.Fatalf("spec.workload %+v, want it absent (no default creates it)", s.Spec.Workload)
	}
	if _, err := servers.GetScale(ctx, "sc", metav1.GetOptions{}); !apierrors.IsInternalError(err) {
		t.Fatalf("GET scale without spec.workload.replicas: %v, want the API server's internal error", err)
	}

	gvr := ogxv1beta1.SchemeGroupVersion.WithResource("ogxservers")
	if _, err := dynamic.NewForConfigOrDie(quietConfig()).Resource(gvr).Namespace(ns).
		Patch(ctx, "sc", types.MergePatchType, []byte(kubectlScalePatch), metav1.PatchOptions{}, "scale"); err != nil {
		t.Fatalf("kubectl scale's patch of the scale subresource: %v", err)
	}
	if s, err := servers.Get(ctx, "sc", metav1.GetOptions{}); err != nil || s.Spec.Workload == nil || s.Spec.Workload.Replicas == nil || *s.Spec.Workload.Replicas != 3 {
		t.Fatalf("after scaling to 3: spec.workload %+v (%v), want replicas 3", s.Spec.Workload, err)
	}
	framework.Poll(t, time.Minute, "the Deployment at 3 replicas", func(ctx context.Context) (bool, error) {
		d, err := kube.AppsV1().Deployments(ns).Get(ctx, "sc", metav1.GetOptions{})
		return err == nil && replicasOf(d) == 3, err
	})
	s = waitReady(t, ogx, ns, "sc", 2*time.Minute)
	const selector = "app=ogx,app.kubernetes.io/instance=sc"
	if s.Status.Replicas != 3 || s.Status.Selector != selector {
		t.Errorf("Ready at 3: status.replicas %d, selector %q; want 3, %q", s.Status.Replicas, s.Status.Selector, selector)
	}
	pods, err := kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: s.Status.Selector})
	if err != nil || len(pods.Items) != 3 {
		t.Errorf("pods selected by status.selector %q: %d (%v), want the Deployment's 3", s.Status.Selector, len(pods.Items), err)
	}
	checkScale(t, servers, "sc", 3, 3, selector)

	// Down to 1 as an HPA's controller does it: read the scale, update it.
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		sc, err := servers.GetScale(ctx, "sc", metav1.GetOptions{})
		if err != nil {
			return err
		}
		sc.Spec.Replicas = 1
		_, err = servers.UpdateScale(ctx, "sc", sc, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatalf("updating the scale to 1: %v", err)
	}
	framework.Poll(t, time.Minute, "the Deployment at 1 replica", func(ctx context.Context) (bool, error) {
		d, err := kube.AppsV1().Deployments(ns).Get(ctx, "sc", metav1.GetOptions{})
		return err == nil && replicasOf(d) == 1, err
	})
	waitReady(t, ogx, ns, "sc", 2*time.Minute)
	checkScale(t, servers, "sc", 1, 1, selector)
}

// TestScaleAutoscaledServer: scaling a server whose spec.workload.autoscaling
// has ogx-controller manage an HPA sets spec.workload.replicas, which there
// is the HPA's floor: the HPA's minReplicas follows it, the HPA (not
// ogx-controller) brings the Deployment to it, and the scale reports the
// result (docs/user-guide.md, Scaling an autoscaled server).
func TestScaleAutoscaledServer(t *testing.T) {
	ns := cp.CreateNamespace(t, "scaleauto")
	kube, ogx := clients(t)
	ctx := t.Context()
	startController(t, ns)
	servers := ogx.OgxV1beta1().OGXServers(ns)
	s := newServer(ns, "as")
	s.Spec.Workload = &ogxv1beta1.WorkloadSpec{Autoscaling: &ogxv1beta1.AutoscalingSpec{MaxReplicas: 5}}
	if _, err := servers.Create(ctx, s, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitReady(t, ogx, ns, "as", 2*time.Minute)
	// workload is present, so the CRD's default of workload.replicas (1)
	// gives the scale its count.
	checkScale(t, servers, "as", 1, 1, "app=ogx,app.kubernetes.io/instance=as")

	if _, err := servers.UpdateScale(ctx, "as", &autoscalingv1.Scale{
		ObjectMeta: metav1.ObjectMeta{Name: "as", Namespace: ns}, Spec: autoscalingv1.ScaleSpec{Replicas: 3}}, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("updating the scale to 3: %v", err)
	}
	framework.Poll(t, time.Minute, "the HPA's minReplicas at 3", func(ctx context.Context) (bool, error) {
		h, err := kube.AutoscalingV2().HorizontalPodAutoscalers(ns).Get(ctx, "as-hpa", metav1.GetOptions{})
		return err == nil && h.Spec.MinReplicas != nil && *h.Spec.MinReplicas == 3, err
	})
	framework.Poll(t, 2*time.Minute, "the HPA to bring the Deployment to 3", func(ctx context.Context) (bool, error) {
		d, err := kube.AppsV1().Deployments(ns).Get(ctx, "as", metav1.GetOptions{})
		return err == nil && replicasOf(d) == 3, err
	})
	waitReady(t, ogx, ns, "as", 2*time.Minute)
	checkScale(t, servers, "as", 3, 3, "app=ogx,app.kubernetes.io/instance=as")
}

// checkScale fails unless the scale of OGXServer name reports spec and
// status replicas and selector as given.
func checkScale(t *testing.T, servers interface {
	GetScale(context.Context, string, metav1.GetOptions) (*autoscalingv1.Scale, error)
}, name string, spec, status int32, selector string) {
	t.Helper()
	sc, err := servers.GetScale(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("GET scale of %s: %v", name, err)
	}
	if sc.Spec.Replicas != spec || sc.Status.Replicas != status || sc.Status.Selector != selector {
		t.Errorf("scale of %s: spec %d, status %d, selector %q; want %d, %d, %q",
			name, sc.Spec.Replicas, sc.Status.Replicas, sc.Status.Selector, spec, status, selector)
	}
}
