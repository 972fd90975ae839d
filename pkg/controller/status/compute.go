package status

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/probe"
	"github.com/ogx-k8s/ogx-controller/pkg/resolve"
)

// statusInputs is everything the status is computed from; gathering it is
// the only part that reads caches or the network, so computeStatus itself is
// a pure function that table tests drive directly.
type statusInputs struct {
	server          *ogxv1beta1.OGXServer
	deployment      *appsv1.Deployment // nil: not in the cache
	serviceExists   bool
	pvc             *corev1.PersistentVolumeClaim // nil: not in the cache
	pvcName         string
	ingress         *networkingv1.Ingress // nil: not in the cache
	outcomes        map[string]base.Outcome
	facts           []metav1.Condition // conditions reported by controllers (adoption)
	controllers     []string           // child controllers in the fixed error order
	probe           *probe.Result
	probeEnabled    bool
	operatorVersion string
	clusterDomain   string
	table           resolve.DistributionTable
	image           string
	configSource    string
	configHash      string
	// lastHandledRecheck is the recheck annotation value last answered.
	lastHandledRecheck string
	generated          *resolve.GeneratedConfig
	now                metav1.Time
}

// statusResult is the computed status and how soon to look again.
type statusResult struct {
	status       ogxv1beta1.OGXServerStatus
	requeueAfter time.Duration
	// wait: the outcome board is incomplete, so nothing is written. No
	// requeue: each controller's first outcome enqueues the status pass.
	// Sync checks the board before gathering (status.go); computeStatus
	// checks it again so that it stays whole for the table tests.
	wait bool
}

// computeStatus derives the complete status from its inputs and the current
// status (whose condition timestamps and sticky fields it keeps). The order
// matters only for the phase, which reads what the conditions before it found.
func computeStatus(in statusInputs) statusResult {
	s := in.server
	if !boardComplete(in) {
		return statusResult{wait: true}
	}
	st := ogxv1beta1.OGXServerStatus{
		ObservedGeneration: s.Generation,
		Phase:              s.Status.Phase,
		Version:            versionStatus(in),
	}
	cs := newConditionSet(s.Status.Conditions, s.Generation, in.now)
	setDistribution(in, &st)
	setEndpoints(in, &st)
	st.ConfigGeneration = configGenerated(in, cs)
	expected := expectedReplicas(s, in.deployment)
	deployFailed, rolledOut := deploymentReady(in.deployment, expected, cs)
	storageReady(in, cs)
	adoptedConditions(in, cs)
	adoptionConfigInvalid(in, cs)
	serviceReady(in, cs)
	healthCheck(in, cs)
	res := phaseAndReadiness(in, cs, &st, expected, deployFailed, rolledOut)
	st.Conditions = cs.result()
	res.status = st
	return res
}

// boardComplete: every child controller must have reported for this object
// before the phase may change (after a restart the board starts empty).
// Except a new server's deployment controller, which reports nothing until
// the Service exists (deployment.serviceFirst): while there is no
// Deployment and the service controller's pass of this generation did not
// end OK, status shows that rather than wait for a Service that may never come.
func boardComplete(in statusInputs) bool {
	if in.server.DeletionTimestamp != nil {
		return true
	}
	for _, name := range in.controllers {
		if _, ok := in.outcomes[name]; !ok && !(name == base.ControllerDeployment && in.deployment == nil && serviceFailed(in)) {
			return false
		}
	}
	return true
}

// serviceFailed: the service controller's pass of the current generation
// did not end OK.
func serviceFailed(in statusInputs) bool {
	o, ok := in.outcomes[base.ControllerService]
	return ok && o.Generation == in.server.Generation && o.Class != base.OutcomeOK
}
