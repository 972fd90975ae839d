package controller

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/configgen"
	"github.com/ogx-k8s/ogx-controller/pkg/configgen/oci"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/render"
	ogxv1beta1ac "github.com/ogx-k8s/ogx-controller/pkg/generated/applyconfiguration/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/generated/clientset/versioned"
	"github.com/ogx-k8s/ogx-controller/pkg/metrics"
	"github.com/ogx-k8s/ogx-controller/pkg/resolve"
)

// StatusController is the only writer of OGXServer status. It computes the
// complete status from the caches, the outcome board and the server probe,
// and writes it with one server-side apply of the status subresource only
// when it differs from the stored status: a steady state writes nothing.
type StatusController struct {
	*queueRunner
	ogx      versioned.Interface
	caches   *Caches
	children *children
	board    *OutcomeBoard
	resolver *resolver
	events   eventSink
	prober   Prober
	probes   *probeState
	// probeSlots bounds the probes in flight.
	probeSlots      chan struct{}
	digests         *podDigests
	probeEnabled    bool
	operatorVersion string
	controllers     []string
	takeover        []string
	now             func() time.Time

	// written holds the object returned by our last status write until the
	// informer delivers that resourceVersion, so a pass racing the cache
	// neither writes again nor re-stamps timestamps.
	mu      sync.Mutex
	written map[types.UID]*ogxv1beta1.OGXServer
	// writtenAt is when status was last written per server (coalesce).
	writtenAt map[types.UID]time.Time
}

func newStatusController(d *deps, controllers []string) *StatusController {
	c := &StatusController{
		ogx: d.ogx, caches: d.caches, board: d.board, resolver: d.resolver, events: d.events, children: d.children,
		prober: d.opts.Prober, probes: newProbeState(d.opts.ProbeInterval), probeEnabled: d.opts.ProbeEnabled,
		digests:         newPodDigests(d.caches.podsOf),
		operatorVersion: d.opts.OperatorVersion, controllers: controllers, now: time.Now, takeover: d.opts.TakeoverManagers,
		written:    map[types.UID]*ogxv1beta1.OGXServer{},
		writtenAt:  map[types.UID]time.Time{},
		probeSlots: make(chan struct{}, maxConcurrentProbes),
	}
	c.queueRunner = newQueueRunner("status", c.sync, d.opts.Metrics)
	return c
}

// forget drops the state kept for a deleted OGXServer.
func (c *StatusController) forget(uid types.UID) {
	c.probes.forget(uid)
	c.digests.forget(uid)
	c.mu.Lock()
	delete(c.written, uid)
	delete(c.writtenAt, uid)
	c.mu.Unlock()
}

// latest returns the newer of the cached object and our last write.
func (c *StatusController) latest(s *ogxv1beta1.OGXServer) *ogxv1beta1.OGXServer {
	c.mu.Lock()
	defer c.mu.Unlock()
	w, ok := c.written[s.UID]
	if !ok {
		return s
	}
	if w.ResourceVersion == s.ResourceVersion || newerRV(s.ResourceVersion, w.ResourceVersion) {
		delete(c.written, s.UID)
		return s
	}
	return w
}

// newerRV compares resourceVersions numerically where they are numbers (as
// with etcd); resourceVersions are otherwise opaque, and then the cache wins.
func newerRV(a, b string) bool {
	if len(a) != len(b) {
		return len(a) > len(b)
	}
	return a > b
}

func (c *StatusController) sync(ctx context.Context, key string) (Result, error) {
	namespace, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return Result{}, nil
	}
	cached, err := c.caches.Server(namespace, name)
	if apierrors.IsNotFound(err) {
		return Result{}, nil
	}
	if err != nil {
		return Result{}, err
	}
	s := c.latest(cached)
	in := c.gather(ctx, s)
	res := computeStatus(in)
	if res.wait {
		return Result{RequeueAfter: res.requeueAfter}, nil
	}
	if statusEqual(s.Status, res.status) {
		c.events.flush(s, s.Status.Phase, s.Status.Phase)
		return Result{RequeueAfter: res.requeueAfter}, nil
	}
	if wait := c.coalesce(s, res.status); wait > 0 {
		return Result{RequeueAfter: wait}, nil
	}
	if err := c.write(ctx, s, res.status); err != nil {
		return Result{}, err
	}
	c.events.flush(s, s.Status.Phase, res.status.Phase)
	c.healthEvent(s.Status.Conditions, res.status.Conditions, s)
	return Result{RequeueAfter: res.requeueAfter}, nil
}

