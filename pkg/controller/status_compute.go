package controller

import (
	"fmt"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1/validation"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/render"
)

// Condition types, in the fixed order status lists them (docs/status.md,
// Conditions).
const (
	CondConfigGenerated       = "ConfigGenerated"
	CondDeploymentReady       = "DeploymentReady"
	CondStorageReady          = "StorageReady"
	CondServiceReady          = "ServiceReady"
	CondHealthCheck           = "HealthCheck"
	CondReady                 = "Ready"
	CondReconciling           = "Reconciling"
	CondStalled               = "Stalled"
	CondStorageAdopted        = "StorageAdopted"
	CondNetworkingAdopted     = "NetworkingAdopted"
	CondAdoptionConfigInvalid = "AdoptionConfigInvalid"
)

func conditionOrder() []string {
	return []string{CondConfigGenerated, CondDeploymentReady, CondStorageReady, CondServiceReady, CondHealthCheck,
		CondReady, CondReconciling, CondStalled, CondStorageAdopted, CondNetworkingAdopted, CondAdoptionConfigInvalid}
}

// maxConditionMessage caps condition messages (docs/status.md, Write rules).
const maxConditionMessage = 32768

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
	outcomes        map[string]Outcome
	facts           []metav1.Condition // conditions reported by controllers (adoption)
	controllers     []string           // child controllers in the fixed error order
	probe           *ProbeResult
	probeEnabled    bool
	operatorVersion string
	clusterDomain   string
	table           DistributionTable
	image           string
	configSource    string
	configHash      string
	generated       *GeneratedConfig
	now             metav1.Time
}

// statusResult is the computed status and how soon to look again.
type statusResult struct {
	status       ogxv1beta1.OGXServerStatus
	requeueAfter time.Duration
	// wait is set when the outcome board is incomplete (after a restart):
	// nothing is written until every controller has reported.
	wait bool
}

// terminal is one user-error cause.
type terminal struct{ reason, message string }

