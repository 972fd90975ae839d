package controller

// Tests of the order of a new server's writes: its Deployment is created
// after its Service (deployment.serviceFirst).

import (
	"sync/atomic"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clienttesting "k8s.io/client-go/testing"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/controllertest"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/worker"
)

// TestDeploymentCreateWaitsForService: the first Deployment pass writes
// nothing, records nothing and is not requeued; the Service's add event,
// which the deployment controller watches, puts the key in its queue, and
// the next Deployment pass creates the ServiceAccount and the Deployment.
// Once the Deployment exists, losing the Service does not hold it back.
func TestDeploymentCreateWaitsForService(t *testing.T) {
	s := controllertest.Server(sfNamespace, sfName, sfUID)
	e := newSFEnv(t, base.Options{}, nil, s)

	res, err := e.m.deployment.Sync(e.ctx, sfKey)
	if err != nil || !res.Waiting || res.RequeueAfter != 0 {
		t.Fatalf("first Deployment pass = %+v, %v; want deferred without a requeue", res, err)
	}
	if w := e.KubeWrites(); len(w) != 0 {
		t.Fatalf("first Deployment pass wrote before the Service:%s", controllertest.Describe(w))
	}
	if o, seen := e.Outcome(s, base.ControllerDeployment); seen {
		t.Errorf("outcome while deferred = %+v, want none (the pass has not happened)", o)
	}

	expectServiceWakesDeployment(t, e, "after the Service")

	if err := e.kube.CoreV1().Services(sfNamespace).Delete(e.ctx, sfName+"-service", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	e.WaitCaught()
	e.ClearActions()
	if res, err := e.m.deployment.Sync(e.ctx, sfKey); err != nil || res.Waiting {
		t.Errorf("Deployment pass without its Service = %+v, %v; an existing Deployment must not wait", res, err)
	}
}

// drainQueue empties a queue whose workers are not running.
func drainQueue(q *worker.Runner) {
	for q.Queue().Len() > 0 {
		key, _ := q.Queue().Get()
		q.Queue().Done(key)
		q.Queue().Forget(key)
	}
}

// TestFailedServiceHoldsDeploymentAndShowsInStatus: while the API server
// refuses the Service, the Deployment is not created either, and status
// does not wait for the deferred deployment controller: it reports the
// service controller's failure.
func TestFailedServiceHoldsDeploymentAndShowsInStatus(t *testing.T) {
	s := controllertest.Server(sfNamespace, sfName, sfUID)
	e := newSFEnv(t, base.Options{}, nil, s)
	var refusing atomic.Bool
	refusing.Store(true)
	e.kube.PrependReactor("patch", "services", func(a clienttesting.Action) (bool, runtime.Object, error) {
		if !refusing.Load() {
			return false, nil, nil
		}
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "services"}, sfName+"-service", nil)
	})
	for _, c := range e.m.childControllers {
		_, _ = c.Sync(e.ctx, sfKey)
	}
	if o, _ := e.Outcome(s, base.ControllerService); o.Class == base.OutcomeOK {
		t.Fatalf("service outcome = %+v, want a failure", o)
	}
	if o, seen := e.Outcome(s, base.ControllerDeployment); seen {
		t.Errorf("deployment outcome = %+v, want none: its create waits for the Service", o)
	}
	for _, w := range e.KubeWrites() {
		if w.GetResource() == gvrDeployments {
			t.Fatalf("Deployment written while its Service is refused:%s", controllertest.Describe(e.KubeWrites()))
		}
	}
	got := e.syncStatus()
	ready := apimeta.FindStatusCondition(got.Status.Conditions, ogxv1beta1.ConditionReady)
	svc := apimeta.FindStatusCondition(got.Status.Conditions, ogxv1beta1.ConditionServiceReady)
	if got.Status.Phase != ogxv1beta1.PhaseFailed || ready == nil || ready.Reason != ogxv1beta1.ReasonApplyFailed ||
		svc == nil || svc.Status != metav1.ConditionFalse {
		t.Fatalf("status = phase %q, Ready %+v, ServiceReady %+v; want Failed with ApplyFailed and ServiceReady False",
			got.Status.Phase, ready, svc)
	}

	// Once the Service can be created, its add event starts the pass that
	// creates the Deployment.
	refusing.Store(false)
	expectServiceWakesDeployment(t, e, "after the Service was no longer refused")
}

// expectServiceWakesDeployment runs the service controller's pass, which
// creates the Service; its add event, which the deployment controller
// watches, must put the key in that controller's queue, and the next
// Deployment pass must create the ServiceAccount and the Deployment.
func expectServiceWakesDeployment(t *testing.T, e *sfEnv, when string) {
	t.Helper()
	drainQueue(e.m.deployment.Runner)
	if _, err := e.m.service.Sync(e.ctx, sfKey); err != nil {
		t.Fatal(err)
	}
	e.WaitCaught()
	if n := e.m.deployment.Queue().Len(); n != 1 {
		t.Fatalf("deployment queue holds %d keys %s, want 1 (its watch of Services)", n, when)
	}
	expectDeploymentCreated(t, e, when)
}

// expectDeploymentCreated runs a Deployment pass that must not be deferred
// and must create the ServiceAccount, then the Deployment.
func expectDeploymentCreated(t *testing.T, e *sfEnv, when string) {
	t.Helper()
	e.ClearActions()
	if res, err := e.m.deployment.Sync(e.ctx, sfKey); err != nil || res.Waiting {
		t.Fatalf("Deployment pass %s = %+v, %v", when, res, err)
	}
	w := e.KubeWrites()
	if len(w) != 2 {
		t.Fatalf("Deployment pass %s: want the ServiceAccount and the Deployment, got%s", when, controllertest.Describe(w))
	}
	sfExpectApply(t, w[0], gvrServiceAccounts, sfName+"-sa")
	sfExpectApply(t, w[1], gvrDeployments, sfName)
}
