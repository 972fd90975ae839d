package status

// Tests of the per-concern conditions (conditions.go): StorageReady,
// HealthCheck, the reason of ConfigGenerated and the adoption conditions. The fixtures are in
// status_compute_test.go.

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/controllertest"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/probe"
)

func TestStatusComputeStorageReady(t *testing.T) {
	pvc := func(phase corev1.PersistentVolumeClaimPhase, capacity string) *corev1.PersistentVolumeClaim {
		p := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: scPVC, Namespace: controllertest.Namespace}}
		p.Status.Phase = phase
		if capacity != "" {
			p.Status.Capacity = corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(capacity)}
		}
		return p
	}
	withStorage := func(size string) func(*statusInputs) {
		return scWithSpec(func(s *ogxv1beta1.OGXServerSpec) { controllertest.WithStorage(size)(s) })
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
			want: ready(scCond(ogxv1beta1.ConditionStorageReady, metav1.ConditionTrue, "StorageReady", "Storage is ready", scNow)),
		},
		{
			name: "Bound, equal by value in another unit",
			in:   scInputs(withStorage("1Gi"), func(in *statusInputs) { in.pvc = pvc(corev1.ClaimBound, "1024Mi") }),
			want: ready(scCond(ogxv1beta1.ConditionStorageReady, metav1.ConditionTrue, "StorageReady", "Storage is ready", scNow)),
		},
		{
			name: "Bound, larger than requested",
			in:   scInputs(withStorage(""), func(in *statusInputs) { in.pvc = pvc(corev1.ClaimBound, "20Gi") }),
			want: ready(scCond(ogxv1beta1.ConditionStorageReady, metav1.ConditionTrue, "StorageReady",
				"Storage is ready (requested 10Gi, actual 20Gi; ogx-controller does not resize PVCs)", scNow)),
		},
		{
			name: "Bound, spec asks for a resize",
			in:   scInputs(withStorage("50Gi"), func(in *statusInputs) { in.pvc = pvc(corev1.ClaimBound, "10Gi") }),
			want: ready(scCond(ogxv1beta1.ConditionStorageReady, metav1.ConditionTrue, "StorageReady",
				"Storage is ready (requested 50Gi, actual 10Gi; ogx-controller does not resize PVCs)", scNow)),
		},
		{
			name: "Pending",
			in:   scInputs(withStorage(""), func(in *statusInputs) { in.pvc = pvc(corev1.ClaimPending, "") }),
			want: ready(scCond(ogxv1beta1.ConditionStorageReady, metav1.ConditionFalse, "StoragePending", "PVC demo-pvc is not bound: Pending", scNow)),
		},
		{
			name: "no phase yet",
			in:   scInputs(withStorage(""), func(in *statusInputs) { in.pvc = pvc("", "") }),
			want: ready(scCond(ogxv1beta1.ConditionStorageReady, metav1.ConditionFalse, "StoragePending", "PVC demo-pvc is not bound: Pending", scNow)),
		},
		{
			name: "Lost",
			in:   scInputs(withStorage(""), func(in *statusInputs) { in.pvc = pvc(corev1.ClaimLost, "10Gi") }),
			want: ready(scCond(ogxv1beta1.ConditionStorageReady, metav1.ConditionFalse, "StorageFailed", "PVC demo-pvc is lost", scNow)),
		},
		{
			name: "not found",
			in:   scInputs(withStorage("")),
			want: ready(scCond(ogxv1beta1.ConditionStorageReady, metav1.ConditionFalse, "StorageFailed", "PVC demo-pvc not found", scNow)),
		},
		{
			name: "storage removed: the condition goes",
			in: scInputs(scWithStatus(func() ogxv1beta1.OGXServerStatus {
				st := scReadyStatus()
				st.Conditions = append(st.Conditions[:2:2], append([]metav1.Condition{
					scCond(ogxv1beta1.ConditionStorageReady, metav1.ConditionTrue, "StorageReady", "Storage is ready", scT0)}, st.Conditions[2:]...)...)
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
	healthy := &probe.Result{Healthy: true, Version: "0.4.1", Providers: providers}
	unhealthy := &probe.Result{HealthMessage: "GET /v1/health returned HTTP 503"}
	base := func(phase ogxv1beta1.Phase, available int32, deploy, health, ready metav1.Condition, rest ...metav1.Condition) ogxv1beta1.OGXServerStatus {
		return scStatus(phase, available, append([]metav1.Condition{scConfigInactive(scNow), deploy, scServiceReady(scNow), health, ready}, rest...)...)
	}
	notReady := scCond(ogxv1beta1.ConditionHealthCheck, metav1.ConditionFalse, "DeploymentNotReady", "Deployment not ready", scNow)
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
				scCond(ogxv1beta1.ConditionDeploymentReady, metav1.ConditionFalse, "DeploymentPending", "Deployment is pending", scNow), notReady,
				scCond(ogxv1beta1.ConditionReady, metav1.ConditionFalse, "DeploymentPending", "Deployment is pending", scNow),
				scCond(ogxv1beta1.ConditionReconciling, metav1.ConditionTrue, ogxv1beta1.ReasonProgressing, "Waiting for the Deployment to be created", scNow))},
		},
		{
			name: "no available replica: DeploymentNotReady",
			in:   scInputs(probeOn, func(in *statusInputs) { in.deployment = scDeployment(1, 0) }),
			want: statusResult{requeueAfter: 10 * time.Second, status: base(ogxv1beta1.PhaseInitializing, 0,
				scCond(ogxv1beta1.ConditionDeploymentReady, metav1.ConditionFalse, "DeploymentProgressing", "Deployment is scaling: 0/1 replicas available", scNow), notReady,
				scCond(ogxv1beta1.ConditionReady, metav1.ConditionFalse, "DeploymentProgressing", "Deployment is scaling: 0/1 replicas available", scNow),
				scCond(ogxv1beta1.ConditionReconciling, metav1.ConditionTrue, ogxv1beta1.ReasonProgressing, "Deployment is scaling: 0/1 replicas available", scNow))},
		},
		{
			name: "passed: providers and server version reported",
			in:   scInputs(probeOn, func(in *statusInputs) { in.probe = healthy }),
			want: statusResult{requeueAfter: 5 * time.Minute, status: func() ogxv1beta1.OGXServerStatus {
				st := base(ogxv1beta1.PhaseReady, 1, scDeployReady(scNow),
					scCond(ogxv1beta1.ConditionHealthCheck, metav1.ConditionTrue, "HealthCheckPassed", "Health check passed", scNow),
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
				scCond(ogxv1beta1.ConditionHealthCheck, metav1.ConditionFalse, "HealthCheckFailed", "GET /v1/health returned HTTP 503", scNow),
				scReadyAvailable("1/1 replicas available", scNow))},
		},
		{
			name: "failed after passing: the flip moves the time, Ready keeps its own",
			in: scInputs(probeOn, scWithStatus(func() ogxv1beta1.OGXServerStatus {
				st := scReadyStatus()
				st.Conditions[3] = scCond(ogxv1beta1.ConditionHealthCheck, metav1.ConditionTrue, "HealthCheckPassed", "Health check passed", scT0)
				st.Version.ServerVersion = "0.4.1"
				return st
			}()), func(in *statusInputs) { in.probe = unhealthy }),
			want: statusResult{requeueAfter: 30 * time.Second, status: func() ogxv1beta1.OGXServerStatus {
				st := scReadyStatus()
				st.Conditions[3] = scCond(ogxv1beta1.ConditionHealthCheck, metav1.ConditionFalse, "HealthCheckFailed", "GET /v1/health returned HTTP 503", scNow)
				st.Version.ServerVersion = "0.4.1" // kept when the probe does not tell
				return st
			}()},
		},
		{
			name: "not probed yet: the stored verdict stays",
			in: scInputs(probeOn, scWithStatus(func() ogxv1beta1.OGXServerStatus {
				st := scReadyStatus()
				st.Conditions[3] = scCond(ogxv1beta1.ConditionHealthCheck, metav1.ConditionTrue, "HealthCheckPassed", "Health check passed", scT0)
				return st
			}())),
			want: statusResult{requeueAfter: 5 * time.Minute, status: func() ogxv1beta1.OGXServerStatus {
				st := scReadyStatus()
				st.Conditions[3] = scCond(ogxv1beta1.ConditionHealthCheck, metav1.ConditionTrue, "HealthCheckPassed", "Health check passed", scT0)
				return st
			}()},
		},
		{
			// A new server whose pods are available at its first status: the
			// probe has just started in the background, and HealthCheck is
			// still present (always, docs/status.md).
			name: "first status, not probed yet: False DeploymentNotReady",
			in:   scInputs(probeOn),
			want: statusResult{requeueAfter: 30 * time.Second, status: base(ogxv1beta1.PhaseReady, 1, scDeployReady(scNow),
				scCond(ogxv1beta1.ConditionHealthCheck, metav1.ConditionFalse, "DeploymentNotReady", "Not probed yet", scNow),
				scReadyAvailable("1/1 replicas available", scNow))},
		},
		{
			name: "probe switched on, not probed yet: Disabled is no verdict to keep",
			in:   scInputs(probeOn, scWithStatus(scReadyStatus())),
			want: statusResult{requeueAfter: 30 * time.Second, status: func() ogxv1beta1.OGXServerStatus {
				st := scReadyStatus()
				st.Conditions[3] = scCond(ogxv1beta1.ConditionHealthCheck, metav1.ConditionFalse, "DeploymentNotReady", "Not probed yet", scNow)
				return st
			}()},
		},
	})
}

