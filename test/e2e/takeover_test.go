package e2e

import (
	"context"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/test/framework"
)

// TestTakeoverOfUpstreamChildren pre-creates a Deployment and a Service the
// way the upstream operator leaves them (applied by field manager
// ogx-operator, with a field ogx-controller does not render) and a status
// written by manager "manager". ogx-controller takes them over in place: the
// UIDs stay, the upstream-only field disappears, the Deployment rolls at most
// once, and the upstream-only status field is removed.
func TestTakeoverOfUpstreamChildren(t *testing.T) {
	ns := cp.CreateNamespace(t, "takeover")
	kube, ogx := clients(t)
	ctx := t.Context()
	s, err := ogx.OgxV1beta1().OGXServers(ns).Create(ctx, newServer(ns, "tk"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	owner := metav1ac.OwnerReference().WithAPIVersion("ogx.io/v1beta1").WithKind("OGXServer").
		WithName(s.Name).WithUID(s.UID).WithController(true).WithBlockOwnerDeletion(true)
	labels := map[string]string{"app.kubernetes.io/managed-by": "ogx-operator", "app.kubernetes.io/part-of": "ogx", "ogx.io/watch": "true"}
	sel := map[string]string{"app": "ogx", "app.kubernetes.io/instance": "tk"}
	upstream := metav1.ApplyOptions{FieldManager: "ogx-operator", Force: true}
	d, err := kube.AppsV1().Deployments(ns).Apply(ctx, appsv1ac.Deployment("tk", ns).WithLabels(labels).WithOwnerReferences(owner).
		WithSpec(appsv1ac.DeploymentSpec().WithReplicas(1).WithSelector(metav1ac.LabelSelector().WithMatchLabels(sel)).
			WithTemplate(corev1ac.PodTemplateSpec().WithLabels(sel).WithSpec(corev1ac.PodSpec().WithContainers(
				corev1ac.Container().WithName("ogx").WithImage("docker.io/ogxai/distribution-starter:latest").
					WithEnv(corev1ac.EnvVar().WithName("UPSTREAM_ONLY").WithValue("1")))))), upstream)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := kube.CoreV1().Services(ns).Apply(ctx, corev1ac.Service("tk-service", ns).WithLabels(labels).WithOwnerReferences(owner).
		WithAnnotations(map[string]string{"upstream-only": "1"}).
		WithSpec(corev1ac.ServiceSpec().WithSelector(sel).WithPorts(corev1ac.ServicePort().WithName("http").WithPort(8321))), upstream)
	if err != nil {
		t.Fatal(err)
	}
	s.Status.Phase = ogxv1beta1.PhaseReady
	s.Status.DistributionConfig.ActiveDistribution = "upstream-wrote-this"
	s.Status.DistributionConfig.Providers = []ogxv1beta1.ProviderInfo{{API: "inference", ProviderID: "old", ProviderType: "remote::vllm",
		Config: apiextensionsv1.JSON{Raw: []byte(`{}`)}, Health: ogxv1beta1.ProviderHealthStatus{Status: "OK", Message: "-"}}}
	if _, err := ogx.OgxV1beta1().OGXServers(ns).UpdateStatus(ctx, s, metav1.UpdateOptions{FieldManager: "manager"}); err != nil {
		t.Fatal(err)
	}
	framework.Poll(t, 60*time.Second, "the upstream Deployment to roll out", func(ctx context.Context) (bool, error) {
		d, err := kube.AppsV1().Deployments(ns).Get(ctx, "tk", metav1.GetOptions{})
		return err == nil && d.Status.AvailableReplicas == 1, err
	})
	rsBefore := replicaSets(t, kube, ns, "tk")

	startController(t, ns)
	framework.Poll(t, 60*time.Second, "the upstream-only env var removed", func(ctx context.Context) (bool, error) {
		got, err := kube.AppsV1().Deployments(ns).Get(ctx, "tk", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for _, e := range got.Spec.Template.Spec.Containers[0].Env {
			if e.Name == "UPSTREAM_ONLY" {
				return false, nil
			}
		}
		return true, nil
	})
	got := waitReady(t, ogx, ns, "tk", 2*time.Minute)
	if got.Status.DistributionConfig.ActiveDistribution != "starter" {
		t.Errorf("activeDistribution = %q, want starter", got.Status.DistributionConfig.ActiveDistribution)
	}
	// Only the upstream manager owned providers; without the status
	// takeover they would stay forever.
	if p := got.Status.DistributionConfig.Providers; len(p) != 0 {
		t.Errorf("providers written by the upstream operator survived: %+v", p)
	}
	d2, _ := kube.AppsV1().Deployments(ns).Get(ctx, "tk", metav1.GetOptions{})
	if d2.UID != d.UID {
		t.Errorf("Deployment was recreated (UID %s → %s), want a takeover in place", d.UID, d2.UID)
	}
	if rsAfter := replicaSets(t, kube, ns, "tk"); rsAfter > rsBefore+1 {
		t.Errorf("takeover rolled the Deployment %d times, want at most once", rsAfter-rsBefore)
	}
	svc2, _ := kube.CoreV1().Services(ns).Get(ctx, "tk-service", metav1.GetOptions{})
	if svc2.UID != svc.UID {
		t.Errorf("Service was recreated, want a takeover in place")
	}
	if _, ok := svc2.Annotations["upstream-only"]; ok {
		t.Errorf("upstream-only annotation survived the takeover")
	}
	for _, obj := range []metav1.Object{d2, svc2} {
		for _, e := range obj.GetManagedFields() {
			if e.Manager == "ogx-operator" {
				t.Errorf("%s still has managedFields of ogx-operator: %+v", obj.GetName(), e)
			}
		}
	}
}
