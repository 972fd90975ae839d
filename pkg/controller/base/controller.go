package base

import (
	"context"
	"errors"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/apply"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/caches"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/events"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/worker"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
	"github.com/ogx-k8s/ogx-controller/pkg/resolve"
)

// The controllers' names. Each keys its controller's outcomes and facts on
// the OutcomeBoard, names its queue in logs and metrics, and is how the
// status controller finds the outcome a condition reports.
const (
	ControllerConfigMap  = "configmap"
	ControllerPVC        = "pvc"
	ControllerService    = "service"
	ControllerDeployment = "deployment"
	ControllerIngress    = "ingress"
	ControllerMonitoring = "monitoring"
	// ControllerStatus names the status controller's queue; it records no
	// outcome.
	ControllerStatus = "status"
)

// ReconcileFunc converges one kind of child for one OGXServer with the
// controller's Deps. It receives a valid, live (not being deleted) OGXServer
// from the cache, which it must not mutate.
type ReconcileFunc func(ctx context.Context, d *Deps, s *ogxv1beta1.OGXServer) (worker.Result, error)

// Controller runs the pass every child controller shares
// (docs/controllers.md, The pass of a child controller) around the kind's
// reconcile.
type Controller struct {
	*worker.Runner
	// Deps are the clients, caches and per-server stores it shares with
	// the other controllers.
	Deps      *Deps
	reconcile ReconcileFunc
	// Watched names the sources whose events start its passes; each
	// controller declares them in its own package (watched).
	Watched func(*caches.Sources) []*caches.Source
	// Narrowed, when set, gives some watched sources an update filter of
	// this controller's own (caches.Watch.Changed).
	Narrowed func(*caches.Sources) map[*caches.Source]func(old, cur any) bool
	// Writes names the child kinds it applies: the events of the answers
	// to its own applies start none of its passes
	// (caches.Watch.SkipOwnWrites). OwnWrite marks the answer to any apply
	// of ours, so each kind must have one writing controller, as it has.
	Writes []string
}

// Watches are the entries that enqueue into this controller.
func (c *Controller) Watches(w *caches.Sources) []caches.Watch {
	if c.Watched == nil {
		return nil
	}
	out := caches.WatchesOf(c.Enqueue, c.Watched(w)...)
	var changed map[*caches.Source]func(old, cur any) bool
	if c.Narrowed != nil {
		changed = c.Narrowed(w)
	}
	for i := range out {
		out[i].Changed = changed[out[i].Source]
		out[i].SkipOwnWrites = slices.ContainsFunc(c.Writes, func(kind string) bool { return w.OfKind(kind) == out[i].Source })
	}
	return out
}

// NewController runs reconcile in the worker loop of a controller named
// name; name keys its outcomes and names it in logs and metrics.
func NewController(name string, d *Deps, reconcile ReconcileFunc) *Controller {
	c := &Controller{Deps: d, reconcile: reconcile}
	c.Runner = worker.NewRunner(name, c.Sync, d.Opts.Metrics)
	return c
}

// Sync is one pass over the server named by key (exported for the
// controllers' tests).
func (c *Controller) Sync(ctx context.Context, key string) (worker.Result, error) {
	namespace, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		// A malformed key can never succeed; drop it.
		klog.FromContext(ctx).Error(err, "Dropping malformed key")
		return worker.Result{}, nil
	}
	s, err := c.Deps.Caches.Server(namespace, name)
	if apierrors.IsNotFound(err) {
		return worker.Result{}, nil
	}
	if err != nil {
		return worker.Result{}, err
	}
	// record stores the pass's outcome; the Warning eventReason of a user
	// error is sent when this controller's cause is new and no other
	// controller reports it at the moment, and is owed while any does.
	record := func(o Outcome, eventReason string) {
		o.Generation = s.Generation
		if _, newCause := c.Deps.Board.RecordCause(key, s.UID, c.Name(), o); newCause && c.Deps.Events != nil {
			board, uid := c.Deps.Board, s.UID
			c.Deps.Events.Warn(s, eventReason, o.Message, func() bool {
				return board.ReportsUserError(uid, o.Reason, o.Message)
			})
		}
	}
	if s.DeletionTimestamp != nil {
		// Garbage collection owns teardown; nothing is written any more.
		record(Outcome{Class: OutcomeOK}, "")
		return worker.Result{}, nil
	}
	if errs := c.Deps.Specs.Errors(s); len(errs) > 0 {
		err := &resolve.UserError{Reason: ogxv1beta1.ReasonInvalidSpec, Event: specErrorsEvent(errs), Err: errs.ToAggregate()}
		record(Outcome{Class: OutcomeUserError, Reason: ogxv1beta1.ReasonInvalidSpec, Message: err.Error()}, err.EventReason())
		return worker.Result{}, err
	}
	res, err := c.reconcile(ctx, c.Deps, s)
	return c.conclude(ctx, key, record, res, err)
}