// gather reads what computeStatus needs.
func (c *StatusController) gather(ctx context.Context, s *ogxv1beta1.OGXServer) statusInputs {
	in := statusInputs{
		server: s, outcomes: c.board.Get(s.UID), controllers: c.controllers,
		probeEnabled: c.probeEnabled, operatorVersion: c.operatorVersion,
		clusterDomain: c.resolver.ClusterDomain, table: c.resolver.Table,
		now: metav1.NewTime(c.now().Truncate(time.Second)),
	}
	in.pvcName, _ = c.resolver.EffectivePVCName(s)
	in.facts = c.board.Facts(s.UID)
	sc := c.caches.For(s.Namespace)
	if d, ok := c.children.deployments.current(s.Namespace, s.Name); ok && controlledBy(d, s) {
		in.deployment = d
	}
	if svc, ok := c.children.services.current(s.Namespace, render.ServiceName(s.Name)); ok && controlledBy(svc, s) {
		in.serviceExists = true
	}
	if ing, ok := c.children.ingresses.current(s.Namespace, render.IngressName(s.Name)); ok && controlledBy(ing, s) {
		in.ingress = ing
	}
	in.pvc = sc.pvc(s.Namespace, in.pvcName)
	if img, err := c.resolver.Image(s); err == nil {
		in.image = img
	}
	switch s.Spec.ConfigMode() {
	case ogxv1beta1.ConfigModeInactive:
		in.configSource = "builtin"
	case ogxv1beta1.ConfigModeOverride:
		in.configSource = "override"
		in.configHash = overrideHash(ctx, c.resolver, s)
	case ogxv1beta1.ConfigModeGenerated:
		// Read only: status shows the config the configmap and deployment
		// controllers generated for this generation, never generates (nor
		// reads a registry) itself.
		if g, ok := c.resolver.memo.current(s.UID, s.Generation); ok {
			in.generated = &g
			in.configSource, in.configHash = g.BaseSource, g.BaseHash
			if g.ImageDigest != "" && in.image != "" {
				in.image = oci.PinnedImage(in.image, g.ImageDigest)
			}
		} else {
			keepReportedConfig(s, &in)
		}
	}
	// Without a digest from the reference or the base-config resolution, a
	// ready pod tells which image it actually runs.
	if in.image != "" && !strings.Contains(in.image, "@sha256:") && in.deployment != nil && in.deployment.Status.AvailableReplicas > 0 {
		if digest := c.digests.lookup(s.UID, s.Namespace, s.Name, in.image); digest != "" {
			in.image = oci.PinnedImage(in.image, digest)
		}
	}
	if c.probeEnabled && in.deployment != nil && in.deployment.Status.AvailableReplicas > 0 {
		in.probe = c.probe(ctx, s, in.deployment)
	}
	return in
}

// keepReportedConfig keeps what status last reported about the generated
// config while the config of a new generation is not generated yet (status
// is queued with the generating controllers and often runs first): the
// fields stay until the new values are known instead of going blank for
// one write. The image keeps its pinned digest only if it is still the
// same image.
func keepReportedConfig(s *ogxv1beta1.OGXServer, in *statusInputs) {
	rd := s.Status.ResolvedDistribution
	// Only a base of the kind the current spec uses is kept: after a switch
	// (from override or inactive mode, or between spec.baseConfig and image
	// labels) the old values would name the wrong source.
	want := configgen.SourceOCILabel
	if s.Spec.BaseConfig != nil {
		want = configgen.SourceConfigMap
	}
	if rd == nil || rd.ConfigSource != want {
		return
	}
	in.configSource, in.configHash = rd.ConfigSource, rd.ConfigHash
	if in.image != "" && strings.HasPrefix(rd.Image, in.image+"@") {
		in.image = rd.Image
	}
}

// controlledBy reports whether obj is controlled by s; status only counts our
// own children.
func controlledBy(obj metav1.Object, s *ogxv1beta1.OGXServer) bool {
	ref := metav1.GetControllerOfNoCopy(obj)
	return ref != nil && ref.UID == s.UID
}

