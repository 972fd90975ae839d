package status

// Table tests of the pure computeStatus (docs/status.md). Every case compares
// the complete statusResult with go-cmp.

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/controllertest"
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

func scAllOK() map[string]base.Outcome {
	out := map[string]base.Outcome{}
	for _, c := range scControllers {
		out[c] = scOK(scGen)
	}
	return out
}

// scServer is the OGXServer at generation scGen with the given mutations.
func scServer(muts ...func(*ogxv1beta1.OGXServer)) *ogxv1beta1.OGXServer {
	s := controllertest.Server(controllertest.Namespace, controllertest.Name, controllertest.UID)
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
		ObjectMeta: metav1.ObjectMeta{Name: controllertest.Name, Namespace: controllertest.Namespace, Generation: 4},
		Spec:       appsv1.DeploymentSpec{Replicas: ptr.To(replicas)},
		Status: appsv1.DeploymentStatus{ObservedGeneration: 4, Replicas: replicas, UpdatedReplicas: replicas,
			ReadyReplicas: available, AvailableReplicas: available},
	}
}

func scOK(gen int64) base.Outcome { return base.Outcome{Generation: gen, Class: base.OutcomeOK} }

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
		table:           controllertest.Table(),
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
	return scCond(ogxv1beta1.ConditionConfigGenerated, metav1.ConditionFalse, "ConfigGenerationInactive", "Declarative config generation is not active", t)
}
func scDeployReady(t metav1.Time) metav1.Condition {
	return scCond(ogxv1beta1.ConditionDeploymentReady, metav1.ConditionTrue, "DeploymentReady", "Deployment is ready", t)
}
func scServiceReady(t metav1.Time) metav1.Condition {
	return scCond(ogxv1beta1.ConditionServiceReady, metav1.ConditionTrue, "ServiceReady", "Service is ready", t)
}
func scHealthDisabled(t metav1.Time) metav1.Condition {
	return scCond(ogxv1beta1.ConditionHealthCheck, metav1.ConditionUnknown, "HealthCheckDisabled", "The server probe is disabled", t)
}
func scReadyAvailable(msg string, t metav1.Time) metav1.Condition {
	return scCond(ogxv1beta1.ConditionReady, metav1.ConditionTrue, "Available", msg, t)
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
	st.Replicas, st.Selector = 1, scSelector
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
	// ownScale: want states replicas and selector itself. Without it, a
	// case with a Deployment expects the Deployment's status.replicas and
	// scSelector, which the cases about other fields leave out.
	ownScale bool
}

// scSelector is the serialized selector of the pods of controllertest.Name.
const scSelector = "app=ogx,app.kubernetes.io/instance=demo"

func scRun(t *testing.T, cases []scCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := tc.in.server.DeepCopy()
			want := tc.want
			if !tc.ownScale && !want.wait && tc.in.deployment != nil {
				want.status.Replicas, want.status.Selector = tc.in.deployment.Status.Replicas, scSelector
			}
			got := computeStatus(tc.in)
			if diff := cmp.Diff(want, got, cmp.AllowUnexported(statusResult{})); diff != "" {
				t.Errorf("computeStatus (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, tc.in.server); diff != "" {
				t.Errorf("computeStatus mutated its input server:\n%s", diff)
			}
		})
	}
}

// TestBoardCompleteExcusesOnlyADeferredDeployment: status does not wait for
// the deployment controller's first outcome only while there is no
// Deployment and the service controller's pass of this generation did not
// end OK (deployment.serviceFirst defers until the Service
// exists); in every other case a missing outcome keeps status waiting.
func TestBoardCompleteExcusesOnlyADeferredDeployment(t *testing.T) {
	refused := func(gen int64) base.Outcome {
		return base.Outcome{Generation: gen, Class: base.OutcomeTransient, Message: "refused"}
	}
	for _, tc := range []struct {
		name       string
		deployment bool
		service    *base.Outcome
		want       bool
	}{
		{"service failed this generation, no Deployment", false, ptrOutcome(refused(scGen)), true},
		{"service failed an older generation", false, ptrOutcome(refused(scGen - 1)), false},
		{"service OK, Deployment not created yet", false, ptrOutcome(scOK(scGen)), false},
		{"service not reported", false, nil, false},
		{"service failed, but the Deployment exists (after a restart)", true, ptrOutcome(refused(scGen)), false},
	} {
		in := scInputs(func(in *statusInputs) {
			delete(in.outcomes, base.ControllerDeployment)
			delete(in.outcomes, base.ControllerService)
			if tc.service != nil {
				in.outcomes[base.ControllerService] = *tc.service
			}
			if !tc.deployment {
				in.deployment = nil
			}
		})
		if got := boardComplete(in); got != tc.want {
			t.Errorf("%s: boardComplete = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func ptrOutcome(o base.Outcome) *base.Outcome { return &o }

// TestKeepReportedConfigOnlyForTheSameSource: while a new generation's
// config is not generated, status keeps the reported base only if the spec
// still takes its base from the same kind of source.
func TestKeepReportedConfigOnlyForTheSameSource(t *testing.T) {
	withBase := func(sp *ogxv1beta1.OGXServerSpec) {
		sp.BaseConfig = &ogxv1beta1.ConfigMapKeyRef{Name: "base", Key: "config.yaml"}
	}
	for _, tc := range []struct {
		name     string
		reported string
		spec     func(*ogxv1beta1.OGXServerSpec)
		kept     bool
	}{
		{"base ConfigMap, still", "configmap", withBase, true},
		{"image labels, still", "oci-label", func(*ogxv1beta1.OGXServerSpec) {}, true},
		{"was override", "override", withBase, false},
		{"was built in", "builtin", func(*ogxv1beta1.OGXServerSpec) {}, false},
		{"image labels, now a base ConfigMap", "oci-label", withBase, false},
	} {
		s := controllertest.Server(controllertest.Namespace, controllertest.Name, controllertest.UID, tc.spec)
		s.Status.ResolvedDistribution = &ogxv1beta1.ResolvedDistribution{Image: "img@sha256:" + strings.Repeat("0", 64),
			ConfigSource: tc.reported, ConfigHash: "sha256:old"}
		in := statusInputs{image: "img"}
		keepReportedConfig(s, &in)
		if kept := in.configHash == "sha256:old"; kept != tc.kept || (kept && in.image != s.Status.ResolvedDistribution.Image) {
			t.Errorf("%s: source %q hash %q image %q; kept = %v, want %v", tc.name, in.configSource, in.configHash, in.image, kept, tc.kept)
		}
	}
}
