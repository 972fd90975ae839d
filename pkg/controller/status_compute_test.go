package controller

// Table tests of the pure computeStatus (docs/status.md). Every case compares
// the complete statusResult with go-cmp.

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/resolve"
)

var (
	scT0  = metav1.NewTime(time.Date(2026, 1, 10, 8, 0, 0, 0, time.UTC))
	scNow = metav1.NewTime(time.Date(2026, 1, 10, 9, 30, 0, 0, time.UTC))
)

const (
	scGen     = int64(2)
	scImage   = "docker.io/ogxai/distribution-starter:latest"
	scURL     = "http://demo-service.team-a.svc.cluster.local:8321"
	scPVC     = "demo-pvc"
	scSvcConf = "Service demo-service exists and is not managed by this OGXServer"
)

// scControllers is the fixed controller order of docs/status.md, Terminal
// reasons (of the controllers the Manager runs).
var scControllers = []string{"configmap", "pvc", "service", "networkpolicy", "deployment", "hpa", "pdb", "ingress"}

func scAllOK() map[string]Outcome {
	out := map[string]Outcome{}
	for _, c := range scControllers {
		out[c] = scOK(scGen)
	}
	return out
}

// scServer is the OGXServer at generation scGen with the given mutations.
func scServer(muts ...func(*ogxv1beta1.OGXServer)) *ogxv1beta1.OGXServer {
	s := sfServer(sfNamespace, sfName, sfUID)
	s.Generation = scGen
	for _, m := range muts {
		m(s)
	}
	return s
}

// scDeployment is a Deployment whose rollout of `replicas` has `available`
// available pods.
func scDeployment(replicas, available int32) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: sfName, Namespace: sfNamespace, Generation: 4},
		Spec:       appsv1.DeploymentSpec{Replicas: ptr.To(replicas)},
		Status: appsv1.DeploymentStatus{ObservedGeneration: 4, Replicas: replicas, UpdatedReplicas: replicas,
			ReadyReplicas: available, AvailableReplicas: available},
	}
}

func scOK(gen int64) Outcome { return Outcome{Generation: gen, Class: OutcomeOK} }

// scInputs are the inputs of a converged, ready server: every controller
// reported ok for the current generation, the Deployment is rolled out and
// the Service exists; the probe is off.
func scInputs(muts ...func(*statusInputs)) statusInputs {
	in := statusInputs{
		server:          scServer(),
		deployment:      scDeployment(1, 1),
		serviceExists:   true,
		pvcName:         scPVC,
		outcomes:        scAllOK(),
		controllers:     scControllers,
		operatorVersion: "v1.0.0",
		clusterDomain:   "cluster.local",
		table:           sfTable(),
		image:           scImage,
		configSource:    "builtin",
		now:             scNow,
	}
	for _, m := range muts {
		m(&in)
	}
	return in
}

// scCond is a condition of the current generation that last flipped at t.
func scCond(typ string, status metav1.ConditionStatus, reason, msg string, t metav1.Time) metav1.Condition {
	return metav1.Condition{Type: typ, Status: status, Reason: reason, Message: msg, ObservedGeneration: scGen, LastTransitionTime: t}
}

// Conditions as a converged server without storage and probe shows them.
func scConfigInactive(t metav1.Time) metav1.Condition {
	return scCond(CondConfigGenerated, metav1.ConditionFalse, "ConfigGenerationInactive", "Declarative config generation is not active", t)
}
func scDeployReady(t metav1.Time) metav1.Condition {
	return scCond(CondDeploymentReady, metav1.ConditionTrue, "DeploymentReady", "Deployment is ready", t)
}
func scServiceReady(t metav1.Time) metav1.Condition {
	return scCond(CondServiceReady, metav1.ConditionTrue, "ServiceReady", "Service is ready", t)
}
func scHealthDisabled(t metav1.Time) metav1.Condition {
	return scCond(CondHealthCheck, metav1.ConditionUnknown, "HealthCheckDisabled", "The server probe is disabled", t)
}
func scReadyAvailable(msg string, t metav1.Time) metav1.Condition {
	return scCond(CondReady, metav1.ConditionTrue, "Available", msg, t)
}

// scStatus is the status of a converged server with the given phase,
// available replicas and conditions.
func scStatus(phase ogxv1beta1.Phase, available int32, conds ...metav1.Condition) ogxv1beta1.OGXServerStatus {
	return ogxv1beta1.OGXServerStatus{
		ObservedGeneration: scGen,
		Phase:              phase,
		Conditions:         conds,
		AvailableReplicas:  available,
		ServiceURL:         scURL,
		Version:            ogxv1beta1.VersionInfo{OperatorVersion: "v1.0.0", LastUpdated: scNow},
		DistributionConfig: ogxv1beta1.DistributionConfig{
			ActiveDistribution:     "starter",
			AvailableDistributions: ogxv1beta1.Distributions(),
		},
		ResolvedDistribution: &ogxv1beta1.ResolvedDistribution{Image: scImage, ConfigSource: "builtin"},
	}
}

// scReadyStatus is the status computeStatus returns for scInputs() at scT0,
// used as the stored status of later passes.
func scReadyStatus() ogxv1beta1.OGXServerStatus {
	st := scStatus(ogxv1beta1.PhaseReady, 1,
		scConfigInactive(scT0), scDeployReady(scT0), scServiceReady(scT0), scHealthDisabled(scT0),
		scReadyAvailable("1/1 replicas available", scT0))
	st.Version.LastUpdated = scT0
	return st
}

func scWithStatus(st ogxv1beta1.OGXServerStatus) func(*statusInputs) {
	return func(in *statusInputs) { in.server.Status = st }
}

func scWithSpec(f func(*ogxv1beta1.OGXServerSpec)) func(*statusInputs) {
	return func(in *statusInputs) { f(&in.server.Spec) }
}

type scCase struct {
	name string
	in   statusInputs
	want statusResult
}

