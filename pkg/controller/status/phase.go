package status

import (
	"fmt"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
)

// terminal is one user-error cause.
type terminal struct{ reason, message string }

// passSummary is what the child controllers' outcomes say about this
// generation: user errors, what they wait for, and the first transient
// failure.
type passSummary struct {
	terminals  []terminal
	waiting    []string
	waitReason string
	transient  string
}

// summarizeOutcomes reads the outcomes in the controllers' fixed order.
func summarizeOutcomes(in statusInputs) passSummary {
	s := in.server
	p := passSummary{waitReason: ogxv1beta1.ReasonProgressing}
	for _, name := range in.controllers {
		o := in.outcomes[name]
		switch {
		case o.Class == base.OutcomeUserError:
			p.terminals = append(p.terminals, terminal{o.Reason, o.Message})
		case o.Class == base.OutcomeWaiting:
			p.waiting = append(p.waiting, o.Message)
			if o.Reason == ogxv1beta1.ReasonAdoptionInProgress {
				p.waitReason = ogxv1beta1.ReasonAdoptionInProgress
			}
		case o.Class == base.OutcomeTransient && p.transient == "":
			p.transient = o.Message
		case o.Generation != s.Generation && s.DeletionTimestamp == nil:
			p.waiting = append(p.waiting, fmt.Sprintf("waiting for the %s controller to observe generation %d", name, s.Generation))
		}
	}
	return p
}

// terminalMessage joins the user-error messages, each once: every
// controller re-validates the spec, so one invalid spec is reported by all
// of them.
func terminalMessage(terminals []terminal) string {
	var msgs []string
	seen := map[string]bool{}
	for _, t := range terminals {
		if !seen[t.message] {
			seen[t.message] = true
			msgs = append(msgs, t.message)
		}
	}
	return strings.Join(msgs, "; ")
}

// phaseAndReadiness sets the phase, Ready and the kstatus conditions from
// the outcomes and the rollout, and says how soon to look again. Unlike the
// other conditions these share one function: each case of the phase
// decides Ready, Reconciling and Stalled together (docs/status.md, Phase), and
// apart they would repeat the same case analysis three times.
func phaseAndReadiness(in statusInputs, cs *conditionSet, st *ogxv1beta1.OGXServerStatus, expected int32, deployFailed string, rolledOut bool) statusResult {
	s, d := in.server, in.deployment
	p := summarizeOutcomes(in)
	if deployFailed != "" {
		p.terminals = append(p.terminals, terminal{ogxv1beta1.ReasonDeploymentFailed, deployFailed})
	}
	switch {
	case s.DeletionTimestamp != nil:
		st.Phase = ogxv1beta1.PhaseTerminating
		cs.set(ogxv1beta1.ConditionReady, metav1.ConditionFalse, ogxv1beta1.ReasonTerminating, "OGXServer is being deleted")
		return statusResult{}
	case len(p.terminals) > 0:
		st.Phase = ogxv1beta1.PhaseFailed
		msg := terminalMessage(p.terminals)
		cs.set(ogxv1beta1.ConditionReady, metav1.ConditionFalse, p.terminals[0].reason, msg)
		cs.setKstatus(ogxv1beta1.ConditionStalled, metav1.ConditionTrue, p.terminals[0].reason, msg)
		return statusResult{requeueAfter: time.Minute}
	case p.transient != "":
		if st.Phase == "" {
			st.Phase = ogxv1beta1.PhasePending
		}
		// A Ready condition from an older generation must not survive: it
		// would let `kubectl wait` pass on a spec not yet applied.
		if r := apimeta.FindStatusCondition(cs.conds, ogxv1beta1.ConditionReady); r == nil || r.ObservedGeneration != s.Generation {
			cs.set(ogxv1beta1.ConditionReady, metav1.ConditionUnknown, ogxv1beta1.ReasonReconciling, "Reconciling")
		}
		cs.setKstatus(ogxv1beta1.ConditionReconciling, metav1.ConditionTrue, ogxv1beta1.ReasonRetryingAfterError, p.transient)
		return statusResult{requeueAfter: 10 * time.Second}
	case d == nil:
		st.Phase = ogxv1beta1.PhasePending
		pendingConditions(p, cs)
		return statusResult{requeueAfter: 10 * time.Second}
	case !rolledOut || len(p.waiting) > 0:
		st.Phase = ogxv1beta1.PhaseInitializing
		msg := fmt.Sprintf("Deployment is scaling: %d/%d replicas available", d.Status.AvailableReplicas, expected)
		if len(p.waiting) > 0 {
			msg = strings.Join(p.waiting, "; ")
		}
		readyReason := ogxv1beta1.ReasonDeploymentProgressing
		if p.waitReason == ogxv1beta1.ReasonAdoptionInProgress {
			readyReason = ogxv1beta1.ReasonAdoptionInProgress
		}
		cs.set(ogxv1beta1.ConditionReady, metav1.ConditionFalse, readyReason, msg)
		cs.setKstatus(ogxv1beta1.ConditionReconciling, metav1.ConditionTrue, p.waitReason, msg)
		return statusResult{requeueAfter: 10 * time.Second}
	}
	st.Phase = ogxv1beta1.PhaseReady
	return readyConditions(cs, d, expected)
}

// pendingConditions sets Ready and Reconciling while the Deployment does not
// exist: legacy storage adoption in progress, or the Deployment pending.
func pendingConditions(p passSummary, cs *conditionSet) {
	if p.waitReason == ogxv1beta1.ReasonAdoptionInProgress {
		msg := strings.Join(p.waiting, "; ")
		cs.set(ogxv1beta1.ConditionReady, metav1.ConditionFalse, ogxv1beta1.ReasonAdoptionInProgress, msg)
		cs.setKstatus(ogxv1beta1.ConditionReconciling, metav1.ConditionTrue, ogxv1beta1.ReasonAdoptionInProgress, msg)
		return
	}
	cs.set(ogxv1beta1.ConditionReady, metav1.ConditionFalse, ogxv1beta1.ReasonDeploymentPending, "Deployment is pending")
	cs.setKstatus(ogxv1beta1.ConditionReconciling, metav1.ConditionTrue, ogxv1beta1.ReasonProgressing, "Waiting for the Deployment to be created")
}

// readyConditions sets Ready True and says when to look again: soon while
// the health check fails, else in five minutes.
func readyConditions(cs *conditionSet, d *appsv1.Deployment, expected int32) statusResult {
	if expected == 0 {
		cs.set(ogxv1beta1.ConditionReady, metav1.ConditionTrue, ogxv1beta1.ReasonScaledToZero, "scaled to zero replicas")
	} else {
		cs.set(ogxv1beta1.ConditionReady, metav1.ConditionTrue, ogxv1beta1.ReasonAvailable, fmt.Sprintf("%d/%d replicas available", d.Status.AvailableReplicas, expected))
	}
	if c := apimeta.FindStatusCondition(cs.conds, ogxv1beta1.ConditionHealthCheck); c != nil && c.Status == metav1.ConditionFalse {
		return statusResult{requeueAfter: 30 * time.Second}
	}
	return statusResult{requeueAfter: 5 * time.Minute}
}
