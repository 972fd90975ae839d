package status

import (
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/caches"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/events"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
	"github.com/ogx-k8s/ogx-controller/pkg/resolve"
)

// conditionOrder lists the condition types in the fixed order status lists
// them (docs/status.md, Conditions).
func conditionOrder() []string {
	return []string{ogxv1beta1.ConditionConfigGenerated, ogxv1beta1.ConditionDeploymentReady,
		ogxv1beta1.ConditionStorageReady, ogxv1beta1.ConditionServiceReady, ogxv1beta1.ConditionHealthCheck,
		ogxv1beta1.ConditionReady, ogxv1beta1.ConditionReconciling, ogxv1beta1.ConditionStalled,
		ogxv1beta1.ConditionStorageAdopted, ogxv1beta1.ConditionNetworkingAdopted, ogxv1beta1.ConditionAdoptionConfigInvalid}
}

// maxConditionMessage caps condition messages (docs/status.md, Write rules).
const maxConditionMessage = 32768

// conditionSet is the conditions a status pass computes, starting from the
// current ones. set keeps a condition's lastTransitionTime while its status
// stays; the kstatus conditions (Reconciling, Stalled) exist only while
// True, so they survive only when this pass set them (setKstatus).
type conditionSet struct {
	conds      []metav1.Condition
	generation int64
	now        metav1.Time
	kstatus    map[string]bool
}

func newConditionSet(old []metav1.Condition, generation int64, now metav1.Time) *conditionSet {
	return &conditionSet{conds: append([]metav1.Condition(nil), old...), generation: generation, now: now, kstatus: map[string]bool{}}
}

// set sets one condition, its message capped (docs/status.md, Write rules).
func (c *conditionSet) set(t string, status metav1.ConditionStatus, reason, msg string) {
	if len(msg) > maxConditionMessage {
		msg = events.TruncateUTF8(msg, maxConditionMessage-len("…")) + "…"
	}
	apimeta.SetStatusCondition(&c.conds, metav1.Condition{Type: t, Status: status, Reason: reason, Message: msg,
		ObservedGeneration: c.generation, LastTransitionTime: c.now})
}

// remove drops condition t. apimeta.RemoveStatusCondition copies the list
// even when t is absent, which a pass mostly finds (2.9% of the operator's
// allocations in a fleet start): look first.
func (c *conditionSet) remove(t string) {
	if apimeta.FindStatusCondition(c.conds, t) != nil {
		apimeta.RemoveStatusCondition(&c.conds, t)
	}
}

// setKstatus sets Reconciling or Stalled for this pass.
func (c *conditionSet) setKstatus(t string, status metav1.ConditionStatus, reason, msg string) {
	c.kstatus[t] = true
	c.set(t, status, reason, msg)
}

// result drops the kstatus conditions this pass did not set and orders the
// rest.
func (c *conditionSet) result() []metav1.Condition {
	for _, t := range []string{ogxv1beta1.ConditionReconciling, ogxv1beta1.ConditionStalled} {
		if !c.kstatus[t] {
			c.remove(t)
		}
	}
	return orderConditions(c.conds)
}

// factOf returns the reported condition of a type, preferring a True one.
func factOf(facts []metav1.Condition, t string) *metav1.Condition {
	var found *metav1.Condition
	for i := range facts {
		if facts[i].Type != t {
			continue
		}
		if found == nil || facts[i].Status == metav1.ConditionTrue {
			found = &facts[i]
		}
	}
	return found
}

// orderConditions lists conditions in the fixed order, dropping unknown
// types.
func orderConditions(conds []metav1.Condition) []metav1.Condition {
	var out []metav1.Condition
	for _, t := range conditionOrder() {
		if c := apimeta.FindStatusCondition(conds, t); c != nil {
			out = append(out, *c)
		}
	}
	return out
}