func scRun(t *testing.T, cases []scCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := tc.in.server.DeepCopy()
			got := computeStatus(tc.in)
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(statusResult{})); diff != "" {
				t.Errorf("computeStatus (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, tc.in.server); diff != "" {
				t.Errorf("computeStatus mutated its input server:\n%s", diff)
			}
		})
	}
}

func TestStatusComputePhases(t *testing.T) {
	progressing := func(msg string) []metav1.Condition {
		return []metav1.Condition{
			scCond(CondReady, metav1.ConditionFalse, "DeploymentProgressing", msg, scNow),
			scCond(CondReconciling, metav1.ConditionTrue, ReasonProgressing, msg, scNow),
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
				scCond(CondDeploymentReady, metav1.ConditionFalse, "DeploymentPending", "Deployment is pending", scNow),
				scServiceReady(scNow), scHealthDisabled(scNow),
				scCond(CondReady, metav1.ConditionFalse, "DeploymentPending", "Deployment is pending", scNow),
				scCond(CondReconciling, metav1.ConditionTrue, ReasonProgressing, "Waiting for the Deployment to be created", scNow),
			)},
		},
		{
			name: "Pending: no Service either",
			in:   scInputs(func(in *statusInputs) { in.deployment, in.serviceExists = nil, false }),
			want: statusResult{requeueAfter: 10 * time.Second, status: func() ogxv1beta1.OGXServerStatus {
				st := scStatus(ogxv1beta1.PhasePending, 0,
					scConfigInactive(scNow),
					scCond(CondDeploymentReady, metav1.ConditionFalse, "DeploymentPending", "Deployment is pending", scNow),
					scCond(CondServiceReady, metav1.ConditionFalse, "ServicePending", "Service demo-service not found", scNow),
					scHealthDisabled(scNow),
					scCond(CondReady, metav1.ConditionFalse, "DeploymentPending", "Deployment is pending", scNow),
					scCond(CondReconciling, metav1.ConditionTrue, ReasonProgressing, "Waiting for the Deployment to be created", scNow),
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
					scCond(CondDeploymentReady, metav1.ConditionFalse, "DeploymentProgressing", scaling01, scNow),
					scServiceReady(scNow), scHealthDisabled(scNow)}, progressing(scaling01)...)...)},
		},
		{
			name: "Initializing: Deployment controller has not observed the new template",
			in: scInputs(func(in *statusInputs) {
				in.deployment.Generation = 5 // observedGeneration 4
			}),
			want: statusResult{requeueAfter: 10 * time.Second, status: scStatus(ogxv1beta1.PhaseInitializing, 1,
				append([]metav1.Condition{scConfigInactive(scNow),
					scCond(CondDeploymentReady, metav1.ConditionFalse, "DeploymentProgressing", "Deployment is scaling: 1/1 replicas available", scNow),
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
					scCond(CondDeploymentReady, metav1.ConditionFalse, "DeploymentProgressing", "Deployment is scaling: 2/2 replicas available", scNow),
					scServiceReady(scNow), scHealthDisabled(scNow)}, progressing("Deployment is scaling: 2/2 replicas available")...)...)},
		},
		{
			name: "Initializing: a controller is waiting",
			in: scInputs(func(in *statusInputs) {
				in.outcomes["deployment"] = Outcome{Generation: scGen, Class: OutcomeWaiting, Reason: ReasonProgressing, Message: waitCM}
			}),
			want: statusResult{requeueAfter: 10 * time.Second, status: scStatus(ogxv1beta1.PhaseInitializing, 1,
				append([]metav1.Condition{scConfigInactive(scNow), scDeployReady(scNow), scServiceReady(scNow), scHealthDisabled(scNow)},
					progressing(waitCM)...)...)},
		},
		{
			name: "Initializing: two waits joined in controller order",
			in: scInputs(func(in *statusInputs) {
				in.outcomes["deployment"] = Outcome{Generation: scGen, Class: OutcomeWaiting, Reason: ReasonProgressing, Message: waitCM}
				in.outcomes["service"] = Outcome{Generation: scGen, Class: OutcomeWaiting, Reason: ReasonProgressing, Message: waitGC}
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
				scCond(CondDeploymentReady, metav1.ConditionTrue, "DeploymentReady", "Deployment is scaled to zero", scNow),
				scServiceReady(scNow), scHealthDisabled(scNow),
				scCond(CondReady, metav1.ConditionTrue, "ScaledToZero", "scaled to zero replicas", scNow))},
		},
		{
			name: "Failed: a user error",
			in: scInputs(func(in *statusInputs) {
				in.outcomes["service"] = Outcome{Generation: scGen, Class: OutcomeUserError, Reason: ReasonChildConflict, Message: scSvcConf}
				in.serviceExists = false
			}),
			want: statusResult{requeueAfter: time.Minute, status: func() ogxv1beta1.OGXServerStatus {
				st := scStatus(ogxv1beta1.PhaseFailed, 1,
					scConfigInactive(scNow), scDeployReady(scNow),
					scCond(CondServiceReady, metav1.ConditionFalse, "ServiceFailed", scSvcConf, scNow),
					scHealthDisabled(scNow),
					scCond(CondReady, metav1.ConditionFalse, ReasonChildConflict, scSvcConf, scNow),
					scCond(CondStalled, metav1.ConditionTrue, ReasonChildConflict, scSvcConf, scNow))
				st.ServiceURL = ""
				return st
			}()},
		},
		{
			name: "Failed: several user errors joined in controller order, reason of the first",
			in: scInputs(func(in *statusInputs) {
				in.outcomes["deployment"] = Outcome{Generation: scGen, Class: OutcomeUserError, Reason: ReasonApplyFailed, Message: "Deployment/demo: forbidden"}
				in.outcomes["service"] = Outcome{Generation: scGen, Class: OutcomeUserError, Reason: ReasonChildConflict, Message: scSvcConf}
				in.outcomes["pvc"] = Outcome{Generation: scGen, Class: OutcomeUserError, Reason: resolve.ReasonInvalidSpec, Message: "spec is invalid"}
				in.deployment = failedDeployment(scDeployment(1, 0), appsv1.DeploymentProgressing, corev1.ConditionFalse, "ProgressDeadlineExceeded", deadline)
			}),
			want: statusResult{requeueAfter: time.Minute, status: func() ogxv1beta1.OGXServerStatus {
				msg := "spec is invalid; " + scSvcConf + "; Deployment/demo: forbidden; " + deadline
				return scStatus(ogxv1beta1.PhaseFailed, 0,
					scConfigInactive(scNow),
					scCond(CondDeploymentReady, metav1.ConditionFalse, ReasonDeploymentFailed, deadline, scNow),
					scCond(CondServiceReady, metav1.ConditionFalse, "ServiceFailed", scSvcConf, scNow),
					scHealthDisabled(scNow),
					scCond(CondReady, metav1.ConditionFalse, resolve.ReasonInvalidSpec, msg, scNow),
					scCond(CondStalled, metav1.ConditionTrue, resolve.ReasonInvalidSpec, msg, scNow))
			}()},
		},
		{
			name: "Failed: ProgressDeadlineExceeded",
			in: scInputs(func(in *statusInputs) {
				in.deployment = failedDeployment(scDeployment(1, 0), appsv1.DeploymentProgressing, corev1.ConditionFalse, "ProgressDeadlineExceeded", deadline)
			}),
			want: statusResult{requeueAfter: time.Minute, status: scStatus(ogxv1beta1.PhaseFailed, 0,
				scConfigInactive(scNow),
				scCond(CondDeploymentReady, metav1.ConditionFalse, ReasonDeploymentFailed, deadline, scNow),
				scServiceReady(scNow), scHealthDisabled(scNow),
				scCond(CondReady, metav1.ConditionFalse, ReasonDeploymentFailed, deadline, scNow),
				scCond(CondStalled, metav1.ConditionTrue, ReasonDeploymentFailed, deadline, scNow))},
		},
		{
			name: "Failed: ReplicaFailure",
			in: scInputs(func(in *statusInputs) {
				in.deployment = failedDeployment(scDeployment(1, 0), appsv1.DeploymentReplicaFailure, corev1.ConditionTrue, "FailedCreate", "exceeded quota")
			}),
			want: statusResult{requeueAfter: time.Minute, status: scStatus(ogxv1beta1.PhaseFailed, 0,
				scConfigInactive(scNow),
				scCond(CondDeploymentReady, metav1.ConditionFalse, ReasonDeploymentFailed, "exceeded quota", scNow),
				scServiceReady(scNow), scHealthDisabled(scNow),
				scCond(CondReady, metav1.ConditionFalse, ReasonDeploymentFailed, "exceeded quota", scNow),
				scCond(CondStalled, metav1.ConditionTrue, ReasonDeploymentFailed, "exceeded quota", scNow))},
		},
		{
			name: "still progressing: Progressing True is no failure",
			in: scInputs(func(in *statusInputs) {
				in.deployment = failedDeployment(scDeployment(1, 0), appsv1.DeploymentProgressing, corev1.ConditionTrue, "ReplicaSetUpdated", "progressing")
			}),
			want: statusResult{requeueAfter: 10 * time.Second, status: scStatus(ogxv1beta1.PhaseInitializing, 0,
				append([]metav1.Condition{scConfigInactive(scNow),
					scCond(CondDeploymentReady, metav1.ConditionFalse, "DeploymentProgressing", scaling01, scNow),
					scServiceReady(scNow), scHealthDisabled(scNow)}, progressing(scaling01)...)...)},
		},
		{
			name: "transient: phase and Ready unchanged, Reconciling RetryingAfterError",
			in: scInputs(scWithStatus(scReadyStatus()), func(in *statusInputs) {
				in.outcomes["deployment"] = Outcome{Generation: scGen, Class: OutcomeTransient, Message: "writing Deployment demo: etcdserver: request timed out"}
			}),
			want: statusResult{requeueAfter: 10 * time.Second, status: func() ogxv1beta1.OGXServerStatus {
				st := scReadyStatus()
				st.Conditions = append(st.Conditions, scCond(CondReconciling, metav1.ConditionTrue, "RetryingAfterError",
					"writing Deployment demo: etcdserver: request timed out", scNow))
				return st
			}()},
		},
		{
			name: "transient on a new object: Pending, Ready Unknown",
			in: scInputs(func(in *statusInputs) {
				in.deployment = nil
				in.outcomes["deployment"] = Outcome{Generation: scGen, Class: OutcomeTransient, Message: "the server is currently unable to handle the request"}
			}),
			want: statusResult{requeueAfter: 10 * time.Second, status: scStatus(ogxv1beta1.PhasePending, 0,
				scConfigInactive(scNow),
				scCond(CondDeploymentReady, metav1.ConditionFalse, "DeploymentPending", "Deployment is pending", scNow),
				scServiceReady(scNow), scHealthDisabled(scNow),
				scCond(CondReady, metav1.ConditionUnknown, "Reconciling", "Reconciling", scNow),
				scCond(CondReconciling, metav1.ConditionTrue, "RetryingAfterError", "the server is currently unable to handle the request", scNow))},
		},
		{
			name: "transient: the first transient in controller order is reported",
			in: scInputs(func(in *statusInputs) {
				in.outcomes["deployment"] = Outcome{Generation: scGen, Class: OutcomeTransient, Message: "second"}
				in.outcomes["service"] = Outcome{Generation: scGen, Class: OutcomeTransient, Message: "first"}
			}),
			want: statusResult{requeueAfter: 10 * time.Second, status: scStatus(ogxv1beta1.PhasePending, 1,
				scConfigInactive(scNow), scDeployReady(scNow), scServiceReady(scNow), scHealthDisabled(scNow),
				scCond(CondReady, metav1.ConditionUnknown, "Reconciling", "Reconciling", scNow),
				scCond(CondReconciling, metav1.ConditionTrue, "RetryingAfterError", "first", scNow))},
		},
		{
			name: "Terminating wins over a user error, and needs no complete board",
			in: scInputs(scWithStatus(scReadyStatus()), func(in *statusInputs) {
				in.server.DeletionTimestamp = ptr.To(scT0)
				in.outcomes = map[string]Outcome{"service": {Generation: scGen, Class: OutcomeUserError, Reason: ReasonChildConflict, Message: scSvcConf}}
			}),
			want: statusResult{status: func() ogxv1beta1.OGXServerStatus {
				st := scReadyStatus()
				st.Phase = ogxv1beta1.PhaseTerminating
				st.Conditions[2] = scCond(CondServiceReady, metav1.ConditionFalse, "ServiceFailed", scSvcConf, scNow)
				st.Conditions[4] = scCond(CondReady, metav1.ConditionFalse, "Terminating", "OGXServer is being deleted", scNow)
				return st
			}()},
		},
		{
			name: "board incomplete: wait without a status",
			in: scInputs(scWithStatus(scReadyStatus()), func(in *statusInputs) {
				delete(in.outcomes, "deployment")
				in.outcomes["service"] = Outcome{Generation: scGen, Class: OutcomeUserError, Reason: ReasonChildConflict, Message: scSvcConf}
			}),
			want: statusResult{wait: true, requeueAfter: time.Second},
		},
	})
}

