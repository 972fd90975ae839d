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

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/render"
	"github.com/ogx-k8s/ogx-controller/pkg/resolve"
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
	table           resolve.DistributionTable
	image           string
	configSource    string
	configHash      string
	generated       *resolve.GeneratedConfig
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
		msg = msg[:maxConditionMessage-len("…")] + "…"
	}
	apimeta.SetStatusCondition(&c.conds, metav1.Condition{Type: t, Status: status, Reason: reason, Message: msg,
		ObservedGeneration: c.generation, LastTransitionTime: c.now})
}

func (c *conditionSet) remove(t string) { apimeta.RemoveStatusCondition(&c.conds, t) }

// setKstatus sets Reconciling or Stalled for this pass.
func (c *conditionSet) setKstatus(t string, status metav1.ConditionStatus, reason, msg string) {
	c.kstatus[t] = true
	c.set(t, status, reason, msg)
}

// result drops the kstatus conditions this pass did not set and orders the
// rest.
func (c *conditionSet) result() []metav1.Condition {
	for _, t := range []string{CondReconciling, CondStalled} {
		if !c.kstatus[t] {
			c.remove(t)
		}
	}
	return orderConditions(c.conds)
}

// computeStatus derives the complete status from its inputs and the current
// status (whose condition timestamps and sticky fields it keeps). Each part
// is a policy of its own, below; the order matters only for the phase,
// which reads what the conditions before it found.
func computeStatus(in statusInputs) statusResult {
	s := in.server
	if !boardComplete(in) {
		return statusResult{wait: true, requeueAfter: time.Second}
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
	setAdoption(s, in, cs.set, cs.remove, cs.conds)
	serviceReady(in, cs)
	healthCheck(in, cs)
	res := phaseAndReadiness(in, cs, &st, expected, deployFailed, rolledOut)
	st.Conditions = cs.result()
	res.status = st
	return res
}

// boardComplete: every child controller must have reported for this object
// before the phase may change (after a restart the board starts empty).
func boardComplete(in statusInputs) bool {
	if in.server.DeletionTimestamp != nil {
		return true
	}
	for _, name := range in.controllers {
		if _, ok := in.outcomes[name]; !ok {
			return false
		}
	}
	return true
}

// versionStatus: operatorVersion from the process, serverVersion kept when
// the probe did not tell; lastUpdated moves only when either changes.
func versionStatus(in statusInputs) ogxv1beta1.VersionInfo {
	old := in.server.Status.Version
	v := old
	v.OperatorVersion = in.operatorVersion
	if in.probe != nil && in.probe.Version != "" {
		v.ServerVersion = in.probe.Version
	}
	if v.OperatorVersion != old.OperatorVersion || v.ServerVersion != old.ServerVersion {
		v.LastUpdated = in.now
	}
	return v
}

// setDistribution fills the active and available distributions and the
// resolved image.
func setDistribution(in statusInputs, st *ogxv1beta1.OGXServerStatus) {
	s := in.server
	st.DistributionConfig.ActiveDistribution = s.Spec.DistributionName()
	if s.Spec.Distribution.Image != nil {
		st.DistributionConfig.ActiveDistribution = ogxv1beta1.ActiveDistributionCustom
	}
	st.DistributionConfig.AvailableDistributions = map[string]string(in.table)
	if in.image != "" {
		st.ResolvedDistribution = &ogxv1beta1.ResolvedDistribution{Image: in.image, ConfigSource: in.configSource, ConfigHash: in.configHash}
	}
}

// setEndpoints fills the available replicas, the URLs and the providers the
// probe reported (only while a replica is available).
func setEndpoints(in statusInputs, st *ogxv1beta1.OGXServerStatus) {
	s, d := in.server, in.deployment
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
}

// configGenerated sets ConfigGenerated and returns status.configGeneration:
// nil outside generated mode, the current one while the configmap
// controller reports a user error or nothing was generated yet.
func configGenerated(in statusInputs, cs *conditionSet) *ogxv1beta1.ConfigGenerationStatus {
	s := in.server
	old := s.Status.ConfigGeneration
	if s.Spec.ConfigMode() != ogxv1beta1.ConfigModeGenerated {
		cs.set(CondConfigGenerated, metav1.ConditionFalse, "ConfigGenerationInactive", "Declarative config generation is not active")
		return nil
	}
	if o, ok := in.outcomes["configmap"]; ok && o.Class == OutcomeUserError {
		// Each cause keeps its own reason (an invalid spec, a missing or
		// unlabelled reference, a CA bundle problem, a conflict on a child
		// of the configmap controller); only a failure of generation itself
		// is ConfigGenerationFailed.
		reason := o.Reason
		if reason == "" {
			reason = resolve.ReasonConfigGenFailed
		}
		cs.set(CondConfigGenerated, metav1.ConditionFalse, reason, o.Message)
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
	cs.set(CondConfigGenerated, metav1.ConditionTrue, "ConfigGenerationSucceeded",
		fmt.Sprintf("Generated config.yaml with %d providers and %d resources", g.ProviderCount, g.ResourceCount))
	return cg
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
		cs.set(CondDeploymentReady, metav1.ConditionFalse, "DeploymentPending", "Deployment is pending")
		return "", false
	}
	failed, rolledOut = deploymentFailure(d), rolloutComplete(d, expected)
	switch {
	case failed != "":
		cs.set(CondDeploymentReady, metav1.ConditionFalse, ReasonDeploymentFailed, failed)
	case rolledOut && expected == 0:
		cs.set(CondDeploymentReady, metav1.ConditionTrue, "DeploymentReady", "Deployment is scaled to zero")
	case rolledOut:
		cs.set(CondDeploymentReady, metav1.ConditionTrue, "DeploymentReady", "Deployment is ready")
	default:
		cs.set(CondDeploymentReady, metav1.ConditionFalse, "DeploymentProgressing",
			fmt.Sprintf("Deployment is scaling: %d/%d replicas available", d.Status.AvailableReplicas, expected))
	}
	return failed, rolledOut
}

// storageReady sets StorageReady, which exists only with storage: the pvc
// controller's report when it made one (adoption), else the claim's state.
func storageReady(in statusInputs, cs *conditionSet) {
	s := in.server
	switch f := factOf(in.facts, CondStorageReady); {
	case s.Spec.StorageSpec() == nil:
		cs.remove(CondStorageReady)
	case f != nil:
		cs.set(CondStorageReady, f.Status, f.Reason, f.Message)
	default:
		setStorage(cs.set, in.pvc, in.pvcName, s.Spec.StorageSize())
	}
}

// serviceReady sets ServiceReady.
func serviceReady(in statusInputs, cs *conditionSet) {
	switch o := in.outcomes["service"]; {
	case o.Class == OutcomeUserError:
		cs.set(CondServiceReady, metav1.ConditionFalse, "ServiceFailed", o.Message)
	case in.serviceExists:
		cs.set(CondServiceReady, metav1.ConditionTrue, "ServiceReady", "Service is ready")
	default:
		cs.set(CondServiceReady, metav1.ConditionFalse, "ServicePending", fmt.Sprintf("Service %s not found", render.ServiceName(in.server.Name)))
	}
}

// healthCheck sets HealthCheck, the probe's verdict; it never gates Ready.
// Before the first probe the current condition stays.
func healthCheck(in statusInputs, cs *conditionSet) {
	d := in.deployment
	switch {
	case !in.probeEnabled:
		cs.set(CondHealthCheck, metav1.ConditionUnknown, "HealthCheckDisabled", "The server probe is disabled")
	case d == nil || d.Status.AvailableReplicas == 0:
		cs.set(CondHealthCheck, metav1.ConditionFalse, "DeploymentNotReady", "Deployment not ready")
	case in.probe == nil:
	case in.probe.Healthy:
		cs.set(CondHealthCheck, metav1.ConditionTrue, "HealthCheckPassed", "Health check passed")
	default:
		cs.set(CondHealthCheck, metav1.ConditionFalse, "HealthCheckFailed", in.probe.HealthMessage)
	}
}

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
	p := passSummary{waitReason: ReasonProgressing}
	for _, name := range in.controllers {
		o := in.outcomes[name]
		switch {
		case o.Class == OutcomeUserError:
			p.terminals = append(p.terminals, terminal{o.Reason, o.Message})
		case o.Class == OutcomeWaiting:
			p.waiting = append(p.waiting, o.Message)
			if o.Reason == ReasonAdoptionInProgress {
				p.waitReason = ReasonAdoptionInProgress
			}
		case o.Class == OutcomeTransient && p.transient == "":
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
// the outcomes and the rollout, and says how soon to look again.
func phaseAndReadiness(in statusInputs, cs *conditionSet, st *ogxv1beta1.OGXServerStatus, expected int32, deployFailed string, rolledOut bool) statusResult {
	s, d := in.server, in.deployment
	p := summarizeOutcomes(in)
	if deployFailed != "" {
		p.terminals = append(p.terminals, terminal{ReasonDeploymentFailed, deployFailed})
	}
	switch {
	case s.DeletionTimestamp != nil:
		st.Phase = ogxv1beta1.PhaseTerminating
		cs.set(CondReady, metav1.ConditionFalse, "Terminating", "OGXServer is being deleted")
		return statusResult{}
	case len(p.terminals) > 0:
		st.Phase = ogxv1beta1.PhaseFailed
		msg := terminalMessage(p.terminals)
		cs.set(CondReady, metav1.ConditionFalse, p.terminals[0].reason, msg)
		cs.setKstatus(CondStalled, metav1.ConditionTrue, p.terminals[0].reason, msg)
		return statusResult{requeueAfter: time.Minute}
	case p.transient != "":
		if st.Phase == "" {
			st.Phase = ogxv1beta1.PhasePending
		}
		// A Ready condition from an older generation must not survive: it
		// would let `kubectl wait` pass on a spec not yet applied.
		if r := apimeta.FindStatusCondition(cs.conds, CondReady); r == nil || r.ObservedGeneration != s.Generation {
			cs.set(CondReady, metav1.ConditionUnknown, "Reconciling", "Reconciling")
		}
		cs.setKstatus(CondReconciling, metav1.ConditionTrue, "RetryingAfterError", p.transient)
		return statusResult{requeueAfter: 10 * time.Second}
	case d == nil:
		st.Phase = ogxv1beta1.PhasePending
		if p.waitReason == ReasonAdoptionInProgress {
			msg := strings.Join(p.waiting, "; ")
			cs.set(CondReady, metav1.ConditionFalse, ReasonAdoptionInProgress, msg)
			cs.setKstatus(CondReconciling, metav1.ConditionTrue, ReasonAdoptionInProgress, msg)
		} else {
			cs.set(CondReady, metav1.ConditionFalse, "DeploymentPending", "Deployment is pending")
			cs.setKstatus(CondReconciling, metav1.ConditionTrue, ReasonProgressing, "Waiting for the Deployment to be created")
		}
		return statusResult{requeueAfter: 10 * time.Second}
	case !rolledOut || len(p.waiting) > 0:
		st.Phase = ogxv1beta1.PhaseInitializing
		msg := fmt.Sprintf("Deployment is scaling: %d/%d replicas available", d.Status.AvailableReplicas, expected)
		if len(p.waiting) > 0 {
			msg = strings.Join(p.waiting, "; ")
		}
		readyReason := "DeploymentProgressing"
		if p.waitReason == ReasonAdoptionInProgress {
			readyReason = ReasonAdoptionInProgress
		}
		cs.set(CondReady, metav1.ConditionFalse, readyReason, msg)
		cs.setKstatus(CondReconciling, metav1.ConditionTrue, p.waitReason, msg)
		return statusResult{requeueAfter: 10 * time.Second}
	}
	st.Phase = ogxv1beta1.PhaseReady
	if expected == 0 {
		cs.set(CondReady, metav1.ConditionTrue, "ScaledToZero", "scaled to zero replicas")
	} else {
		cs.set(CondReady, metav1.ConditionTrue, "Available", fmt.Sprintf("%d/%d replicas available", d.Status.AvailableReplicas, expected))
	}
	if c := apimeta.FindStatusCondition(cs.conds, CondHealthCheck); c != nil && c.Status == metav1.ConditionFalse {
		return statusResult{requeueAfter: 30 * time.Second}
	}
	return statusResult{requeueAfter: 5 * time.Minute}
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
	problems := adoptionAnnotationProblems(s)
	if o := in.outcomes["pvc"]; o.Class == OutcomeUserError && o.Reason == resolve.ReasonAdoptionConfigInvalid {
		problems = append(problems, o.Message)
	}
	switch {
	case len(problems) > 0:
		set(CondAdoptionConfigInvalid, metav1.ConditionTrue, resolve.ReasonAdoptionConfigInvalid, strings.Join(problems, "; "))
	case apimeta.IsStatusConditionTrue(old, CondAdoptionConfigInvalid):
		set(CondAdoptionConfigInvalid, metav1.ConditionFalse, "AnnotationsValid", "Adoption annotations are valid")
	}
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
		if isDeploymentFailure(c) {
			return c.Message
		}
	}
	return ""
}

// isDeploymentFailure: the progress deadline passed, or replicas cannot be
// created. The only Deployment conditions anything here reads (the cached
// view keeps no others).
func isDeploymentFailure(c appsv1.DeploymentCondition) bool {
	return c.Type == appsv1.DeploymentProgressing && c.Status == corev1.ConditionFalse && c.Reason == "ProgressDeadlineExceeded" ||
		c.Type == appsv1.DeploymentReplicaFailure && c.Status == corev1.ConditionTrue
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
