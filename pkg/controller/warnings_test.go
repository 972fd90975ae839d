package controller

import (
	"slices"
	"strings"
	"testing"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/controllertest"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/events"
)

// missingCAServer is the default test server trusting a CA ConfigMap that
// does not exist: a user error every controller that resolves inputs finds.
func missingCAServer() *ogxv1beta1.OGXServer {
	return controllertest.Server(sfNamespace, sfName, sfUID, func(sp *ogxv1beta1.OGXServerSpec) {
		sp.TLS = &ogxv1beta1.OutboundTLSSpec{Trust: &ogxv1beta1.TrustSpec{
			CACertificates: []ogxv1beta1.ConfigMapKeyRef{{Name: "absent-ca", Key: "ca.crt"}}}}
	})
}

// newSpentEnv starts a Manager whose Event budget admits nothing, leading
// (its Events are queued, not sent).
func newSpentEnv(t *testing.T, s *ogxv1beta1.OGXServer) (*sfEnv, *events.Budget) {
	t.Helper()
	budget := events.NewBudget(1000, 1000)
	budget.Close()
	e := newSFEnv(t, base.Options{EventBudget: budget}, nil, s)
	e.m.Events.Lead()
	return e, budget
}

// passAll runs every child controller and then the status controller over
// the test server, as the events of one change would, and returns the
// Warnings queued and the status pass's requeue.
func (e *sfEnv) passAll(t *testing.T) (warnings []string, statusRes string) {
	t.Helper()
	for _, c := range e.m.childControllers {
		_, _ = c.Sync(e.ctx, sfKey)
	}
	e.WaitCaught()
	res, err := e.m.status.Sync(e.ctx, sfKey)
	if err != nil {
		t.Fatalf("status: %v", err)
	}
	for _, ev := range controllertest.DrainEvents(e.m.Events) {
		if strings.HasPrefix(ev, "Warning ") {
			warnings = append(warnings, ev)
		}
	}
	return warnings, res.RequeueAfter.String()
}

// TestManagerSendsDroppedWarningOnceAfterBudgetRestored: the Warning of a
// missing reference, dropped while the budget is spent, is owed: the status
// pass comes back within events.OwedRetry and sends it exactly once after
// the budget is given back, however many passes follow.
func TestManagerSendsDroppedWarningOnceAfterBudgetRestored(t *testing.T) {
	e, budget := newSpentEnv(t, missingCAServer())
	warnings, requeue := e.passAll(t)
	if len(warnings) != 0 {
		t.Fatalf("spent budget: Warnings %q queued", warnings)
	}
	if !e.m.Events.Owes(sfUID) || requeue != events.OwedRetry.String() {
		t.Fatalf("spent budget: owes %v, status requeues after %s; want a debt and %s", e.m.Events.Owes(sfUID), requeue, events.OwedRetry)
	}
	budget.Set(1000, 1000)
	var all []string
	for range 3 {
		warnings, _ := e.passAll(t)
		all = append(all, warnings...)
	}
	if len(all) != 1 || !strings.HasPrefix(all[0], "Warning ReferenceNotFound: ") || !strings.Contains(all[0], "absent-ca") {
		t.Errorf("after restore: Warnings %q, want exactly one ReferenceNotFound naming absent-ca", all)
	}
	if e.m.Events.Owes(sfUID) {
		t.Errorf("the Warning is still owed after it was sent")
	}
}

// TestManagerForgetsDebtWhoseCauseIsGone: when the spec stops naming the
// missing ConfigMap before the budget is back, the owed Warning is never
// sent, and the status pass stops coming back for it.
func TestManagerForgetsDebtWhoseCauseIsGone(t *testing.T) {
	e, budget := newSpentEnv(t, missingCAServer())
	if warnings, _ := e.passAll(t); len(warnings) != 0 || !e.m.Events.Owes(sfUID) {
		t.Fatalf("spent budget: Warnings %q, owes %v", warnings, e.m.Events.Owes(sfUID))
	}
	fixed := missingCAServer()
	fixed.Spec.TLS = nil
	fixed.Generation = 2
	e.UpdateServer(fixed)
	budget.Set(1000, 1000)
	warnings, _ := e.passAll(t)
	if slices.ContainsFunc(warnings, func(w string) bool { return strings.Contains(w, "ReferenceNotFound") }) {
		t.Errorf("the Warning of a gone cause was sent: %q", warnings)
	}
	if e.m.Events.Owes(sfUID) {
		t.Errorf("the debt of a gone cause was kept")
	}
}

// TestManagerIdleOwesNothing: with the budget open nothing is owed, so the
// status pass keeps its own requeue (no pass, no write for Warnings).
func TestManagerIdleOwesNothing(t *testing.T) {
	e := newSFEnv(t, base.Options{}, nil, missingCAServer())
	e.m.Events.Lead()
	warnings, requeue := e.passAll(t)
	if len(warnings) != 1 || e.m.Events.Owes(sfUID) {
		t.Errorf("open budget: Warnings %q, owes %v; want one sent, nothing owed", warnings, e.m.Events.Owes(sfUID))
	}
	if requeue == events.OwedRetry.String() {
		t.Errorf("status requeues after %s with nothing owed", requeue)
	}
}