func TestStatusComputeStorageReady(t *testing.T) {
	pvc := func(phase corev1.PersistentVolumeClaimPhase, capacity string) *corev1.PersistentVolumeClaim {
		p := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: scPVC, Namespace: sfNamespace}}
		p.Status.Phase = phase
		if capacity != "" {
			p.Status.Capacity = corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(capacity)}
		}
		return p
	}
	withStorage := func(size string) func(*statusInputs) {
		return scWithSpec(func(s *ogxv1beta1.OGXServerSpec) { sfWithStorage(size)(s) })
	}
	ready := func(storage metav1.Condition) statusResult {
		return statusResult{requeueAfter: 5 * time.Minute, status: scStatus(ogxv1beta1.PhaseReady, 1,
			scConfigInactive(scNow), scDeployReady(scNow), storage, scServiceReady(scNow), scHealthDisabled(scNow),
			scReadyAvailable("1/1 replicas available", scNow))}
	}
	scRun(t, []scCase{
		{
			name: "Bound, sizes equal",
			in:   scInputs(withStorage(""), func(in *statusInputs) { in.pvc = pvc(corev1.ClaimBound, "10Gi") }),
			want: ready(scCond(CondStorageReady, metav1.ConditionTrue, "StorageReady", "Storage is ready", scNow)),
		},
		{
			name: "Bound, equal by value in another unit",
			in:   scInputs(withStorage("1Gi"), func(in *statusInputs) { in.pvc = pvc(corev1.ClaimBound, "1024Mi") }),
			want: ready(scCond(CondStorageReady, metav1.ConditionTrue, "StorageReady", "Storage is ready", scNow)),
		},
		{
			name: "Bound, larger than requested",
			in:   scInputs(withStorage(""), func(in *statusInputs) { in.pvc = pvc(corev1.ClaimBound, "20Gi") }),
			want: ready(scCond(CondStorageReady, metav1.ConditionTrue, "StorageReady",
				"Storage is ready (requested 10Gi, actual 20Gi; ogx-controller does not resize PVCs)", scNow)),
		},
		{
			name: "Bound, spec asks for a resize",
			in:   scInputs(withStorage("50Gi"), func(in *statusInputs) { in.pvc = pvc(corev1.ClaimBound, "10Gi") }),
			want: ready(scCond(CondStorageReady, metav1.ConditionTrue, "StorageReady",
				"Storage is ready (requested 50Gi, actual 10Gi; ogx-controller does not resize PVCs)", scNow)),
		},
		{
			name: "Pending",
			in:   scInputs(withStorage(""), func(in *statusInputs) { in.pvc = pvc(corev1.ClaimPending, "") }),
			want: ready(scCond(CondStorageReady, metav1.ConditionFalse, "StoragePending", "PVC demo-pvc is not bound: Pending", scNow)),
		},
		{
			name: "no phase yet",
			in:   scInputs(withStorage(""), func(in *statusInputs) { in.pvc = pvc("", "") }),
			want: ready(scCond(CondStorageReady, metav1.ConditionFalse, "StoragePending", "PVC demo-pvc is not bound: Pending", scNow)),
		},
		{
			name: "Lost",
			in:   scInputs(withStorage(""), func(in *statusInputs) { in.pvc = pvc(corev1.ClaimLost, "10Gi") }),
			want: ready(scCond(CondStorageReady, metav1.ConditionFalse, "StorageFailed", "PVC demo-pvc is lost", scNow)),
		},
		{
			name: "not found",
			in:   scInputs(withStorage("")),
			want: ready(scCond(CondStorageReady, metav1.ConditionFalse, "StorageFailed", "PVC demo-pvc not found", scNow)),
		},
		{
			name: "storage removed: the condition goes",
			in: scInputs(scWithStatus(func() ogxv1beta1.OGXServerStatus {
				st := scReadyStatus()
				st.Conditions = append(st.Conditions[:2:2], append([]metav1.Condition{
					scCond(CondStorageReady, metav1.ConditionTrue, "StorageReady", "Storage is ready", scT0)}, st.Conditions[2:]...)...)
				return st
			}()), func(in *statusInputs) { in.pvc = pvc(corev1.ClaimBound, "10Gi") }),
			want: statusResult{requeueAfter: 5 * time.Minute, status: scReadyStatus()},
		},
	})
}