// configGenerated sets ConfigGenerated and returns status.configGeneration:
// nil outside generated mode, the current one while the configmap
// controller reports a user error or nothing was generated yet.
func configGenerated(in statusInputs, cs *conditionSet) *ogxv1beta1.ConfigGenerationStatus {
	s := in.server
	old := s.Status.ConfigGeneration
	if s.Spec.ConfigMode() != ogxv1beta1.ConfigModeGenerated {
		cs.set(ogxv1beta1.ConditionConfigGenerated, metav1.ConditionFalse, ogxv1beta1.ReasonConfigGenerationInactive, "Declarative config generation is not active")
		return nil
	}
	if o, ok := in.outcomes[base.ControllerConfigMap]; ok && o.Class == base.OutcomeUserError {
		cs.set(ogxv1beta1.ConditionConfigGenerated, metav1.ConditionFalse, configGeneratedReason(o.Reason), o.Message)
		return old
	}
	g := in.generated
	if g == nil {
		return old
	}
	name := render.GeneratedConfigName(s.Name, g.Hash)
	cg := &ogxv1beta1.ConfigGenerationStatus{ObservedGeneration: s.Generation, ConfigMapName: name,
		ProviderCount: g.ProviderCount, ResourceCount: g.ResourceCount, ConfigVersion: g.ConfigVersion, GeneratedAt: in.now}
	if old != nil && old.ConfigMapName == name {
		// Same config: keep when and by which generation it was made.
		cg.GeneratedAt = old.GeneratedAt
		cg.ObservedGeneration = old.ObservedGeneration
	}
	cs.set(ogxv1beta1.ConditionConfigGenerated, metav1.ConditionTrue, ogxv1beta1.ReasonConfigGenerationSucceeded,
		fmt.Sprintf("Generated config.yaml with %d providers and %d resources", g.ProviderCount, g.ResourceCount))
	return cg
}

// configGeneratedReason maps the reason of the configmap controller's user
// error to one ConfigGenerated may carry (docs/status.md, Reasons by
// condition). Clients match ConfigGenerated on its three documented False
// reasons, so a missing base ConfigMap, an invalid spec, a CA bundle
// problem or a conflict on the generated ConfigMap all read
// ConfigGenerationFailed with the precise cause in the message; Ready and
// Stalled keep the specific reason (ReferenceNotFound, ...). Only an
// image-label failure keeps its own reason, which tells the user to set
// spec.baseConfig.
func configGeneratedReason(reported string) string {
	if reported == ogxv1beta1.ReasonBaseConfigUnavailable {
		return reported
	}
	return ogxv1beta1.ReasonConfigGenerationFailed
}

// expectedReplicas is the replica count the rollout must reach. With
// autoscaling the HPA decides it: the live spec.replicas, but at least the
// HPA minimum (a new Deployment starts at 1 until the HPA scales it up).
func expectedReplicas(s *ogxv1beta1.OGXServer, d *appsv1.Deployment) int32 {
	if s.Spec.Autoscaling() == nil {
		return s.Spec.Replicas()
	}
	expected := s.Spec.HPAMinReplicas()
	if d != nil && d.Spec.Replicas != nil && *d.Spec.Replicas > expected {
		expected = *d.Spec.Replicas
	}
	return expected
}

// deploymentReady sets DeploymentReady and returns the Deployment's failure
// message ("" if none) and whether its rollout reached expected replicas.
func deploymentReady(d *appsv1.Deployment, expected int32, cs *conditionSet) (failed string, rolledOut bool) {
	if d == nil {
		cs.set(ogxv1beta1.ConditionDeploymentReady, metav1.ConditionFalse, ogxv1beta1.ReasonDeploymentPending, "Deployment is pending")
		return "", false
	}
	failed, rolledOut = deploymentFailure(d), rolloutComplete(d, expected)
	switch {
	case failed != "":
		cs.set(ogxv1beta1.ConditionDeploymentReady, metav1.ConditionFalse, ogxv1beta1.ReasonDeploymentFailed, failed)
	case rolledOut && expected == 0:
		cs.set(ogxv1beta1.ConditionDeploymentReady, metav1.ConditionTrue, ogxv1beta1.ReasonDeploymentReady, "Deployment is scaled to zero")
	case rolledOut:
		cs.set(ogxv1beta1.ConditionDeploymentReady, metav1.ConditionTrue, ogxv1beta1.ReasonDeploymentReady, "Deployment is ready")
	default:
		cs.set(ogxv1beta1.ConditionDeploymentReady, metav1.ConditionFalse, ogxv1beta1.ReasonDeploymentProgressing,
			fmt.Sprintf("Deployment is scaling: %d/%d replicas available", d.Status.AvailableReplicas, expected))
	}
	return failed, rolledOut
}