// computeStatus derives the complete status from its inputs and the current
// status (whose condition timestamps and sticky fields it keeps).
func computeStatus(in statusInputs) statusResult {
	s := in.server
	old := s.Status
	st := ogxv1beta1.OGXServerStatus{
		ObservedGeneration: s.Generation,
		Phase:              old.Phase,
		Version:            old.Version,
		ConfigGeneration:   old.ConfigGeneration,
	}
	conds := append([]metav1.Condition(nil), old.Conditions...)
	set := func(t string, status metav1.ConditionStatus, reason, msg string) {
		if len(msg) > maxConditionMessage {
			msg = msg[:maxConditionMessage-len("…")] + "…"
		}
		c := metav1.Condition{Type: t, Status: status, Reason: reason, Message: msg, ObservedGeneration: s.Generation, LastTransitionTime: in.now}
		apimeta.SetStatusCondition(&conds, c)
	}
	remove := func(t string) { apimeta.RemoveStatusCondition(&conds, t) }

	// Board completeness: every child controller must have reported for this
	// object before the phase may change.
	for _, name := range in.controllers {
		if _, ok := in.outcomes[name]; !ok && s.DeletionTimestamp == nil {
			return statusResult{wait: true, requeueAfter: time.Second}
		}
	}

	// Version: operatorVersion from the process, serverVersion kept when the
	// probe did not tell; lastUpdated moves only when either changes.
	st.Version.OperatorVersion = in.operatorVersion
	if in.probe != nil && in.probe.Version != "" {
		st.Version.ServerVersion = in.probe.Version
	}
	if st.Version.OperatorVersion != old.Version.OperatorVersion || st.Version.ServerVersion != old.Version.ServerVersion {
		st.Version.LastUpdated = in.now
	}

	// Distribution.
	st.DistributionConfig.ActiveDistribution = s.Spec.DistributionName()
	if s.Spec.Distribution.Image != nil {
		st.DistributionConfig.ActiveDistribution = ogxv1beta1.ActiveDistributionCustom
	}
	st.DistributionConfig.AvailableDistributions = map[string]string(in.table)
	if in.image != "" {
		st.ResolvedDistribution = &ogxv1beta1.ResolvedDistribution{Image: in.image, ConfigSource: in.configSource, ConfigHash: in.configHash}
	}

	// Replicas and URLs.
	d := in.deployment
	if d != nil {
		st.AvailableReplicas = d.Status.AvailableReplicas
	}
	if in.serviceExists {
		scheme := "http"
		if s.Spec.ServerTLS() != nil {
			scheme = "https"
		}
		st.ServiceURL = fmt.Sprintf("%s://%s.%s.svc.%s:%d", scheme, render.ServiceName(s.Name), s.Namespace, in.clusterDomain, s.Spec.Port())
	}
	st.ExternalURL = externalURL(s, in.ingress)
	if in.probe != nil && d != nil && d.Status.AvailableReplicas > 0 {
		st.DistributionConfig.Providers = in.probe.Providers
	}

	// ConfigGenerated.
	mode := s.Spec.ConfigMode()
	if mode != ogxv1beta1.ConfigModeGenerated {
		st.ConfigGeneration = nil
		set(CondConfigGenerated, metav1.ConditionFalse, "ConfigGenerationInactive", "Declarative config generation is not active")
	} else if o, ok := in.outcomes["configmap"]; ok && o.Class == OutcomeUserError {
		reason := ReasonConfigGenFailed
		if o.Reason == ReasonBaseConfigUnavailable {
			reason = ReasonBaseConfigUnavailable
		}
		set(CondConfigGenerated, metav1.ConditionFalse, reason, o.Message)
	} else if g := in.generated; g != nil {
		name := render.GeneratedConfigName(s.Name, g.Hash)
		cg := &ogxv1beta1.ConfigGenerationStatus{ObservedGeneration: s.Generation, ConfigMapName: name,
			ProviderCount: g.ProviderCount, ResourceCount: g.ResourceCount, ConfigVersion: g.ConfigVersion, GeneratedAt: in.now}
		if old.ConfigGeneration != nil && old.ConfigGeneration.ConfigMapName == name {
			// Same config: keep when and by which generation it was made.
			cg.GeneratedAt = old.ConfigGeneration.GeneratedAt
			cg.ObservedGeneration = old.ConfigGeneration.ObservedGeneration
		}
		st.ConfigGeneration = cg
		set(CondConfigGenerated, metav1.ConditionTrue, "ConfigGenerationSucceeded",
			fmt.Sprintf("Generated config.yaml with %d providers and %d resources", g.ProviderCount, g.ResourceCount))
	}

	// DeploymentReady, and the expected replica count D.
	// With autoscaling the HPA decides the count: the live spec.replicas,
	// but at least the HPA minimum (a new Deployment starts at 1 until the
	// HPA scales it up).
	expected := s.Spec.Replicas()
	if s.Spec.Autoscaling() != nil {
		expected = s.Spec.HPAMinReplicas()
		if d != nil && d.Spec.Replicas != nil && *d.Spec.Replicas > expected {
			expected = *d.Spec.Replicas
		}
	}
	deployFailed := ""
	rolledOut := false
	switch {
	case d == nil:
		set(CondDeploymentReady, metav1.ConditionFalse, "DeploymentPending", "Deployment is pending")
	default:
		deployFailed = deploymentFailure(d)
		rolledOut = rolloutComplete(d, expected)
		switch {
		case deployFailed != "":
			set(CondDeploymentReady, metav1.ConditionFalse, ReasonDeploymentFailed, deployFailed)
		case rolledOut && expected == 0:
			set(CondDeploymentReady, metav1.ConditionTrue, "DeploymentReady", "Deployment is scaled to zero")
		case rolledOut:
			set(CondDeploymentReady, metav1.ConditionTrue, "DeploymentReady", "Deployment is ready")
		default:
			set(CondDeploymentReady, metav1.ConditionFalse, "DeploymentProgressing",
				fmt.Sprintf("Deployment is scaling: %d/%d replicas available", d.Status.AvailableReplicas, expected))
		}
	}

	// StorageReady, only with storage.
	if s.Spec.StorageSpec() == nil {
		remove(CondStorageReady)
	} else if f := factOf(in.facts, CondStorageReady); f != nil {
		set(CondStorageReady, f.Status, f.Reason, f.Message)
	} else {
		setStorage(set, in.pvc, in.pvcName, s.Spec.StorageSize())
	}

	// Adoption conditions.
	setAdoption(s, in, set, remove, conds)

	// ServiceReady.
	switch o := in.outcomes["service"]; {
	case o.Class == OutcomeUserError:
		set(CondServiceReady, metav1.ConditionFalse, "ServiceFailed", o.Message)
	case in.serviceExists:
		set(CondServiceReady, metav1.ConditionTrue, "ServiceReady", "Service is ready")
	default:
		set(CondServiceReady, metav1.ConditionFalse, "ServicePending", fmt.Sprintf("Service %s not found", render.ServiceName(s.Name)))
	}

	// HealthCheck: the probe's verdict; it never gates Ready.
	switch {
	case !in.probeEnabled:
		set(CondHealthCheck, metav1.ConditionUnknown, "HealthCheckDisabled", "The server probe is disabled")
	case d == nil || d.Status.AvailableReplicas == 0:
		set(CondHealthCheck, metav1.ConditionFalse, "DeploymentNotReady", "Deployment not ready")
	case in.probe == nil:
		// Not probed yet: keep what was there.
	case in.probe.Healthy:
		set(CondHealthCheck, metav1.ConditionTrue, "HealthCheckPassed", "Health check passed")
	default:
		set(CondHealthCheck, metav1.ConditionFalse, "HealthCheckFailed", in.probe.HealthMessage)
	}

	// Phase and the kstatus conditions.
	var terminals []terminal
	var waiting []string
	waitReason := ReasonProgressing
	transient := ""
	for _, name := range in.controllers {
		o := in.outcomes[name]
		switch {
		case o.Class == OutcomeUserError:
			terminals = append(terminals, terminal{o.Reason, o.Message})
		case o.Class == OutcomeWaiting:
			waiting = append(waiting, o.Message)
			if o.Reason == ReasonAdoptionInProgress {
				waitReason = ReasonAdoptionInProgress
			}
		case o.Class == OutcomeTransient && transient == "":
			transient = o.Message
		case o.Generation != s.Generation && s.DeletionTimestamp == nil:
			waiting = append(waiting, fmt.Sprintf("waiting for the %s controller to observe generation %d", name, s.Generation))
		}
	}
	if deployFailed != "" {
		terminals = append(terminals, terminal{ReasonDeploymentFailed, deployFailed})
	}
	// Reconciling and Stalled exist only while True; set() keeps their
	// lastTransitionTime while they stay True, so they are dropped only at
	// the end when this pass did not set them.
	keep := map[string]bool{}
	setKept := func(t string, status metav1.ConditionStatus, reason, msg string) {
		keep[t] = true
		set(t, status, reason, msg)
	}
	res := statusResult{}
	switch {
	case s.DeletionTimestamp != nil:
		st.Phase = ogxv1beta1.PhaseTerminating
		set(CondReady, metav1.ConditionFalse, "Terminating", "OGXServer is being deleted")
	case len(terminals) > 0:
		st.Phase = ogxv1beta1.PhaseFailed
		// Every controller re-validates the spec, so one invalid spec is
		// reported by all of them: show each message once.
		var msgs []string
		seen := map[string]bool{}
		for _, t := range terminals {
			if !seen[t.message] {
				seen[t.message] = true
				msgs = append(msgs, t.message)
			}
		}
		msg := strings.Join(msgs, "; ")
		set(CondReady, metav1.ConditionFalse, terminals[0].reason, msg)
		setKept(CondStalled, metav1.ConditionTrue, terminals[0].reason, msg)
		res.requeueAfter = time.Minute
	case transient != "":
		if st.Phase == "" {
			st.Phase = ogxv1beta1.PhasePending
		}
		// A Ready condition from an older generation must not survive: it
		// would let `kubectl wait` pass on a spec not yet applied.
		if r := apimeta.FindStatusCondition(conds, CondReady); r == nil || r.ObservedGeneration != s.Generation {
			set(CondReady, metav1.ConditionUnknown, "Reconciling", "Reconciling")
		}
		setKept(CondReconciling, metav1.ConditionTrue, "RetryingAfterError", transient)
		res.requeueAfter = 10 * time.Second
	case d == nil:
		st.Phase = ogxv1beta1.PhasePending
		if waitReason == ReasonAdoptionInProgress {
			msg := strings.Join(waiting, "; ")
			set(CondReady, metav1.ConditionFalse, ReasonAdoptionInProgress, msg)
			setKept(CondReconciling, metav1.ConditionTrue, ReasonAdoptionInProgress, msg)
		} else {
			set(CondReady, metav1.ConditionFalse, "DeploymentPending", "Deployment is pending")
			setKept(CondReconciling, metav1.ConditionTrue, ReasonProgressing, "Waiting for the Deployment to be created")
		}
		res.requeueAfter = 10 * time.Second
	case !rolledOut || len(waiting) > 0:
		st.Phase = ogxv1beta1.PhaseInitializing
		msg := fmt.Sprintf("Deployment is scaling: %d/%d replicas available", d.Status.AvailableReplicas, expected)
		if len(waiting) > 0 {
			msg = strings.Join(waiting, "; ")
		}
		readyReason := "DeploymentProgressing"
		if waitReason == ReasonAdoptionInProgress {
			readyReason = ReasonAdoptionInProgress
		}
		set(CondReady, metav1.ConditionFalse, readyReason, msg)
		setKept(CondReconciling, metav1.ConditionTrue, waitReason, msg)
		res.requeueAfter = 10 * time.Second
	default:
		st.Phase = ogxv1beta1.PhaseReady
		if expected == 0 {
			set(CondReady, metav1.ConditionTrue, "ScaledToZero", "scaled to zero replicas")
		} else {
			set(CondReady, metav1.ConditionTrue, "Available", fmt.Sprintf("%d/%d replicas available", d.Status.AvailableReplicas, expected))
		}
		res.requeueAfter = 5 * time.Minute
		if c := apimeta.FindStatusCondition(conds, CondHealthCheck); c != nil && c.Status == metav1.ConditionFalse {
			res.requeueAfter = 30 * time.Second
		}
	}
	for _, t := range []string{CondReconciling, CondStalled} {
		if !keep[t] {
			remove(t)
		}
	}
	st.Conditions = orderConditions(conds)
	res.status = st
	return res
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

// setAdoption sets StorageAdopted and NetworkingAdopted from what the pvc,
// service and ingress controllers reported, and AdoptionConfigInvalid from
// the annotations (checks A4/A5) and the several-adopted-PVCs error.
func setAdoption(s *ogxv1beta1.OGXServer, in statusInputs, set func(string, metav1.ConditionStatus, string, string),
	remove func(string), old []metav1.Condition) {
	for _, t := range []string{CondStorageAdopted, CondNetworkingAdopted} {
		if f := factOf(in.facts, t); f != nil {
			set(t, f.Status, f.Reason, f.Message)
		} else {
			remove(t)
		}
	}
	var problems []string
	for _, e := range validation.ValidateAdoption(s) {
		key := strings.TrimSuffix(strings.TrimPrefix(e.Field, "metadata.annotations["), "]")
		problems = append(problems, adoptionProblem(key, e))
	}
	if o := in.outcomes["pvc"]; o.Class == OutcomeUserError && o.Reason == ReasonAdoptionConfigInvalid {
		problems = append(problems, o.Message)
	}
	switch {
	case len(problems) > 0:
		set(CondAdoptionConfigInvalid, metav1.ConditionTrue, ReasonAdoptionConfigInvalid, strings.Join(problems, "; "))
	case apimeta.IsStatusConditionTrue(old, CondAdoptionConfigInvalid):
		set(CondAdoptionConfigInvalid, metav1.ConditionFalse, "AnnotationsValid", "Adoption annotations are valid")
	}
}

// adoptionProblem words an A4/A5 failure for the AdoptionConfigInvalid
// condition: "<annotation>: value "<v>" ..." (docs/controllers.md, Annotation
// validation).
func adoptionProblem(annotation string, e *field.Error) string {
	detail := e.Detail
	if strings.HasPrefix(detail, "adoption annotation value must not equal the CR name") {
		detail = fmt.Sprintf("value %q must not equal the CR name; same-name adoption causes resource conflicts", fmt.Sprint(e.BadValue))
	}
	return annotation + ": " + detail
}

// externalURL is nil without external access, "" until an address is
// known, else <scheme>://<host>: the configured hostname, else the
// load balancer's hostname or IP; https when a TLS entry covers the host.
func externalURL(s *ogxv1beta1.OGXServer, ing *networkingv1.Ingress) *string {
	if !s.Spec.ExternalAccessEnabled() {
		return nil
	}
	url := ""
	if ing == nil {
		return &url
	}
	host := s.Spec.Network.ExternalAccess.Hostname
	if host == "" {
		for _, lb := range ing.Status.LoadBalancer.Ingress {
			if lb.Hostname != "" {
				host = lb.Hostname
				break
			}
			if lb.IP != "" {
				host = lb.IP
				break
			}
		}
	}
	if host == "" {
		return &url
	}
	scheme := "http"
	for _, t := range ing.Spec.TLS {
		covers := len(t.Hosts) == 0
		for _, h := range t.Hosts {
			covers = covers || h == host
		}
		if covers {
			scheme = "https"
		}
	}
	url = scheme + "://" + host
	return &url
}

// setStorage sets StorageReady from the effective PVC.
func setStorage(set func(string, metav1.ConditionStatus, string, string), pvc *corev1.PersistentVolumeClaim, name string, requested resource.Quantity) {
	switch {
	case pvc == nil:
		set(CondStorageReady, metav1.ConditionFalse, "StorageFailed", fmt.Sprintf("PVC %s not found", name))
	case pvc.Status.Phase == corev1.ClaimBound:
		msg := "Storage is ready"
		if actual, ok := pvc.Status.Capacity[corev1.ResourceStorage]; ok && actual.Cmp(requested) != 0 {
			msg += fmt.Sprintf(" (requested %s, actual %s; ogx-controller does not resize PVCs)", requested.String(), actual.String())
		}
		set(CondStorageReady, metav1.ConditionTrue, "StorageReady", msg)
	case pvc.Status.Phase == corev1.ClaimLost:
		set(CondStorageReady, metav1.ConditionFalse, "StorageFailed", fmt.Sprintf("PVC %s is lost", name))
	default:
		phase := pvc.Status.Phase
		if phase == "" {
			phase = corev1.ClaimPending
		}
		set(CondStorageReady, metav1.ConditionFalse, "StoragePending", fmt.Sprintf("PVC %s is not bound: %s", name, phase))
	}
}

// deploymentFailure returns the message of a Deployment condition that means
// the rollout cannot finish on its own, or "".
func deploymentFailure(d *appsv1.Deployment) string {
	for _, c := range d.Status.Conditions {
		if c.Type == appsv1.DeploymentProgressing && c.Status == corev1.ConditionFalse && c.Reason == "ProgressDeadlineExceeded" {
			return c.Message
		}
		if c.Type == appsv1.DeploymentReplicaFailure && c.Status == corev1.ConditionTrue {
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