func TestStatusComputeHealthCheck(t *testing.T) {
	probeOn := func(in *statusInputs) { in.probeEnabled = true }
	providers := []ogxv1beta1.ProviderInfo{{API: "inference", ProviderID: "vllm", ProviderType: "remote::vllm",
		Config: apiextensionsv1.JSON{Raw: []byte(`{}`)}, Health: ogxv1beta1.ProviderHealthStatus{Status: "OK"}}}
	healthy := &ProbeResult{Healthy: true, Version: "0.4.1", Providers: providers}
	unhealthy := &ProbeResult{HealthMessage: "GET /v1/health returned HTTP 503"}
	base := func(phase ogxv1beta1.Phase, available int32, deploy, health, ready metav1.Condition, rest ...metav1.Condition) ogxv1beta1.OGXServerStatus {
		return scStatus(phase, available, append([]metav1.Condition{scConfigInactive(scNow), deploy, scServiceReady(scNow), health, ready}, rest...)...)
	}
	notReady := scCond(CondHealthCheck, metav1.ConditionFalse, "DeploymentNotReady", "Deployment not ready", scNow)
	scRun(t, []scCase{
		{
			name: "disabled: Unknown",
			in:   scInputs(),
			want: statusResult{requeueAfter: 5 * time.Minute, status: base(ogxv1beta1.PhaseReady, 1, scDeployReady(scNow),
				scHealthDisabled(scNow), scReadyAvailable("1/1 replicas available", scNow))},
		},
		{
			name: "no Deployment: DeploymentNotReady",
			in:   scInputs(probeOn, func(in *statusInputs) { in.deployment = nil }),
			want: statusResult{requeueAfter: 10 * time.Second, status: base(ogxv1beta1.PhasePending, 0,
				scCond(CondDeploymentReady, metav1.ConditionFalse, "DeploymentPending", "Deployment is pending", scNow), notReady,
				scCond(CondReady, metav1.ConditionFalse, "DeploymentPending", "Deployment is pending", scNow),
				scCond(CondReconciling, metav1.ConditionTrue, ReasonProgressing, "Waiting for the Deployment to be created", scNow))},
		},
		{
			name: "no available replica: DeploymentNotReady",
			in:   scInputs(probeOn, func(in *statusInputs) { in.deployment = scDeployment(1, 0) }),
			want: statusResult{requeueAfter: 10 * time.Second, status: base(ogxv1beta1.PhaseInitializing, 0,
				scCond(CondDeploymentReady, metav1.ConditionFalse, "DeploymentProgressing", "Deployment is scaling: 0/1 replicas available", scNow), notReady,
				scCond(CondReady, metav1.ConditionFalse, "DeploymentProgressing", "Deployment is scaling: 0/1 replicas available", scNow),
				scCond(CondReconciling, metav1.ConditionTrue, ReasonProgressing, "Deployment is scaling: 0/1 replicas available", scNow))},
		},
		{
			name: "passed: providers and server version reported",
			in:   scInputs(probeOn, func(in *statusInputs) { in.probe = healthy }),
			want: statusResult{requeueAfter: 5 * time.Minute, status: func() ogxv1beta1.OGXServerStatus {
				st := base(ogxv1beta1.PhaseReady, 1, scDeployReady(scNow),
					scCond(CondHealthCheck, metav1.ConditionTrue, "HealthCheckPassed", "Health check passed", scNow),
					scReadyAvailable("1/1 replicas available", scNow))
				st.Version.ServerVersion = "0.4.1"
				st.DistributionConfig.Providers = providers
				return st
			}()},
		},
		{
			name: "failed: Ready unaffected, requeue 30s",
			in:   scInputs(probeOn, func(in *statusInputs) { in.probe = unhealthy }),
			want: statusResult{requeueAfter: 30 * time.Second, status: base(ogxv1beta1.PhaseReady, 1, scDeployReady(scNow),
				scCond(CondHealthCheck, metav1.ConditionFalse, "HealthCheckFailed", "GET /v1/health returned HTTP 503", scNow),
				scReadyAvailable("1/1 replicas available", scNow))},
		},
		{
			name: "failed after passing: the flip moves the time, Ready keeps its own",
			in: scInputs(probeOn, scWithStatus(func() ogxv1beta1.OGXServerStatus {
				st := scReadyStatus()
				st.Conditions[3] = scCond(CondHealthCheck, metav1.ConditionTrue, "HealthCheckPassed", "Health check passed", scT0)
				st.Version.ServerVersion = "0.4.1"
				return st
			}()), func(in *statusInputs) { in.probe = unhealthy }),
			want: statusResult{requeueAfter: 30 * time.Second, status: func() ogxv1beta1.OGXServerStatus {
				st := scReadyStatus()
				st.Conditions[3] = scCond(CondHealthCheck, metav1.ConditionFalse, "HealthCheckFailed", "GET /v1/health returned HTTP 503", scNow)
				st.Version.ServerVersion = "0.4.1" // kept when the probe does not tell
				return st
			}()},
		},
		{
			name: "not probed yet: the stored verdict stays",
			in: scInputs(probeOn, scWithStatus(func() ogxv1beta1.OGXServerStatus {
				st := scReadyStatus()
				st.Conditions[3] = scCond(CondHealthCheck, metav1.ConditionTrue, "HealthCheckPassed", "Health check passed", scT0)
				return st
			}())),
			want: statusResult{requeueAfter: 5 * time.Minute, status: func() ogxv1beta1.OGXServerStatus {
				st := scReadyStatus()
				st.Conditions[3] = scCond(CondHealthCheck, metav1.ConditionTrue, "HealthCheckPassed", "Health check passed", scT0)
				return st
			}()},
		},
	})
}