// storageReady sets StorageReady, which exists only with storage: the pvc
// controller's report when it made one (adoption), else the effective
// PVC's state.
func storageReady(in statusInputs, cs *conditionSet) {
	pvc, name := in.pvc, in.pvcName
	switch f := factOf(in.facts, ogxv1beta1.ConditionStorageReady); {
	case in.server.Spec.StorageSpec() == nil:
		cs.remove(ogxv1beta1.ConditionStorageReady)
	case f != nil:
		cs.set(ogxv1beta1.ConditionStorageReady, f.Status, f.Reason, f.Message)
	case pvc == nil:
		cs.set(ogxv1beta1.ConditionStorageReady, metav1.ConditionFalse, ogxv1beta1.ReasonStorageFailed, fmt.Sprintf("PVC %s not found", name))
	case pvc.Status.Phase == corev1.ClaimBound:
		msg := "Storage is ready"
		requested := in.server.Spec.StorageSize()
		if actual, ok := pvc.Status.Capacity[corev1.ResourceStorage]; ok && actual.Cmp(requested) != 0 {
			msg += fmt.Sprintf(" (requested %s, actual %s; ogx-controller does not resize PVCs)", requested.String(), actual.String())
		}
		cs.set(ogxv1beta1.ConditionStorageReady, metav1.ConditionTrue, ogxv1beta1.ReasonStorageReady, msg)
	case pvc.Status.Phase == corev1.ClaimLost:
		cs.set(ogxv1beta1.ConditionStorageReady, metav1.ConditionFalse, ogxv1beta1.ReasonStorageFailed, fmt.Sprintf("PVC %s is lost", name))
	default:
		phase := pvc.Status.Phase
		if phase == "" {
			phase = corev1.ClaimPending
		}
		cs.set(ogxv1beta1.ConditionStorageReady, metav1.ConditionFalse, ogxv1beta1.ReasonStoragePending, fmt.Sprintf("PVC %s is not bound: %s", name, phase))
	}
}

// serviceReady sets ServiceReady.
func serviceReady(in statusInputs, cs *conditionSet) {
	switch o := in.outcomes[base.ControllerService]; {
	case o.Class == base.OutcomeUserError:
		cs.set(ogxv1beta1.ConditionServiceReady, metav1.ConditionFalse, ogxv1beta1.ReasonServiceFailed, o.Message)
	case in.serviceExists:
		cs.set(ogxv1beta1.ConditionServiceReady, metav1.ConditionTrue, ogxv1beta1.ReasonServiceReady, "Service is ready")
	default:
		cs.set(ogxv1beta1.ConditionServiceReady, metav1.ConditionFalse, ogxv1beta1.ReasonServicePending, fmt.Sprintf("Service %s not found", render.ServiceName(in.server.Name)))
	}
}

// healthCheck sets HealthCheck, the probe's verdict; it never gates Ready.
// The condition is always present (docs/status.md, Conditions). Before the
// first probe of a server with available replicas an earlier verdict stays
// (a restart must not flap it); without one it is False DeploymentNotReady
// "Not probed yet": the probe runs in the background and its result
// enqueues the next pass, so a new server's first status would otherwise
// lack the condition.
func healthCheck(in statusInputs, cs *conditionSet) {
	d := in.deployment
	switch {
	case !in.probeEnabled:
		cs.set(ogxv1beta1.ConditionHealthCheck, metav1.ConditionUnknown, ogxv1beta1.ReasonHealthCheckDisabled, "The server probe is disabled")
	case d == nil || d.Status.AvailableReplicas == 0:
		cs.set(ogxv1beta1.ConditionHealthCheck, metav1.ConditionFalse, ogxv1beta1.ReasonDeploymentNotReady, "Deployment not ready")
	case in.probe == nil:
		if c := apimeta.FindStatusCondition(cs.conds, ogxv1beta1.ConditionHealthCheck); c == nil || !probeVerdict(c.Reason) {
			cs.set(ogxv1beta1.ConditionHealthCheck, metav1.ConditionFalse, ogxv1beta1.ReasonDeploymentNotReady, "Not probed yet")
		}
	case in.probe.Healthy:
		cs.set(ogxv1beta1.ConditionHealthCheck, metav1.ConditionTrue, ogxv1beta1.ReasonHealthCheckPassed, "Health check passed")
	default:
		cs.set(ogxv1beta1.ConditionHealthCheck, metav1.ConditionFalse, ogxv1beta1.ReasonHealthCheckFailed, in.probe.HealthMessage)
	}
}

