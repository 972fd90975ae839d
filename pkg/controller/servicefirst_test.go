package controller

// Tests of the order of a new server's writes: its Deployment is created
// after its Service (DeploymentController.serviceFirst).

import (
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clienttesting "k8s.io/client-go/testing"
)

// TestDeploymentCreateWaitsForService: the first Deployment pass writes
// nothing and records nothing; the Service pass tells the Deployment to
// run, and its next pass creates the ServiceAccount and the Deployment. Once
// the Deployment exists, losing the Service does not hold it back.
func TestDeploymentCreateWaitsForService(t *testing.T) {
	s := sfServer(sfNamespace, sfName, sfUID)
	e := newSFEnv(t, Options{}, nil, s)
	var told []string
	e.m.service.deployments = func(key string) { told = append(told, key) }

	res, err := e.m.deployment.syncKey(e.ctx, sfKey)
	if err != nil || !res.Waiting {
		t.Fatalf("first Deployment pass = %+v, %v; want a wait", res, err)
	}
	if w := e.kubeWrites(); len(w) != 0 {
		t.Fatalf("first Deployment pass wrote before the Service:%s", sfDescribe(w))
	}
	if o, seen := e.outcome(s, "deployment"); seen {
		t.Errorf("outcome while deferred = %+v, want none (the pass has not happened)", o)
	}

	e.clearActions()
	if _, err := e.m.service.syncKey(e.ctx, sfKey); err != nil {
		t.Fatal(err)
	}
	if len(told) != 1 || told[0] != sfKey {
		t.Fatalf("Service pass told the deployment controller %q, want [%s]", told, sfKey)
	}
	e.clearActions()
	if res, err := e.m.deployment.syncKey(e.ctx, sfKey); err != nil || res.Waiting {
		t.Fatalf("Deployment pass after the Service = %+v, %v", res, err)
	}
	w := e.kubeWrites()
	if len(w) != 2 {
		t.Fatalf("Deployment pass after the Service: want the ServiceAccount and the Deployment, got%s", sfDescribe(w))
	}
	sfExpectApply(t, w[0], gvrServiceAccounts, sfName+"-sa")
	sfExpectApply(t, w[1], gvrDeployments, sfName)

	// The Service pass no longer tells anyone once the Deployment exists.
	e.waitCaught()
	told = nil
	if _, err := e.m.service.syncKey(e.ctx, sfKey); err != nil {
		t.Fatal(err)
	}
	if len(told) != 0 {
		t.Errorf("Service pass with the Deployment present told %q", told)
	}

	if err := e.kube.CoreV1().Services(sfNamespace).Delete(e.ctx, sfName+"-service", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	e.waitCaught()
	e.clearActions()
	if res, err := e.m.deployment.syncKey(e.ctx, sfKey); err != nil || res.Waiting {
		t.Errorf("Deployment pass without its Service = %+v, %v; an existing Deployment must not wait", res, err)
	}
}

// TestDeploymentCreateAfterFailedService: a Service pass that fails (here
// the API server refuses the Service) lets the Deployment be created; the
// failure is in status through the service controller's outcome.
func TestDeploymentCreateAfterFailedService(t *testing.T) {
	s := sfServer(sfNamespace, sfName, sfUID)
	e := newSFEnv(t, Options{}, nil, s)
	e.kube.PrependReactor("patch", "services", func(a clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "services"}, sfName+"-service", nil)
	})
	if _, err := e.m.service.syncKey(e.ctx, sfKey); err == nil {
		t.Fatal("Service pass succeeded against a refusing API server")
	}
	if o, _ := e.outcome(s, serviceControllerName); o.Class == OutcomeOK {
		t.Fatalf("service outcome = %+v, want a failure", o)
	}
	e.clearActions()
	if res, err := e.m.deployment.syncKey(e.ctx, sfKey); err != nil || res.Waiting {
		t.Fatalf("Deployment pass after a failed Service pass = %+v, %v", res, err)
	}
	w := e.kubeWrites()
	if len(w) != 2 {
		t.Fatalf("want the ServiceAccount and the Deployment, got%s", sfDescribe(w))
	}
	sfExpectApply(t, w[1], gvrDeployments, sfName)
}