// TestStatusComputeConditionBookkeeping covers order, presence of
// Reconciling/Stalled, lastTransitionTime (changed only on a flip),
// observedGeneration and version.lastUpdated.
func TestStatusComputeConditionBookkeeping(t *testing.T) {
	scaling := func(a, d int) string { return fmt.Sprintf("Deployment is scaling: %d/%d replicas available", a, d) }
	rollingAt := func(msg string, t metav1.Time) ogxv1beta1.OGXServerStatus {
		st := scStatus(ogxv1beta1.PhaseInitializing, 0,
			scConfigInactive(t),
			scCond(CondDeploymentReady, metav1.ConditionFalse, "DeploymentProgressing", msg, t),
			scServiceReady(t), scHealthDisabled(t),
			scCond(CondReady, metav1.ConditionFalse, "DeploymentProgressing", msg, t),
			scCond(CondReconciling, metav1.ConditionTrue, ReasonProgressing, msg, t))
		st.Version.LastUpdated = t
		return st
	}
	failedAt := func(t metav1.Time) ogxv1beta1.OGXServerStatus {
		st := scStatus(ogxv1beta1.PhaseFailed, 1,
			scConfigInactive(t), scDeployReady(t),
			scCond(CondServiceReady, metav1.ConditionFalse, "ServiceFailed", scSvcConf, t),
			scHealthDisabled(t),
			scCond(CondReady, metav1.ConditionFalse, ReasonChildConflict, scSvcConf, t),
			scCond(CondStalled, metav1.ConditionTrue, ReasonChildConflict, scSvcConf, t))
		st.ServiceURL = ""
		st.Version.LastUpdated = t
		return st
	}
	conflict := func(in *statusInputs) {
		in.outcomes["service"] = Outcome{Generation: scGen, Class: OutcomeUserError, Reason: ReasonChildConflict, Message: scSvcConf}
		in.serviceExists = false
	}

	scRun(t, []scCase{
		{
			name: "unchanged inputs: the stored status is reproduced exactly",
			in:   scInputs(scWithStatus(scReadyStatus())),
			want: statusResult{requeueAfter: 5 * time.Minute, status: scReadyStatus()},
		},
		{
			name: "still rolling out, message changes: every lastTransitionTime stays (Reconciling included)",
			in: scInputs(scWithStatus(rollingAt(scaling(0, 2), scT0)), func(in *statusInputs) {
				in.server.Spec.Workload = &ogxv1beta1.WorkloadSpec{Replicas: ptr.To[int32](2)}
				in.deployment = scDeployment(2, 1)
			}),
			want: statusResult{requeueAfter: 10 * time.Second, status: func() ogxv1beta1.OGXServerStatus {
				st := rollingAt(scaling(1, 2), scT0)
				st.AvailableReplicas = 1
				return st
			}()},
		},
		{
			name: "still rolling out, nothing changes: the status is reproduced exactly",
			in: scInputs(scWithStatus(rollingAt(scaling(0, 1), scT0)), func(in *statusInputs) {
				in.deployment = scDeployment(1, 0)
			}),
			want: statusResult{requeueAfter: 10 * time.Second, status: rollingAt(scaling(0, 1), scT0)},
		},
		{
			name: "still failed: Stalled keeps its lastTransitionTime",
			in:   scInputs(scWithStatus(failedAt(scT0)), conflict),
			want: statusResult{requeueAfter: time.Minute, status: failedAt(scT0)},
		},
		{
			name: "rollout completes: flipped conditions move, Reconciling goes",
			in:   scInputs(scWithStatus(rollingAt(scaling(0, 1), scT0))),
			want: statusResult{requeueAfter: 5 * time.Minute, status: func() ogxv1beta1.OGXServerStatus {
				st := scStatus(ogxv1beta1.PhaseReady, 1,
					scConfigInactive(scT0), scDeployReady(scNow), scServiceReady(scT0), scHealthDisabled(scT0),
					scReadyAvailable("1/1 replicas available", scNow))
				st.Version.LastUpdated = scT0
				return st
			}()},
		},
		{
			name: "fixed: Stalled goes, Ready flips",
			in:   scInputs(scWithStatus(failedAt(scT0))),
			want: statusResult{requeueAfter: 5 * time.Minute, status: func() ogxv1beta1.OGXServerStatus {
				st := scStatus(ogxv1beta1.PhaseReady, 1,
					scConfigInactive(scT0), scDeployReady(scT0), scServiceReady(scNow), scHealthDisabled(scT0),
					scReadyAvailable("1/1 replicas available", scNow))
				st.Version.LastUpdated = scT0
				return st
			}()},
		},
		{
			name: "fixed order, unknown types dropped, stale Reconciling and Stalled removed",
			in: scInputs(scWithStatus(func() ogxv1beta1.OGXServerStatus {
				st := scReadyStatus()
				c := st.Conditions
				st.Conditions = []metav1.Condition{
					scCond(CondStalled, metav1.ConditionTrue, ReasonChildConflict, "old", scT0),
					c[4], c[3],
					{Type: "Bogus", Status: metav1.ConditionTrue, Reason: "X", LastTransitionTime: scT0},
					scCond(CondReconciling, metav1.ConditionTrue, ReasonProgressing, "old", scT0),
					c[1], c[0], c[2],
				}
				return st
			}())),
			want: statusResult{requeueAfter: 5 * time.Minute, status: scReadyStatus()},
		},
		{
			name: "new generation: observedGeneration moves everywhere, times stay",
			in: scInputs(scWithStatus(func() ogxv1beta1.OGXServerStatus {
				st := scReadyStatus()
				st.ObservedGeneration = 1
				for i := range st.Conditions {
					st.Conditions[i].ObservedGeneration = 1
				}
				return st
			}())),
			want: statusResult{requeueAfter: 5 * time.Minute, status: scReadyStatus()},
		},
		{
			name: "new operator version: lastUpdated moves",
			in:   scInputs(scWithStatus(scReadyStatus()), func(in *statusInputs) { in.operatorVersion = "v1.1.0" }),
			want: statusResult{requeueAfter: 5 * time.Minute, status: func() ogxv1beta1.OGXServerStatus {
				st := scReadyStatus()
				st.Version = ogxv1beta1.VersionInfo{OperatorVersion: "v1.1.0", LastUpdated: scNow}
				return st
			}()},
		},
		{
			name: "probe reports the known server version: lastUpdated stays",
			in: scInputs(scWithStatus(func() ogxv1beta1.OGXServerStatus {
				st := scReadyStatus()
				st.Version.ServerVersion = "0.4.1"
				return st
			}()), func(in *statusInputs) { in.probe = &ProbeResult{Healthy: true, Version: "0.4.1"} }),
			want: statusResult{requeueAfter: 5 * time.Minute, status: func() ogxv1beta1.OGXServerStatus {
				st := scReadyStatus()
				st.Version.ServerVersion = "0.4.1"
				return st
			}()},
		},
		{
			name: "probe reports a new server version: lastUpdated moves",
			in: scInputs(scWithStatus(func() ogxv1beta1.OGXServerStatus {
				st := scReadyStatus()
				st.Version.ServerVersion = "0.4.1"
				return st
			}()), func(in *statusInputs) { in.probe = &ProbeResult{Healthy: true, Version: "0.5.0"} }),
			want: statusResult{requeueAfter: 5 * time.Minute, status: func() ogxv1beta1.OGXServerStatus {
				st := scReadyStatus()
				st.Version = ogxv1beta1.VersionInfo{OperatorVersion: "v1.0.0", ServerVersion: "0.5.0", LastUpdated: scNow}
				return st
			}()},
		},
	})
}

