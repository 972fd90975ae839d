package status

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/conversion"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/apply"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/caches"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/events"
	ogxv1beta1ac "github.com/ogx-k8s/ogx-controller/pkg/generated/applyconfiguration/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

// CoalesceWindow is how long a server that is still starting keeps a
// written status before a change within the same phase is written: while
// Pending or Initializing the messages follow every child event, and writing
// each would be several writes per new server for nothing a user acts on
// (docs/status.md, Write rules).
const CoalesceWindow = 5 * time.Second

// coalesce returns how long to wait before writing st, or 0 to write now.
func (c *Controller) coalesce(s *ogxv1beta1.OGXServer, st ogxv1beta1.OGXServerStatus, d *appsv1.Deployment) time.Duration {
	if wait := c.firstStatusWait(s, st, d); wait > 0 {
		return wait
	}
	if !st.Phase.Starting() || s.Status.Phase != st.Phase || s.Status.ObservedGeneration != st.ObservedGeneration {
		return 0
	}
	w, ok := c.writes.Get(s.UID)
	if !ok {
		return 0
	}
	return max(CoalesceWindow-c.d.Opts.Clock.Now().Sub(w.at), 0)
}

// firstStatusWait holds a server's first status while it would say
// Initializing and its Deployment is younger than CoalesceWindow, so pods
// available by then make Ready the only write; the wait is capped at the
// window in case clocks differ.
func (c *Controller) firstStatusWait(s *ogxv1beta1.OGXServer, st ogxv1beta1.OGXServerStatus, d *appsv1.Deployment) time.Duration {
	if s.Status.Phase != "" || st.Phase != ogxv1beta1.PhaseInitializing || d == nil {
		return 0
	}
	wait := CoalesceWindow - c.d.Opts.Clock.Now().Sub(d.CreationTimestamp.Time)
	return min(max(wait, 0), CoalesceWindow)
}

// newStatusEquality compares statuses as they are stored: times at second
// precision and JSON values (provider configs) as values, whatever their
// key order or spacing; the rest field by field, nil and empty alike, as
// equality.Semantic does. It compares in place: copying and normalizing both
// statuses made 13% of the bytes the status controller allocated (make
// bench -n 1000, session 29's allocation profile).
func newStatusEquality() conversion.Equalities {
	return conversion.EqualitiesOrDie(
		func(a, b metav1.Time) bool { return a.Truncate(time.Second).Equal(b.Truncate(time.Second)) },
		func(a, b apiextensionsv1.JSON) bool { return bytes.Equal(a.Raw, b.Raw) || jsonValueEqual(a.Raw, b.Raw) },
	)
}

// jsonValueEqual reports whether a and b are the same JSON value; false if
// either does not parse.
func jsonValueEqual(a, b []byte) bool {
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}

// takeOverStatus merges the upstream operator's status field ownership into
// ours, patching the main resource since managedFields sent through the
// status subresource are ignored (docs/status.md, Write rules). A failure is
// logged and retried on the next pass; it never blocks the status apply.
func (c *Controller) takeOverStatus(ctx context.Context, s *ogxv1beta1.OGXServer) {
	patch, err := apply.TakeoverPatch(s, ogxv1beta1.SchemeGroupVersion.String(), c.d.Opts.TakeoverManagers, "status", c.d.Opts.Clock.Now())
	if err != nil || patch == nil {
		return
	}
	if _, err := c.d.OGX.OgxV1beta1().OGXServers(s.Namespace).Patch(ctx, s.Name, types.JSONPatchType, patch,
		metav1.PatchOptions{FieldManager: render.FieldManager}); err != nil {
		klog.FromContext(ctx).Error(err, "Could not take over status field ownership; will retry")
		return
	}
	c.d.Events.Journal().Add(caches.Key(s.Namespace, s.Name), s.UID, "OGXServer", s.Name+" (status)", events.TakenOver)
	klog.FromContext(ctx).Info("Took over status field ownership from the upstream operator")
}

// write applies the complete status to the status subresource.
func (c *Controller) write(ctx context.Context, s *ogxv1beta1.OGXServer, st ogxv1beta1.OGXServerStatus) error {
	statusAC, err := apply.AsObject[ogxv1beta1ac.OGXServerStatusApplyConfiguration](st)
	if err != nil {
		return err
	}
	c.takeOverStatus(ctx, s)
	ac := ogxv1beta1ac.OGXServer(s.Name, s.Namespace).WithStatus(statusAC)
	out, err := c.d.OGX.OgxV1beta1().OGXServers(s.Namespace).ApplyStatus(ctx, ac, apply.ApplyOptions())
	if err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("writing status: %w", err)
	}
	// Within a phase a write is logged at -v=2, as a created child is
	// (apply.Child.write): a phase change is what the default log keeps.
	logger := klog.FromContext(ctx)
	if st.Phase == s.Status.Phase {
		logger = logger.V(2)
	}
	logger.Info("Wrote status", "phase", st.Phase)
	c.writes.Set(s.UID, statusWrite{written: out, at: c.d.Opts.Clock.Now()})
	return nil
}

// healthFailing reports, later, whether the status of s still says the
// probe fails: while it does, a HealthCheckFailed Warning the budget dropped
// is owed. It reads our last write when the cache has not caught up.
func (c *Controller) healthFailing(s *ogxv1beta1.OGXServer) func() bool {
	namespace, name, uid := s.Namespace, s.Name, s.UID
	return func() bool {
		cached, err := c.d.Caches.Server(namespace, name)
		if err != nil || cached.UID != uid {
			return false
		}
		cur := apimeta.FindStatusCondition(c.latest(cached).Status.Conditions, ogxv1beta1.ConditionHealthCheck)
		return cur != nil && cur.Status == metav1.ConditionFalse && cur.Reason == ogxv1beta1.ReasonHealthCheckFailed
	}
}

// healthEvent records HealthCheckPassed when the HealthCheck condition
// becomes True, and HealthCheckFailed when its reason becomes
// HealthCheckFailed: a verdict of the probe, whatever the condition said
// before (absent, "Not probed yet", Deployment not ready or disabled), so a
// server unhealthy from its first probe gets its Warning too.
func (c *Controller) healthEvent(before, after []metav1.Condition, s *ogxv1beta1.OGXServer) {
	old := apimeta.FindStatusCondition(before, ogxv1beta1.ConditionHealthCheck)
	cur := apimeta.FindStatusCondition(after, ogxv1beta1.ConditionHealthCheck)
	switch {
	case cur == nil:
	case cur.Status == metav1.ConditionTrue && (old == nil || old.Status != metav1.ConditionTrue):
		c.d.Events.Normal(s, ogxv1beta1.ReasonHealthCheckPassed, cur.Message)
	case cur.Status == metav1.ConditionFalse && cur.Reason == ogxv1beta1.ReasonHealthCheckFailed &&
		(old == nil || old.Status != metav1.ConditionFalse || old.Reason != ogxv1beta1.ReasonHealthCheckFailed):
		c.d.Events.Warn(s, ogxv1beta1.ReasonHealthCheckFailed, cur.Message, c.healthFailing(s))
	}
}