// overrideHash is sha256:<hex> of the override config content.
func overrideHash(ctx context.Context, r *resolver, s *ogxv1beta1.OGXServer) string {
	text, err := r.ConfigMapKey(ctx, s.Namespace, *s.Spec.OverrideConfig, "spec.overrideConfig", resolve.PrefixConfigMap, "override config")
	if err != nil {
		return ""
	}
	return configgen.ConfigHash([]byte(text))
}

// maxConcurrentProbes bounds the server probes in flight: a probe waits on
// the network for up to its timeout, and a fleet's worth at once would be a
// burst of connections for nothing.
const maxConcurrentProbes = 16

// probe returns the last probe result of the server (nil before the first)
// and, when a probe is due (once per interval, or at once when the
// available replicas or the pod template changed), starts one in the
// background. A status pass never waits on the network: the probe's result
// is stored and enqueues the key, and the pass that follows reports it.
func (c *StatusController) probe(ctx context.Context, s *ogxv1beta1.OGXServer, d *appsv1.Deployment) *ProbeResult {
	// A change of available replicas or of the Deployment spec (its
	// generation) makes a probe due at once.
	trigger := fmt.Sprintf("%d/%d", d.Status.AvailableReplicas, d.Generation)
	prev, has, due := c.probes.due(s.UID, trigger, c.now())
	if due {
		c.startProbe(ctx, s, trigger, c.probeTarget(s))
	}
	if !has {
		return nil
	}
	return &prev
}

// probeTarget is where the server answers: its Service, over TLS with the
// Secret's CA when server TLS is on.
func (c *StatusController) probeTarget(s *ogxv1beta1.OGXServer) ProbeTarget {
	t := ProbeTarget{
		BaseURL: fmt.Sprintf("http://%s.%s.svc.%s:%d", render.ServiceName(s.Name), s.Namespace, c.resolver.ClusterDomain, s.Spec.Port()),
	}
	if tlsSpec := s.Spec.ServerTLS(); tlsSpec != nil {
		t.TLS = true
		t.BaseURL = "https" + strings.TrimPrefix(t.BaseURL, "http")
		t.ServerName = fmt.Sprintf("%s.%s.svc", render.ServiceName(s.Name), s.Namespace)
		if sec, err := c.caches.For(s.Namespace).secrets.Secrets(s.Namespace).Get(tlsSpec.SecretName); err == nil {
			t.CA = sec.Data["ca.crt"]
		}
	}
	return t
}

// startProbe probes in the background unless a probe of the server is
// already in flight; at most maxConcurrentProbes run at once.
func (c *StatusController) startProbe(ctx context.Context, s *ogxv1beta1.OGXServer, trigger string, t ProbeTarget) {
	if !c.probes.begin(s.UID) {
		return
	}
	key, uid := Key(s.Namespace, s.Name), s.UID
	logger := klog.FromContext(ctx)
	go func() {
		defer c.probes.end(uid)
		select {
		case c.probeSlots <- struct{}{}:
		case <-ctx.Done():
			return
		}
		r := c.prober.Probe(ctx, t)
		<-c.probeSlots
		if ctx.Err() != nil {
			return
		}
		if r.Healthy {
			c.caches.metrics.CountProbe(metrics.ProbeSuccess)
		} else {
			c.caches.metrics.CountProbe(metrics.ProbeFailure)
		}
		c.probes.store(uid, trigger, c.now(), r)
		logger.V(5).Info("Probed server", "ogxserver", key, "healthy", r.Healthy)
		c.Enqueue(key)
	}()
}

// statusCoalesceWindow is how long a server that is still starting keeps a
// written status before a change within the same phase is written: while
// Pending or Initializing, the messages follow every child event, and
// writing each of them would be several writes per new server for nothing
// a user acts on. A change of phase is written at once.
const statusCoalesceWindow = 5 * time.Second

// coalesce returns how long to wait before writing st, or 0 to write now.
func (c *StatusController) coalesce(s *ogxv1beta1.OGXServer, st ogxv1beta1.OGXServerStatus) time.Duration {
	starting := st.Phase == ogxv1beta1.PhasePending || st.Phase == ogxv1beta1.PhaseInitializing
	if !starting || s.Status.Phase != st.Phase || s.Status.ObservedGeneration != st.ObservedGeneration {
		return 0
	}
	c.mu.Lock()
	at, ok := c.writtenAt[s.UID]
	c.mu.Unlock()
	if !ok {
		return 0
	}
	if wait := statusCoalesceWindow - c.now().Sub(at); wait > 0 {
		return wait
	}
	return 0
}