func TestStatusComputeFields(t *testing.T) {
	scRun(t, []scCase{
		{
			name: "server TLS and a custom port: https service URL; custom image",
			in: scInputs(scWithSpec(func(s *ogxv1beta1.OGXServerSpec) {
				s.Network = &ogxv1beta1.NetworkSpec{Port: 9443, TLS: &ogxv1beta1.ServerTLSSpec{SecretName: "tls"}}
				s.Distribution = ogxv1beta1.DistributionSpec{Image: ptr.To("quay.io/example/ogx:1.0")}
			}), func(in *statusInputs) {
				in.image = "quay.io/example/ogx:1.0"
				in.configSource, in.configHash = "oci-label", "sha256:"+strings.Repeat("ab", 32)
				in.generated = &resolve.GeneratedConfig{Hash: "0123456789abcdef", ProviderCount: 3, ResourceCount: 2, ConfigVersion: 2}
			}),
			want: statusResult{requeueAfter: 5 * time.Minute, status: func() ogxv1beta1.OGXServerStatus {
				st := scStatus(ogxv1beta1.PhaseReady, 1,
					scCond(CondConfigGenerated, metav1.ConditionTrue, "ConfigGenerationSucceeded", "Generated config.yaml with 3 providers and 2 resources", scNow),
					scDeployReady(scNow), scServiceReady(scNow), scHealthDisabled(scNow),
					scReadyAvailable("1/1 replicas available", scNow))
				st.ServiceURL = "https://demo-service.team-a.svc.cluster.local:9443"
				st.DistributionConfig.ActiveDistribution = ogxv1beta1.ActiveDistributionCustom
				st.ResolvedDistribution = &ogxv1beta1.ResolvedDistribution{Image: "quay.io/example/ogx:1.0", ConfigSource: "oci-label",
					ConfigHash: "sha256:" + strings.Repeat("ab", 32)}
				st.ConfigGeneration = &ogxv1beta1.ConfigGenerationStatus{ObservedGeneration: scGen, ConfigMapName: "demo-config-0123456789abcdef",
					GeneratedAt: scNow, ProviderCount: 3, ResourceCount: 2, ConfigVersion: 2}
				return st
			}()},
		},
		{
			name: "generated config unchanged: generatedAt and its generation stay",
			in: scInputs(scWithSpec(func(s *ogxv1beta1.OGXServerSpec) { s.DisabledAPIs = []ogxv1beta1.DisabledAPI{"batches"} }),
				scWithStatus(func() ogxv1beta1.OGXServerStatus {
					st := scReadyStatus()
					st.ConfigGeneration = &ogxv1beta1.ConfigGenerationStatus{ObservedGeneration: 1, ConfigMapName: "demo-config-0123456789abcdef",
						GeneratedAt: scT0, ProviderCount: 1, ResourceCount: 0, ConfigVersion: 2}
					st.Conditions[0] = scCond(CondConfigGenerated, metav1.ConditionTrue, "ConfigGenerationSucceeded", "Generated config.yaml with 1 providers and 0 resources", scT0)
					return st
				}()), func(in *statusInputs) {
					in.generated = &resolve.GeneratedConfig{Hash: "0123456789abcdef", ProviderCount: 4, ResourceCount: 1, ConfigVersion: 2}
				}),
			want: statusResult{requeueAfter: 5 * time.Minute, status: func() ogxv1beta1.OGXServerStatus {
				st := scReadyStatus()
				st.ConfigGeneration = &ogxv1beta1.ConfigGenerationStatus{ObservedGeneration: 1, ConfigMapName: "demo-config-0123456789abcdef",
					GeneratedAt: scT0, ProviderCount: 4, ResourceCount: 1, ConfigVersion: 2}
				st.Conditions[0] = scCond(CondConfigGenerated, metav1.ConditionTrue, "ConfigGenerationSucceeded", "Generated config.yaml with 4 providers and 1 resources", scT0)
				return st
			}()},
		},
		{
			name: "config generation failed: ConfigGenerated False, configGeneration unchanged, Failed",
			in: scInputs(scWithSpec(func(s *ogxv1beta1.OGXServerSpec) { s.DisabledAPIs = []ogxv1beta1.DisabledAPI{"batches"} }),
				scWithStatus(func() ogxv1beta1.OGXServerStatus {
					st := scReadyStatus()
					st.ConfigGeneration = &ogxv1beta1.ConfigGenerationStatus{ObservedGeneration: 1, ConfigMapName: "demo-config-0123456789abcdef", GeneratedAt: scT0}
					return st
				}()), func(in *statusInputs) {
					in.outcomes["configmap"] = Outcome{Generation: scGen, Class: OutcomeUserError, Reason: resolve.ReasonBaseConfigUnavailable, Message: "set spec.baseConfig"}
				}),
			want: statusResult{requeueAfter: time.Minute, status: func() ogxv1beta1.OGXServerStatus {
				st := scReadyStatus()
				st.Phase = ogxv1beta1.PhaseFailed
				st.Conditions[4] = scCond(CondReady, metav1.ConditionFalse, resolve.ReasonBaseConfigUnavailable, "set spec.baseConfig", scNow)
				st.Conditions = append(st.Conditions, scCond(CondStalled, metav1.ConditionTrue, resolve.ReasonBaseConfigUnavailable, "set spec.baseConfig", scNow))
				st.ConfigGeneration = &ogxv1beta1.ConfigGenerationStatus{ObservedGeneration: 1, ConfigMapName: "demo-config-0123456789abcdef", GeneratedAt: scT0}
				st.Conditions[0] = scCond(CondConfigGenerated, metav1.ConditionFalse, resolve.ReasonBaseConfigUnavailable, "set spec.baseConfig", scT0)
				return st
			}()},
		},
	})

	t.Run("externalURL", func(t *testing.T) {
		ingress := func(tlsHosts []string, lb ...networkingv1.IngressLoadBalancerIngress) *networkingv1.Ingress {
			ing := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: "demo-ingress", Namespace: sfNamespace}}
			if tlsHosts != nil {
				ing.Spec.TLS = []networkingv1.IngressTLS{{Hosts: tlsHosts, SecretName: "tls"}}
			}
			ing.Status.LoadBalancer.Ingress = lb
			return ing
		}
		for _, tc := range []struct {
			name    string
			access  *ogxv1beta1.ExternalAccessSpec
			ingress *networkingv1.Ingress
			want    *string
		}{
			{name: "off", ingress: ingress(nil, networkingv1.IngressLoadBalancerIngress{IP: "10.0.0.1"}), want: nil},
			{name: "disabled explicitly", access: &ogxv1beta1.ExternalAccessSpec{Hostname: "ogx.example.com"}, want: nil},
			{name: "on, no Ingress yet", access: &ogxv1beta1.ExternalAccessSpec{Enabled: true}, want: ptr.To("")},
			{name: "on, no address yet", access: &ogxv1beta1.ExternalAccessSpec{Enabled: true}, ingress: ingress(nil), want: ptr.To("")},
			{name: "first load-balancer entry decides: its IP when it has no hostname", access: &ogxv1beta1.ExternalAccessSpec{Enabled: true},
				ingress: ingress(nil, networkingv1.IngressLoadBalancerIngress{IP: "10.0.0.1"}, networkingv1.IngressLoadBalancerIngress{Hostname: "lb.example.net"}),
				want:    ptr.To("http://10.0.0.1")},
			{name: "load balancer hostname", access: &ogxv1beta1.ExternalAccessSpec{Enabled: true},
				ingress: ingress(nil, networkingv1.IngressLoadBalancerIngress{Hostname: "lb.example.net", IP: "10.0.0.1"}),
				want:    ptr.To("http://lb.example.net")},
			{name: "configured hostname with a TLS entry covering it", access: &ogxv1beta1.ExternalAccessSpec{Enabled: true, Hostname: "ogx.example.com"},
				ingress: ingress([]string{"other.example.com", "ogx.example.com"}, networkingv1.IngressLoadBalancerIngress{IP: "10.0.0.1"}),
				want:    ptr.To("https://ogx.example.com")},
			{name: "configured hostname, TLS for another host", access: &ogxv1beta1.ExternalAccessSpec{Enabled: true, Hostname: "ogx.example.com"},
				ingress: ingress([]string{"other.example.com"}), want: ptr.To("http://ogx.example.com")},
		} {
			t.Run(tc.name, func(t *testing.T) {
				in := scInputs(func(in *statusInputs) {
					if tc.access != nil {
						in.server.Spec.Network = &ogxv1beta1.NetworkSpec{ExternalAccess: tc.access}
					}
					in.ingress = tc.ingress
				})
				if diff := cmp.Diff(tc.want, computeStatus(in).status.ExternalURL); diff != "" {
					t.Errorf("externalURL (-want +got):\n%s", diff)
				}
			})
		}
	})

	t.Run("messages are capped at 32768 bytes", func(t *testing.T) {
		long := strings.Repeat("x", 40000)
		in := scInputs(func(in *statusInputs) {
			in.outcomes["deployment"] = Outcome{Generation: scGen, Class: OutcomeUserError, Reason: ReasonApplyFailed, Message: long}
		})
		res := computeStatus(in)
		for _, typ := range []string{CondReady, CondStalled} {
			c := apimeta.FindStatusCondition(res.status.Conditions, typ)
			if c == nil {
				t.Fatalf("%s missing", typ)
			}
			if len(c.Message) != maxConditionMessage || !strings.HasSuffix(c.Message, "…") || !strings.HasPrefix(c.Message, "xxx") {
				t.Errorf("%s message: %d bytes, suffix %q", typ, len(c.Message), c.Message[len(c.Message)-5:])
			}
		}
	})
}