// TestConfigGeneratedReasonPerCause: ConfigGenerated carries only its
// documented reasons: BaseConfigUnavailable for an image-label failure and
// ConfigGenerationFailed for every other cause the configmap controller
// reports (a missing base ConfigMap included); the cause's own reason stays
// on Ready and Stalled.
func TestConfigGeneratedReasonPerCause(t *testing.T) {
	for _, tc := range []struct{ reported, want string }{
		{ogxv1beta1.ReasonConfigGenerationFailed, ogxv1beta1.ReasonConfigGenerationFailed},
		{ogxv1beta1.ReasonBaseConfigUnavailable, ogxv1beta1.ReasonBaseConfigUnavailable},
		{ogxv1beta1.ReasonReferenceNotFound, ogxv1beta1.ReasonConfigGenerationFailed},
		{ogxv1beta1.ReasonInvalidCABundle, ogxv1beta1.ReasonConfigGenerationFailed},
		{ogxv1beta1.ReasonReferenceNotWatched, ogxv1beta1.ReasonConfigGenerationFailed},
		{ogxv1beta1.ReasonInvalidSpec, ogxv1beta1.ReasonConfigGenerationFailed},
		{ogxv1beta1.ReasonChildConflict, ogxv1beta1.ReasonConfigGenerationFailed},
		{ogxv1beta1.ReasonApplyFailed, ogxv1beta1.ReasonConfigGenerationFailed},
		{"", ogxv1beta1.ReasonConfigGenerationFailed},
	} {
		s := &ogxv1beta1.OGXServer{ObjectMeta: metav1.ObjectMeta{Name: "demo", Namespace: "ns", Generation: 1}}
		s.Spec.Distribution.Name = ptr.To("starter")
		if s.Spec.ConfigMode() != ogxv1beta1.ConfigModeGenerated {
			s.Spec.DisabledAPIs = []ogxv1beta1.DisabledAPI{"batches"}
		}
		in := statusInputs{server: s, outcomes: map[string]base.Outcome{"configmap": {Class: base.OutcomeUserError, Reason: tc.reported, Message: "m"}}}
		cs := newConditionSet(nil, 1, metav1.Now())
		configGenerated(in, cs)
		c := apimeta.FindStatusCondition(cs.conds, ogxv1beta1.ConditionConfigGenerated)
		if c == nil || c.Reason != tc.want || c.Status != metav1.ConditionFalse || c.Message != "m" {
			t.Errorf("reported %q: condition %+v, want False with reason %s", tc.reported, c, tc.want)
		}
	}
}

