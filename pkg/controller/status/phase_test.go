package status

// Table tests of computeStatus for the phase and Ready (phase.go;
// docs/status.md, Phase). The fixtures are in status_compute_test.go.

import (
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
)

func TestStatusComputePhases(t *testing.T) {
	progressing := func(msg string) []metav1.Condition {
		return []metav1.Condition{
			scCond(ogxv1beta1.ConditionReady, metav1.ConditionFalse, "DeploymentProgressing", msg, scNow),
			scCond(ogxv1beta1.ConditionReconciling, metav1.ConditionTrue, ogxv1beta1.ReasonProgressing, msg, scNow),
		}
	}
	scaling01 := "Deployment is scaling: 0/1 replicas available"
	waitCM := "waiting for generated ConfigMap demo-config-0123456789abcdef"
	waitGC := "waiting for garbage collection of Service demo-service owned by a previous OGXServer"
	deadline := `ReplicaSet "demo-5d8f7" has timed out progressing.`
	failedDeployment := func(d *appsv1.Deployment, typ appsv1.DeploymentConditionType, st corev1.ConditionStatus, reason, msg string) *appsv1.Deployment {
		d.Status.Conditions = []appsv1.DeploymentCondition{
			{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionFalse, Reason: "MinimumReplicasUnavailable"},
			{Type: typ, Status: st, Reason: reason, Message: msg},
		}
		return d
	}

	scRun(t, []scCase{
		{
			name: "Pending: no Deployment",
			in:   scInputs(func(in *statusInputs) { in.deployment = nil }),
			want: statusResult{requeueAfter: 10 * time.Second, status: scStatus(ogxv1beta1.PhasePending, 0,
				scConfigInactive(scNow),
				scCond(ogxv1beta1.ConditionDeploymentReady, metav1.ConditionFalse, "DeploymentPending", "Deployment is pending", scNow),
				scServiceReady(scNow), scHealthDisabled(scNow),
				scCond(ogxv1beta1.ConditionReady, metav1.ConditionFalse, "DeploymentPending", "Deployment is pending", scNow),
				scCond(ogxv1beta1.ConditionReconciling, metav1.ConditionTrue, ogxv1beta1.ReasonProgressing, "Waiting for the Deployment to be created", scNow),
			)},
		},
		{
			name: "Pending: no Service either",
			in:   scInputs(func(in *statusInputs) { in.deployment, in.serviceExists = nil, false }),
			want: statusResult{requeueAfter: 10 * time.Second, status: func() ogxv1beta1.OGXServerStatus {
				st := scStatus(ogxv1beta1.PhasePending, 0,
					scConfigInactive(scNow),
					scCond(ogxv1beta1.ConditionDeploymentReady, metav1.ConditionFalse, "DeploymentPending", "Deployment is pending", scNow),
					scCond(ogxv1beta1.ConditionServiceReady, metav1.ConditionFalse, "ServicePending", "Service demo-service not found", scNow),
					scHealthDisabled(scNow),
					scCond(ogxv1beta1.ConditionReady, metav1.ConditionFalse, "DeploymentPending", "Deployment is pending", scNow),
					scCond(ogxv1beta1.ConditionReconciling, metav1.ConditionTrue, ogxv1beta1.ReasonProgressing, "Waiting for the Deployment to be created", scNow),
				)
				st.ServiceURL = ""
				return st
			}()},
		},
		{
			name: "Initializing: rollout incomplete",
			in:   scInputs(func(in *statusInputs) { in.deployment = scDeployment(1, 0) }),
			want: statusResult{requeueAfter: 10 * time.Second, status: scStatus(ogxv1beta1.PhaseInitializing, 0,
				append([]metav1.Condition{scConfigInactive(scNow),
					scCond(ogxv1beta1.ConditionDeploymentReady, metav1.ConditionFalse, "DeploymentProgressing", scaling01, scNow),
					scServiceReady(scNow), scHealthDisabled(scNow)}, progressing(scaling01)...)...)},
		},
		{
			name: "Initializing: Deployment controller has not observed the new template",
			in: scInputs(func(in *statusInputs) {
				in.deployment.Generation = 5 // observedGeneration 4
			}),
			want: statusResult{requeueAfter: 10 * time.Second, status: scStatus(ogxv1beta1.PhaseInitializing, 1,
				append([]metav1.Condition{scConfigInactive(scNow),
					scCond(ogxv1beta1.ConditionDeploymentReady, metav1.ConditionFalse, "DeploymentProgressing", "Deployment is scaling: 1/1 replicas available", scNow),
					scServiceReady(scNow), scHealthDisabled(scNow)}, progressing("Deployment is scaling: 1/1 replicas available")...)...)},
		},
		{
			name: "Initializing: old replicas remain",
			in: scInputs(func(in *statusInputs) {
				in.deployment = scDeployment(2, 2)
				in.server.Spec.Workload = &ogxv1beta1.WorkloadSpec{Replicas: ptr.To[int32](2)}
				in.deployment.Status.Replicas = 3
			}),
			want: statusResult{requeueAfter: 10 * time.Second, status: scStatus(ogxv1beta1.PhaseInitializing, 2,
				append([]metav1.Condition{scConfigInactive(scNow),
					scCond(ogxv1beta1.ConditionDeploymentReady, metav1.ConditionFalse, "DeploymentProgressing", "Deployment is scaling: 2/2 replicas available", scNow),
					scServiceReady(scNow), scHealthDisabled(scNow)}, progressing("Deployment is scaling: 2/2 replicas available")...)...)},
		},
		{
			name: "Initializing: a controller is waiting",
			in: scInputs(func(in *statusInputs) {
				in.outcomes["deployment"] = base.Outcome{Generation: scGen, Class: base.OutcomeWaiting, Reason: ogxv1beta1.ReasonProgressing, Message: waitCM}
			}),
			want: statusResult{requeueAfter: 10 * time.Second, status: scStatus(ogxv1beta1.PhaseInitializing, 1,
				append([]metav1.Condition{scConfigInactive(scNow), scDeployReady(scNow), scServiceReady(scNow), scHealthDisabled(scNow)},
					progressing(waitCM)...)...)},
		},
		{
			name: "Initializing: two waits joined in controller order",
			in: scInputs(func(in *statusInputs) {
				in.outcomes["deployment"] = base.Outcome{Generation: scGen, Class: base.OutcomeWaiting, Reason: ogxv1beta1.ReasonProgressing, Message: waitCM}
				in.outcomes["service"] = base.Outcome{Generation: scGen, Class: base.OutcomeWaiting, Reason: ogxv1beta1.ReasonProgressing, Message: waitGC}
			}),
			want: statusResult{requeueAfter: 10 * time.Second, status: scStatus(ogxv1beta1.PhaseInitializing, 1,
				append([]metav1.Condition{scConfigInactive(scNow), scDeployReady(scNow), scServiceReady(scNow), scHealthDisabled(scNow)},
					progressing(waitGC+"; "+waitCM)...)...)},
		},
		{
			name: "Initializing: an outcome for an older generation",
			in:   scInputs(func(in *statusInputs) { in.outcomes["service"] = scOK(scGen - 1) }),
			want: statusResult{requeueAfter: 10 * time.Second, status: scStatus(ogxv1beta1.PhaseInitializing, 1,
				append([]metav1.Condition{scConfigInactive(scNow), scDeployReady(scNow), scServiceReady(scNow), scHealthDisabled(scNow)},
					progressing("waiting for the service controller to observe generation 2")...)...)},
		},
		{
			name: "Ready",
			in:   scInputs(),
			want: statusResult{requeueAfter: 5 * time.Minute, status: scStatus(ogxv1beta1.PhaseReady, 1,
				scConfigInactive(scNow), scDeployReady(scNow), scServiceReady(scNow), scHealthDisabled(scNow),
				scReadyAvailable("1/1 replicas available", scNow))},
		},
		{
			name: "Ready: three replicas",
			in: scInputs(func(in *statusInputs) {
				in.server.Spec.Workload = &ogxv1beta1.WorkloadSpec{Replicas: ptr.To[int32](3)}
				in.deployment = scDeployment(3, 3)
			}),
			want: statusResult{requeueAfter: 5 * time.Minute, status: scStatus(ogxv1beta1.PhaseReady, 3,
				scConfigInactive(scNow), scDeployReady(scNow), scServiceReady(scNow), scHealthDisabled(scNow),
				scReadyAvailable("3/3 replicas available", scNow))},
		},
		{
			name: "Ready: autoscaling expects the Deployment's replica count",
			in: scInputs(func(in *statusInputs) {
				in.server.Spec.Workload = &ogxv1beta1.WorkloadSpec{Autoscaling: &ogxv1beta1.AutoscalingSpec{MaxReplicas: 5}}
				in.deployment = scDeployment(4, 4)
			}),
			want: statusResult{requeueAfter: 5 * time.Minute, status: scStatus(ogxv1beta1.PhaseReady, 4,
				scConfigInactive(scNow), scDeployReady(scNow), scServiceReady(scNow), scHealthDisabled(scNow),
				scReadyAvailable("4/4 replicas available", scNow))},
		},
		{
			name: "ScaledToZero",
			in: scInputs(func(in *statusInputs) {
				in.server.Spec.Workload = &ogxv1beta1.WorkloadSpec{Replicas: ptr.To[int32](0)}
				in.deployment = scDeployment(0, 0)
			}),
			want: statusResult{requeueAfter: 5 * time.Minute, status: scStatus(ogxv1beta1.PhaseReady, 0,
				scConfigInactive(scNow),
				scCond(ogxv1beta1.ConditionDeploymentReady, metav1.ConditionTrue, "DeploymentReady", "Deployment is scaled to zero", scNow),
				scServiceReady(scNow), scHealthDisabled(scNow),
				scCond(ogxv1beta1.ConditionReady, metav1.ConditionTrue, "ScaledToZero", "scaled to zero replicas", scNow))},
		},
		{
			name: "Failed: a user error",
			in: scInputs(func(in *statusInputs) {
				in.outcomes["service"] = base.Outcome{Generation: scGen, Class: base.OutcomeUserError, Reason: ogxv1beta1.ReasonChildConflict, Message: scSvcConf}
				in.serviceExists = false
			}),
			want: statusResult{requeueAfter: time.Minute, status: func() ogxv1beta1.OGXServerStatus {
				st := scStatus(ogxv1beta1.PhaseFailed, 1,
					scConfigInactive(scNow), scDeployReady(scNow),
					scCond(ogxv1beta1.ConditionServiceReady, metav1.ConditionFalse, "ServiceFailed", scSvcConf, scNow),
					scHealthDisabled(scNow),
					scCond(ogxv1beta1.ConditionReady, metav1.ConditionFalse, ogxv1beta1.ReasonChildConflict, scSvcConf, scNow),
					scCond(ogxv1beta1.ConditionStalled, metav1.ConditionTrue, ogxv1beta1.ReasonChildConflict, scSvcConf, scNow))
				st.ServiceURL = ""
				return st
			}()},
		},
		{
			name: "Failed: several user errors joined in controller order, reason of the first",
			in: scInputs(func(in *statusInputs) {
				in.outcomes["deployment"] = base.Outcome{Generation: scGen, Class: base.OutcomeUserError, Reason: ogxv1beta1.ReasonApplyFailed, Message: "Deployment/demo: forbidden"}
				in.outcomes["service"] = base.Outcome{Generation: scGen, Class: base.OutcomeUserError, Reason: ogxv1beta1.ReasonChildConflict, Message: scSvcConf}
				in.outcomes["pvc"] = base.Outcome{Generation: scGen, Class: base.OutcomeUserError, Reason: ogxv1beta1.ReasonInvalidSpec, Message: "spec is invalid"}
				in.deployment = failedDeployment(scDeployment(1, 0), appsv1.DeploymentProgressing, corev1.ConditionFalse, "ProgressDeadlineExceeded", deadline)
			}),
			want: statusResult{requeueAfter: time.Minute, status: func() ogxv1beta1.OGXServerStatus {
				msg := "spec is invalid; " + scSvcConf + "; Deployment/demo: forbidden; " + deadline
				return scStatus(ogxv1beta1.PhaseFailed, 0,
					scConfigInactive(scNow),
					scCond(ogxv1beta1.ConditionDeploymentReady, metav1.ConditionFalse, ogxv1beta1.ReasonDeploymentFailed, deadline, scNow),
					scCond(ogxv1beta1.ConditionServiceReady, metav1.ConditionFalse, "ServiceFailed", scSvcConf, scNow),
					scHealthDisabled(scNow),
					scCond(ogxv1beta1.ConditionReady, metav1.ConditionFalse, ogxv1beta1.ReasonInvalidSpec, msg, scNow),
					scCond(ogxv1beta1.ConditionStalled, metav1.ConditionTrue, ogxv1beta1.ReasonInvalidSpec, msg, scNow))
			}()},
		},
		{
			name: "Failed: ProgressDeadlineExceeded",
			in: scInputs(func(in *statusInputs) {
				in.deployment = failedDeployment(scDeployment(1, 0), appsv1.DeploymentProgressing, corev1.ConditionFalse, "ProgressDeadlineExceeded", deadline)
			}),
			want: statusResult{requeueAfter: time.Minute, status: scStatus(ogxv1beta1.PhaseFailed, 0,
				scConfigInactive(scNow),
				scCond(ogxv1beta1.ConditionDeploymentReady, metav1.ConditionFalse, ogxv1beta1.ReasonDeploymentFailed, deadline, scNow),
				scServiceReady(scNow), scHealthDisabled(scNow),
				scCond(ogxv1beta1.ConditionReady, metav1.ConditionFalse, ogxv1beta1.ReasonDeploymentFailed, deadline, scNow),
				scCond(ogxv1beta1.ConditionStalled, metav1.ConditionTrue, ogxv1beta1.ReasonDeploymentFailed, deadline, scNow))},
		},
		{
			name: "Failed: ReplicaFailure",
			in: scInputs(func(in *statusInputs) {
				in.deployment = failedDeployment(scDeployment(1, 0), appsv1.DeploymentReplicaFailure, corev1.ConditionTrue, "FailedCreate", "exceeded quota")
			}),
			want: statusResult{requeueAfter: time.Minute, status: scStatus(ogxv1beta1.PhaseFailed, 0,
				scConfigInactive(scNow),
				scCond(ogxv1beta1.ConditionDeploymentReady, metav1.ConditionFalse, ogxv1beta1.ReasonDeploymentFailed, "exceeded quota", scNow),
				scServiceReady(scNow), scHealthDisabled(scNow),
				scCond(ogxv1beta1.ConditionReady, metav1.ConditionFalse, ogxv1beta1.ReasonDeploymentFailed, "exceeded quota", scNow),
				scCond(ogxv1beta1.ConditionStalled, metav1.ConditionTrue, ogxv1beta1.ReasonDeploymentFailed, "exceeded quota", scNow))},
		},
		{
			name: "still progressing: Progressing True is no failure",
			in: scInputs(func(in *statusInputs) {
				in.deployment = failedDeployment(scDeployment(1, 0), appsv1.DeploymentProgressing, corev1.ConditionTrue, "ReplicaSetUpdated", "progressing")
			}),
			want: statusResult{requeueAfter: 10 * time.Second, status: scStatus(ogxv1beta1.PhaseInitializing, 0,
				append([]metav1.Condition{scConfigInactive(scNow),
					scCond(ogxv1beta1.ConditionDeploymentReady, metav1.ConditionFalse, "DeploymentProgressing", scaling01, scNow),
					scServiceReady(scNow), scHealthDisabled(scNow)}, progressing(scaling01)...)...)},
		},
		{
			name: "transient: phase and Ready unchanged, Reconciling RetryingAfterError",
			in: scInputs(scWithStatus(scReadyStatus()), func(in *statusInputs) {
				in.outcomes["deployment"] = base.Outcome{Generation: scGen, Class: base.OutcomeTransient, Message: "writing Deployment demo: etcdserver: request timed out"}
			}),
			want: statusResult{requeueAfter: 10 * time.Second, status: func() ogxv1beta1.OGXServerStatus {
				st := scReadyStatus()
				st.Conditions = append(st.Conditions, scCond(ogxv1beta1.ConditionReconciling, metav1.ConditionTrue, "RetryingAfterError",
					"writing Deployment demo: etcdserver: request timed out", scNow))
				return st
			}()},
		},
		{
			name: "transient on a new object: Pending, Ready Unknown",
			in: scInputs(func(in *statusInputs) {
				in.deployment = nil
				in.outcomes["deployment"] = base.Outcome{Generation: scGen, Class: base.OutcomeTransient, Message: "the server is currently unable to handle the request"}
			}),
			want: statusResult{requeueAfter: 10 * time.Second, status: scStatus(ogxv1beta1.PhasePending, 0,
				scConfigInactive(scNow),
				scCond(ogxv1beta1.ConditionDeploymentReady, metav1.ConditionFalse, "DeploymentPending", "Deployment is pending", scNow),
				scServiceReady(scNow), scHealthDisabled(scNow),
				scCond(ogxv1beta1.ConditionReady, metav1.ConditionUnknown, "Reconciling", "Reconciling", scNow),
				scCond(ogxv1beta1.ConditionReconciling, metav1.ConditionTrue, "RetryingAfterError", "the server is currently unable to handle the request", scNow))},
		},
		{
			name: "transient: the first transient in controller order is reported",
			in: scInputs(func(in *statusInputs) {
				in.outcomes["deployment"] = base.Outcome{Generation: scGen, Class: base.OutcomeTransient, Message: "second"}
				in.outcomes["service"] = base.Outcome{Generation: scGen, Class: base.OutcomeTransient, Message: "first"}
			}),
			want: statusResult{requeueAfter: 10 * time.Second, status: scStatus(ogxv1beta1.PhasePending, 1,
				scConfigInactive(scNow), scDeployReady(scNow), scServiceReady(scNow), scHealthDisabled(scNow),
				scCond(ogxv1beta1.ConditionReady, metav1.ConditionUnknown, "Reconciling", "Reconciling", scNow),
				scCond(ogxv1beta1.ConditionReconciling, metav1.ConditionTrue, "RetryingAfterError", "first", scNow))},
		},
		{
			name: "Terminating wins over a user error, and needs no complete board",
			in: scInputs(scWithStatus(scReadyStatus()), func(in *statusInputs) {
				in.server.DeletionTimestamp = ptr.To(scT0)
				in.outcomes = map[string]base.Outcome{"service": {Generation: scGen, Class: base.OutcomeUserError, Reason: ogxv1beta1.ReasonChildConflict, Message: scSvcConf}}
			}),
			want: statusResult{status: func() ogxv1beta1.OGXServerStatus {
				st := scReadyStatus()
				st.Phase = ogxv1beta1.PhaseTerminating
				st.Conditions[2] = scCond(ogxv1beta1.ConditionServiceReady, metav1.ConditionFalse, "ServiceFailed", scSvcConf, scNow)
				st.Conditions[4] = scCond(ogxv1beta1.ConditionReady, metav1.ConditionFalse, "Terminating", "OGXServer is being deleted", scNow)
				return st
			}()},
		},
		{
			name: "board incomplete: wait without a status",
			in: scInputs(scWithStatus(scReadyStatus()), func(in *statusInputs) {
				delete(in.outcomes, "pvc")
				in.outcomes["service"] = base.Outcome{Generation: scGen, Class: base.OutcomeUserError, Reason: ogxv1beta1.ReasonChildConflict, Message: scSvcConf}
			}),
			want: statusResult{wait: true},
		},
	})
}