// probeVerdict: a HealthCheck reason a probe result set, as opposed to one
// set without probing.
func probeVerdict(reason string) bool {
	return reason == ogxv1beta1.ReasonHealthCheckPassed || reason == ogxv1beta1.ReasonHealthCheckFailed
}

// adoptedConditions sets StorageAdopted and NetworkingAdopted to what the
// pvc, service and ingress controllers reported, and removes each one no
// controller reports, except a released NetworkingAdopted: status keeps it
// while adopt-networking stays absent, its own earlier result, since nothing
// is left to report it from (docs/status.md, Conditions).
func adoptedConditions(in statusInputs, cs *conditionSet) {
	for _, t := range []string{ogxv1beta1.ConditionStorageAdopted, ogxv1beta1.ConditionNetworkingAdopted} {
		f := factOf(in.facts, t)
		switch {
		case f != nil:
		case t == ogxv1beta1.ConditionNetworkingAdopted && apimeta.FindStatusCondition(cs.conds, t) != nil &&
			resolve.AdoptionSource(in.server, ogxv1beta1.AnnotationAdoptNetworking) == "":
			f = &base.NetworkingReleased()[0]
		default:
			cs.remove(t)
			continue
		}
		cs.set(t, f.Status, f.Reason, f.Message)
	}
}

// adoptionConfigInvalid sets AdoptionConfigInvalid from the annotations
// (checks A4/A5) and the several-adopted-PVCs error; once they are fixed it
// turns False; valid annotations otherwise add nothing.
func adoptionConfigInvalid(in statusInputs, cs *conditionSet) {
	problems := base.AdoptionAnnotationProblems(in.server)
	if o := in.outcomes[base.ControllerPVC]; o.Class == base.OutcomeUserError && o.Reason == ogxv1beta1.ReasonAdoptionConfigInvalid {
		problems = append(problems, o.Message)
	}
	switch {
	case len(problems) > 0:
		cs.set(ogxv1beta1.ConditionAdoptionConfigInvalid, metav1.ConditionTrue, ogxv1beta1.ReasonAdoptionConfigInvalid, strings.Join(problems, "; "))
	case apimeta.IsStatusConditionTrue(cs.conds, ogxv1beta1.ConditionAdoptionConfigInvalid):
		cs.set(ogxv1beta1.ConditionAdoptionConfigInvalid, metav1.ConditionFalse, ogxv1beta1.ReasonAnnotationsValid, "Adoption annotations are valid")
	}
}

// deploymentFailure returns the message of a Deployment condition that means
// the rollout cannot finish on its own, or "".
func deploymentFailure(d *appsv1.Deployment) string {
	for _, c := range d.Status.Conditions {
		if caches.IsDeploymentFailure(c) {
			return c.Message
		}
	}
	return ""
}

// rolloutComplete: the Deployment controller observed the current spec, and
// exactly D updated replicas exist, all available.
func rolloutComplete(d *appsv1.Deployment, expected int32) bool {
	replicas := int32(1)
	if d.Spec.Replicas != nil {
		replicas = *d.Spec.Replicas
	}
	return d.Status.ObservedGeneration >= d.Generation && replicas == expected &&
		d.Status.UpdatedReplicas == expected && d.Status.Replicas == expected && d.Status.AvailableReplicas >= expected
}