// TestAdoptedConditions: the adoption conditions follow what the controllers
// report; a released networking adoption, which nothing reports after the
// releasing pass, stays shown while adopt-networking is absent.
func TestAdoptedConditions(t *testing.T) {
	cond := func(typ string, status metav1.ConditionStatus, reason, msg string) metav1.Condition {
		return metav1.Condition{Type: typ, Status: status, Reason: reason, Message: msg}
	}
	netAdopted := cond(ogxv1beta1.ConditionNetworkingAdopted, metav1.ConditionTrue, ogxv1beta1.ReasonNetworkingAdopted, "Networking adopted from legacy")
	netReleased := cond(ogxv1beta1.ConditionNetworkingAdopted, metav1.ConditionFalse, ogxv1beta1.ReasonAdoptionAnnotationRemoved, "Adoption annotation removed")
	storage := cond(ogxv1beta1.ConditionStorageAdopted, metav1.ConditionTrue, ogxv1beta1.ReasonStorageAdopted, "PVC legacy-pvc adopted")
	cases := []struct {
		name       string
		annotation string // adopt-networking
		shown      []metav1.Condition
		facts      []metav1.Condition
		want       []metav1.Condition
	}{
		{name: "reported: shown", annotation: "legacy", facts: []metav1.Condition{netAdopted, storage},
			want: []metav1.Condition{storage, netAdopted}},
		{name: "the releasing pass reports it released", shown: []metav1.Condition{netAdopted},
			facts: []metav1.Condition{netReleased}, want: []metav1.Condition{netReleased}},
		{name: "released: kept while the annotation stays absent", shown: []metav1.Condition{netReleased},
			want: []metav1.Condition{netReleased}},
		{name: "shown adopted, annotation gone, nothing reported: shown released", shown: []metav1.Condition{netAdopted},
			want: []metav1.Condition{netReleased}},
		{name: "annotation back, nothing adopted: removed", annotation: "legacy", shown: []metav1.Condition{netReleased}},
		{name: "never adopted: nothing"},
		{name: "storage is not kept by status: the pvc controller reports it", shown: []metav1.Condition{storage}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := controllertest.Annotated(ogxv1beta1.AnnotationAdoptNetworking, c.annotation)
			cs := newConditionSet(c.shown, 1, metav1.Now())
			adoptedConditions(statusInputs{server: s, facts: c.facts}, cs)
			got := cs.result()
			if d := cmp.Diff(c.want, got, cmpopts.EquateEmpty(),
				cmpopts.IgnoreFields(metav1.Condition{}, "LastTransitionTime", "ObservedGeneration")); d != "" {
				t.Errorf("conditions (-want +got):\n%s", d)
			}
		})
	}
}
