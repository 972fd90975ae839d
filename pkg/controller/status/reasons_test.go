package status

import (
	"fmt"
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/probe"
	"github.com/ogx-k8s/ogx-controller/pkg/resolve"
)

// reasonInputs drives computeStatus down each path that sets a condition:
// every mode of ConfigGenerated, every Deployment, Service, storage and probe
// state, every outcome class and terminal reason, and the adoption facts.
func reasonInputs() map[string]statusInputs {
	probeOn := func(in *statusInputs) { in.probeEnabled = true }
	generated := scWithSpec(func(s *ogxv1beta1.OGXServerSpec) { s.DisabledAPIs = []ogxv1beta1.DisabledAPI{"batches"} })
	withStorage := func(phase corev1.PersistentVolumeClaimPhase) func(*statusInputs) {
		return func(in *statusInputs) {
			in.server.Spec.Workload = &ogxv1beta1.WorkloadSpec{Storage: &ogxv1beta1.PVCStorageSpec{}}
			if phase != "" {
				in.pvc = &corev1.PersistentVolumeClaim{Status: corev1.PersistentVolumeClaimStatus{Phase: phase,
					Capacity: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}}
			}
		}
	}
	outcome := func(controller string, o base.Outcome) func(*statusInputs) {
		return func(in *statusInputs) {
			o.Generation = scGen
			in.outcomes[controller] = o
		}
	}
	fact := func(typ string, status metav1.ConditionStatus, reason string) func(*statusInputs) {
		return func(in *statusInputs) {
			in.facts = append(in.facts, metav1.Condition{Type: typ, Status: status, Reason: reason, Message: reason})
		}
	}
	cases := map[string]statusInputs{
		"converged, probe off":      scInputs(),
		"generated config":          scInputs(generated, func(in *statusInputs) { in.generated = &resolve.GeneratedConfig{Hash: "0123456789abcdef"} }),
		"no Deployment, probe on":   scInputs(probeOn, func(in *statusInputs) { in.deployment = nil }),
		"no available replica":      scInputs(probeOn, func(in *statusInputs) { in.deployment = scDeployment(1, 0) }),
		"available, not probed yet": scInputs(probeOn),
		"probe passed":              scInputs(probeOn, func(in *statusInputs) { in.probe = &probe.Result{Healthy: true} }),
		"probe failed":              scInputs(probeOn, func(in *statusInputs) { in.probe = &probe.Result{HealthMessage: "GET /v1/health returned HTTP 503"} }),
		"no Service":                scInputs(func(in *statusInputs) { in.serviceExists = false }),
		"scaled to zero":            scInputs(scWithSpec(func(s *ogxv1beta1.OGXServerSpec) { s.Workload = &ogxv1beta1.WorkloadSpec{Replicas: ptr.To[int32](0)} }), func(in *statusInputs) { in.deployment = scDeployment(0, 0) }),
		"being deleted":             scInputs(func(in *statusInputs) { in.server.DeletionTimestamp = &scNow }),
		"transient error":           scInputs(outcome("service", base.Outcome{Class: base.OutcomeTransient, Message: "conflict"})),
		"a controller waiting":      scInputs(outcome("hpa", base.Outcome{Class: base.OutcomeWaiting, Reason: ogxv1beta1.ReasonProgressing, Message: "waiting"})),
		"adoption waiting, no Deployment": scInputs(func(in *statusInputs) { in.deployment = nil },
			outcome("pvc", base.Outcome{Class: base.OutcomeWaiting, Reason: ogxv1beta1.ReasonAdoptionInProgress, Message: "waiting for 1 legacy pods"}),
			fact(ogxv1beta1.ConditionStorageAdopted, metav1.ConditionFalse, ogxv1beta1.ReasonAdoptionInProgress)),
		"adoption waiting, rolled out": scInputs(outcome("pvc", base.Outcome{Class: base.OutcomeWaiting, Reason: ogxv1beta1.ReasonAdoptionInProgress, Message: "waiting"})),
		"Deployment failed": scInputs(func(in *statusInputs) {
			in.deployment.Status.Conditions = []appsv1.DeploymentCondition{{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionFalse, Reason: "ProgressDeadlineExceeded", Message: "deadline"}}
		}),
		"service user error": scInputs(outcome("service", base.Outcome{Class: base.OutcomeUserError, Reason: ogxv1beta1.ReasonChildConflict, Message: scSvcConf})),
		"storage, no PVC":    scInputs(withStorage("")),
		"storage pending":    scInputs(withStorage(corev1.ClaimPending)),
		"storage bound":      scInputs(withStorage(corev1.ClaimBound)),
		"storage lost":       scInputs(withStorage(corev1.ClaimLost)),
		"storage adopted":    scInputs(withStorage(corev1.ClaimBound), fact(ogxv1beta1.ConditionStorageAdopted, metav1.ConditionTrue, ogxv1beta1.ReasonStorageAdopted)),
		"networking adopted": scInputs(func(in *statusInputs) {
			in.server.Annotations = map[string]string{ogxv1beta1.AnnotationAdoptNetworking: "legacy"}
		},
			fact(ogxv1beta1.ConditionNetworkingAdopted, metav1.ConditionTrue, ogxv1beta1.ReasonNetworkingAdopted)),
		"networking released": scInputs(scWithStatus(func() ogxv1beta1.OGXServerStatus {
			st := scReadyStatus()
			st.Conditions = append(st.Conditions, scCond(ogxv1beta1.ConditionNetworkingAdopted, metav1.ConditionTrue, ogxv1beta1.ReasonNetworkingAdopted, "adopted", scT0))
			return st
		}())),
		"annotations valid again": scInputs(scWithStatus(func() ogxv1beta1.OGXServerStatus {
			st := scReadyStatus()
			st.Conditions = append(st.Conditions, scCond(ogxv1beta1.ConditionAdoptionConfigInvalid, metav1.ConditionTrue, ogxv1beta1.ReasonAdoptionConfigInvalid, "bad", scT0))
			return st
		}())),
	}
	// Every terminal reason, reported by the configmap controller in
	// generated mode (it also sets ConfigGenerated) and by another one.
	for _, r := range ogxv1beta1.TerminalReasons() {
		if r == ogxv1beta1.ReasonDeploymentFailed {
			continue // the Deployment's own condition, above
		}
		cases["configmap user error "+r] = scInputs(generated, outcome("configmap", base.Outcome{Class: base.OutcomeUserError, Reason: r, Message: r}))
		cases["pvc user error "+r] = scInputs(outcome("pvc", base.Outcome{Class: base.OutcomeUserError, Reason: r, Message: r}))
	}
	return cases
}

