package status

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/apply"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/controllertest"
)

// TestIngressViewKeepsExternalURL: the external URL status reports (the
// Ingress's TLS and load balancer) is the same from the cached view.
func TestIngressViewKeepsExternalURL(t *testing.T) {
	s := &ogxv1beta1.OGXServer{ObjectMeta: metav1.ObjectMeta{Name: "demo", Namespace: "team-a"}}
	s.Spec.Network = &ogxv1beta1.NetworkSpec{ExternalAccess: &ogxv1beta1.ExternalAccessSpec{Enabled: true}}
	ing := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: "demo-ingress", Namespace: "team-a"},
		Spec: networkingv1.IngressSpec{TLS: []networkingv1.IngressTLS{{SecretName: "tls"}}},
		Status: networkingv1.IngressStatus{LoadBalancer: networkingv1.IngressLoadBalancerStatus{
			Ingress: []networkingv1.IngressLoadBalancerIngress{{IP: "1.2.3.4"}}}}}
	want := *externalURL(s, ing)
	view, err := controllertest.ChildViews()(ing.DeepCopy())
	if err != nil {
		t.Fatal(err)
	}
	if got := *externalURL(s, view.(*apply.CachedChild).Typed().(*networkingv1.Ingress)); got != want || want != "https://1.2.3.4" {
		t.Errorf("external URL from the view %q, from the whole Ingress %q", got, want)
	}
}

// TestDeploymentViewKeepsFailures: the view keeps the conditions status
// reads (a failed rollout) and drops the ones every Deployment carries.
func TestDeploymentViewKeepsFailures(t *testing.T) {
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "demo", Namespace: "ns"}}
	d.Status.Conditions = []appsv1.DeploymentCondition{
		{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue, Reason: "MinimumReplicasAvailable", Message: "Deployment has minimum availability."},
		{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionFalse, Reason: "ProgressDeadlineExceeded", Message: `ReplicaSet "demo-1" has timed out progressing.`},
	}
	out, err := controllertest.ChildViews()(d.DeepCopy())
	if err != nil {
		t.Fatal(err)
	}
	view := controllertest.KnownDeployment(t, out).Obj
	if got, want := deploymentFailure(view), deploymentFailure(d); got != want || want == "" {
		t.Errorf("failure from the view %q, from the whole Deployment %q", got, want)
	}
	if len(view.Status.Conditions) != 1 {
		t.Errorf("view keeps %d conditions, want only the failure", len(view.Status.Conditions))
	}
	d.Status.Conditions = d.Status.Conditions[:1]
	out, _ = controllertest.ChildViews()(d.DeepCopy())
	if c := controllertest.KnownDeployment(t, out).Obj.Status.Conditions; c != nil {
		t.Errorf("healthy Deployment's view keeps conditions %v", c)
	}
}