// conclude records a pass's outcome from its result and error and tells
// the worker loop what follows: a deferred pass joins what it waits for, a
// wait is looked at again after WaitRequeue, errors are retried with their
// backoff.
func (c *Controller) conclude(ctx context.Context, key string, record func(Outcome, string), res worker.Result, err error) (worker.Result, error) {
	var waiting *worker.WaitingError
	var deferred *DeferredError
	var user *resolve.UserError
	switch {
	case errors.As(err, &deferred):
		klog.FromContext(ctx).V(2).Info("Pass deferred", "reason", deferred.Message)
		if deferred.Join != nil {
			// A base config read from a registry wakes this server in
			// this controller when it arrives (Generator).
			deferred.Join(c.Name(), key, func() { c.Enqueue(key) })
		}
		return worker.Result{Waiting: true, Deferred: true}, nil
	case err == nil:
		record(Outcome{Class: OutcomeOK}, "")
		return res, nil
	case errors.As(err, &waiting):
		reason := waiting.Reason
		if reason == "" {
			reason = ogxv1beta1.ReasonProgressing
		}
		record(Outcome{Class: OutcomeWaiting, Reason: reason, Message: waiting.Message}, "")
		return worker.Result{RequeueAfter: WaitRequeue, Waiting: true}, nil
	case errors.As(err, &user):
		record(Outcome{Class: OutcomeUserError, Reason: user.Reason, Message: err.Error()}, user.EventReason())
		return worker.Result{}, err
	}
	record(Outcome{Class: OutcomeTransient, Message: err.Error()}, "")
	return worker.Result{}, err
}

// specErrorsEvent names the Warning for a failed re-validation: an unknown
// distribution alone is UnknownDistribution, anything else (also together
// with it) InvalidSpec.
func specErrorsEvent(errs field.ErrorList) string {
	distribution := field.NewPath("spec", "distribution", "name").String()
	for _, e := range errs {
		if e.Field != distribution || e.Type != field.ErrorTypeInvalid {
			return ogxv1beta1.ReasonInvalidSpec
		}
	}
	return ogxv1beta1.EventUnknownDistribution
}

// NewOptional builds the controller of a child that is applied while want
// holds and deleted (only if this OGXServer controls it) when it does not,
// then runs after. watched picks the informers whose events start its
// passes.
func NewOptional[O metav1.Object, AC any](name string, d *Deps, c *apply.Child[O, AC],
	watched func(*caches.Sources) []*caches.Source,
	childName func(string) string,
	want func(*ogxv1beta1.OGXServer) bool,
	desired func(*ogxv1beta1.OGXServer, *render.Inputs) AC,
	after ...func(context.Context, *ogxv1beta1.OGXServer) error,
) *Controller {
	reconcile := func(ctx context.Context, d *Deps, s *ogxv1beta1.OGXServer) (worker.Result, error) {
		in := render.Inputs{OperatorNamespace: d.Opts.OperatorNamespace}
		if err := WriteChild(ctx, d, c, s, childName(s.Name), want(s), func() AC { return desired(s, &in) }); err != nil {
			return worker.Result{}, err
		}
		for _, f := range after {
			if err := f(ctx, s); err != nil {
				return worker.Result{}, err
			}
		}
		return worker.Result{}, nil
	}
	cc := NewController(name, d, reconcile)
	cc.Watched = watched
	cc.Writes = []string{c.Kind}
	return cc
}

// WriteChild converges c's child name of s to desired while want holds and
// removes it (only if s controls it) when it does not, then journals a
// successful write (events.Sink.Written); desired is only rendered when
// wanted.
func WriteChild[O metav1.Object, AC any](ctx context.Context, d *Deps, c *apply.Child[O, AC], s *ogxv1beta1.OGXServer,
	name string, want bool, desired func() AC,
) error {
	var res events.WriteResult
	var err error
	if want {
		res, err = c.Converge(ctx, s, name, desired())
	} else {
		res, err = c.Remove(ctx, s, name)
	}
	if err != nil {
		return err
	}
	d.Events.Written(s, c.Kind, name, res)
	return nil
}