// TestComputeStatusEmitsOnlyDocumentedReasons: over inputs covering each
// path of the status computation, every condition carries a reason
// ogxv1beta1.ConditionReasons lists for its type; and each listed reason is
// reached by some input, so the table covers every path and the API lists
// no reason the controller never sets.
func TestComputeStatusEmitsOnlyDocumentedReasons(t *testing.T) {
	allowed := ogxv1beta1.ConditionReasons()
	emitted := map[string]bool{}
	for name, in := range reasonInputs() {
		res := computeStatus(in)
		if res.wait {
			t.Errorf("%s: the board is incomplete; the case tests nothing", name)
			continue
		}
		for _, c := range res.status.Conditions {
			emitted[c.Type+"/"+c.Reason] = true
			if !slices.Contains(allowed[c.Type], c.Reason) {
				t.Errorf("%s: %s has reason %q, not one of ConditionReasons()[%s] %v", name, c.Type, c.Reason, c.Type, allowed[c.Type])
			}
		}
	}
	for typ, reasons := range allowed {
		for _, r := range reasons {
			if !emitted[fmt.Sprintf("%s/%s", typ, r)] {
				t.Errorf("no input makes %s carry %s: add the path to reasonInputs, or drop the reason", typ, r)
			}
		}
	}
}