// TestConfigGeneratedReasonPerCause: ConfigGenerated names the cause the
// configmap controller reported, not ConfigGenerationFailed for all of them.
func TestConfigGeneratedReasonPerCause(t *testing.T) {
	for _, tc := range []struct{ reported, want string }{
		{resolve.ReasonConfigGenFailed, resolve.ReasonConfigGenFailed},
		{resolve.ReasonBaseConfigUnavailable, resolve.ReasonBaseConfigUnavailable},
		{resolve.ReasonInvalidCABundle, resolve.ReasonInvalidCABundle},
		{resolve.ReasonReferenceNotWatched, resolve.ReasonReferenceNotWatched},
		{resolve.ReasonInvalidSpec, resolve.ReasonInvalidSpec},
		{ReasonChildConflict, ReasonChildConflict},
		{"", resolve.ReasonConfigGenFailed},
	} {
		s := &ogxv1beta1.OGXServer{ObjectMeta: metav1.ObjectMeta{Name: "demo", Namespace: "ns", Generation: 1}}
		s.Spec.Distribution.Name = ptr.To("starter")
		if s.Spec.ConfigMode() != ogxv1beta1.ConfigModeGenerated {
			s.Spec.DisabledAPIs = []ogxv1beta1.DisabledAPI{"batches"}
		}
		in := statusInputs{server: s, outcomes: map[string]Outcome{"configmap": {Class: OutcomeUserError, Reason: tc.reported, Message: "m"}}}
		cs := newConditionSet(nil, 1, metav1.Now())
		configGenerated(in, cs)
		c := apimeta.FindStatusCondition(cs.conds, CondConfigGenerated)
		if c == nil || c.Reason != tc.want || c.Status != metav1.ConditionFalse {
			t.Errorf("reported %q: condition %+v, want False with reason %s", tc.reported, c, tc.want)
		}
	}
}