// statusEqual compares statuses semantically (times at second precision,
// as they are stored).
func statusEqual(a, b ogxv1beta1.OGXServerStatus) bool {
	return equality.Semantic.DeepEqual(normalizeStatus(a), normalizeStatus(b))
}

func normalizeStatus(s ogxv1beta1.OGXServerStatus) ogxv1beta1.OGXServerStatus {
	out := *s.DeepCopy()
	for i := range out.Conditions {
		out.Conditions[i].LastTransitionTime = metav1.NewTime(out.Conditions[i].LastTransitionTime.Truncate(time.Second))
	}
	out.Version.LastUpdated = metav1.NewTime(out.Version.LastUpdated.Truncate(time.Second))
	if out.ConfigGeneration != nil {
		out.ConfigGeneration.GeneratedAt = metav1.NewTime(out.ConfigGeneration.GeneratedAt.Truncate(time.Second))
	}
	for i := range out.DistributionConfig.Providers {
		var v any
		if json.Unmarshal(out.DistributionConfig.Providers[i].Config.Raw, &v) == nil {
			out.DistributionConfig.Providers[i].Config.Raw, _ = json.Marshal(v)
		}
	}
	return out
}

// takeOverStatus merges the upstream operator's status field ownership into
// ours (it wrote status with Update requests, and an apply never removes
// fields only another manager owns). managedFields sent through the status
// subresource are ignored, so the patch goes to the main resource. A failure
// is logged and retried on the next pass; it never blocks the status apply.
func (c *StatusController) takeOverStatus(ctx context.Context, s *ogxv1beta1.OGXServer) {
	patch, err := takeoverPatch(s, ogxv1beta1.SchemeGroupVersion.String(), c.takeover, "status", c.now())
	if err != nil || patch == nil {
		return
	}
	if _, err := c.ogx.OgxV1beta1().OGXServers(s.Namespace).Patch(ctx, s.Name, types.JSONPatchType, patch,
		metav1.PatchOptions{FieldManager: render.FieldManager}); err != nil {
		klog.FromContext(ctx).Error(err, "Could not take over status field ownership; will retry")
		return
	}
	c.events.journal.add(Key(s.Namespace, s.Name), s.UID, "OGXServer", s.Name+" (status)", writeTakenOver)
	klog.FromContext(ctx).Info("Took over status field ownership from the upstream operator")
}

// write applies the complete status to the status subresource.
func (c *StatusController) write(ctx context.Context, s *ogxv1beta1.OGXServer, st ogxv1beta1.OGXServerStatus) error {
	statusAC, err := asObject[ogxv1beta1ac.OGXServerStatusApplyConfiguration](st)
	if err != nil {
		return err
	}
	c.takeOverStatus(ctx, s)
	ac := ogxv1beta1ac.OGXServer(s.Name, s.Namespace).WithStatus(statusAC)
	out, err := c.ogx.OgxV1beta1().OGXServers(s.Namespace).ApplyStatus(ctx, ac, applyOptions())
	if err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("writing status: %w", err)
	}
	klog.FromContext(ctx).Info("Wrote status", "phase", st.Phase)
	c.mu.Lock()
	c.written[s.UID] = out
	c.writtenAt[s.UID] = c.now()
	c.mu.Unlock()
	return nil
}

// healthEvent records HealthCheckPassed or HealthCheckFailed when the
// HealthCheck condition flips between True and False.
func (c *StatusController) healthEvent(before, after []metav1.Condition, s *ogxv1beta1.OGXServer) {
	find := func(conds []metav1.Condition) *metav1.Condition {
		for i := range conds {
			if conds[i].Type == CondHealthCheck {
				return &conds[i]
			}
		}
		return nil
	}
	old, cur := find(before), find(after)
	if cur == nil || (old != nil && old.Status == cur.Status) {
		return
	}
	switch cur.Status {
	case metav1.ConditionTrue:
		c.events.normal(s, "HealthCheckPassed", cur.Message)
	case metav1.ConditionFalse:
		if cur.Reason == "HealthCheckFailed" {
			c.events.warn(s, "HealthCheckFailed", cur.Message)
		}
	}
}
