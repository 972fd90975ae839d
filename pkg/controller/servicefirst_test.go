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
// nothing, records nothing and is not requeued; the Service pass, once its
// outcome is recorded, puts the key in the deployment controller's queue,
// and the next Deployment pass creates the ServiceAccount and the
// Deployment. Once the Deployment exists, losing the Service does not hold
// it back.
func TestDeploymentCreateWaitsForService(t *testing.T) {
	s := sfServer(sfNamespace, sfName, sfUID)
	e := newSFEnv(t, Options{}, nil, s)
	// The manager's own wiring, observed: the outcome must be on the board
	// when the deployment controller is told.
	wired := e.m.service.deployments
	var told []string
	e.m.service.deployments = func(key string) {
		if _, seen := e.outcome(s, serviceControllerName); !seen {
			t.Errorf("deployment controller told before the Service pass recorded its outcome")
		}
		told = append(told, key)
		if wired != nil {
			wired(key)
		}
	}

	res, err := e.m.deployment.syncKey(e.ctx, sfKey)
	if err != nil || !res.Waiting || res.RequeueAfter != 0 {
		t.Fatalf("first Deployment pass = %+v, %v; want deferred without a requeue", res, err)
	}
	if w := e.kubeWrites(); len(w) != 0 {
		t.Fatalf("first Deployment pass wrote before the Service:%s", sfDescribe(w))
	}
	if o, seen := e.outcome(s, "deployment"); seen {
		t.Errorf("outcome while deferred = %+v, want none (the pass has not happened)", o)
	}

	drainQueue(e.m.deployment.queueRunner)
	if _, err := e.m.service.syncKey(e.ctx, sfKey); err != nil {
		t.Fatal(err)
	}
	if len(told) != 1 || told[0] != sfKey {
		t.Fatalf("Service pass told the deployment controller %q, want [%s]", told, sfKey)
	}
	if n := e.m.deployment.queue.Len(); n != 1 {
		t.Fatalf("deployment queue holds %d keys after the Service pass, want 1 (the manager wires the service controller to it)", n)
	}
	expectDeploymentCreated(t, e, "after the Service")

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

// drainQueue empties a queue whose workers are not running.
func drainQueue(q *queueRunner) {
	for q.queue.Len() > 0 {
		key, _ := q.queue.Get()
		q.queue.Done(key)
		q.queue.Forget(key)
	}
}

// TestDeploymentWaitsForTheCurrentGenerationsService: a Service failure
// recorded for an older generation does not let the Deployment go; the
// Service pass of the current generation decides.
func TestDeploymentWaitsForTheCurrentGenerationsService(t *testing.T) {
	s := sfServer(sfNamespace, sfName, sfUID)
	s.Generation = 2
	e := newSFEnv(t, Options{}, nil, s)
	e.m.board.Record(sfKey, sfUID, serviceControllerName, Outcome{Generation: 1, Class: OutcomeTransient, Message: "refused"})
	if res, err := e.m.deployment.syncKey(e.ctx, sfKey); err != nil || !res.Waiting {
		t.Fatalf("Deployment pass with only an old Service failure = %+v, %v; want deferred", res, err)
	}
	if w := e.kubeWrites(); len(w) != 0 {
		t.Fatalf("deferred pass wrote:%s", sfDescribe(w))
	}
	e.m.board.Record(sfKey, sfUID, serviceControllerName, Outcome{Generation: 2, Class: OutcomeTransient, Message: "refused"})
	if res, err := e.m.deployment.syncKey(e.ctx, sfKey); err != nil || res.Waiting {
		t.Fatalf("Deployment pass after the current Service pass failed = %+v, %v", res, err)
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
	expectDeploymentCreated(t, e, "after a failed Service pass")
}

// expectDeploymentCreated runs a Deployment pass that must not be deferred
// and must create the ServiceAccount, then the Deployment.
func expectDeploymentCreated(t *testing.T, e *sfEnv, when string) {
	t.Helper()
	e.clearActions()
	if res, err := e.m.deployment.syncKey(e.ctx, sfKey); err != nil || res.Waiting {
		t.Fatalf("Deployment pass %s = %+v, %v", when, res, err)
	}
	w := e.kubeWrites()
	if len(w) != 2 {
		t.Fatalf("Deployment pass %s: want the ServiceAccount and the Deployment, got%s", when, sfDescribe(w))
	}
	sfExpectApply(t, w[0], gvrServiceAccounts, sfName+"-sa")
	sfExpectApply(t, w[1], gvrDeployments, sfName)
}
