// Package deployment holds the controller of each OGXServer's
// ServiceAccount, RoleBinding and Deployment. A new server's pass waits
// until the Service and the ConfigMaps the Deployment mounts are cached,
// and the events of those objects start the pass that goes on: the
// controller coordinates with the service and configmap controllers only
// through the caches it watches.
package deployment

import (
	"context"
	"fmt"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	"k8s.io/klog/v2"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/contenthash"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/apply"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/caches"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/events"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/worker"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
	"github.com/ogx-k8s/ogx-controller/pkg/resolve"
)

// NewController builds the deployment controller on d: it converges the
// ServiceAccount N-sa, the RoleBinding N-rb (render.WantRoleBinding; only
// with --server-any-uid is the kind registered at all) and the Deployment N of every OGXServer, in that order; the
// first failed write ends the pass.
func NewController(d *base.Deps) *base.Controller {
	var rb *roleBindingChild
	if d.Opts.ServerAnyUID {
		rb = base.RegisterKind(d, roleBindingKind)
	}
	c := base.NewController(base.ControllerDeployment, d,
		func(ctx context.Context, d *base.Deps, s *ogxv1beta1.OGXServer) (worker.Result, error) {
			return reconcile(ctx, d, rb, s)
		})
	c.Watched = func(w *caches.Sources) []*caches.Source {
		out := watched(w)
		if rb != nil {
			out = append(out, w.Owned[roleBindingKind.Kind])
		}
		return out
	}
	c.Writes = []string{"ServiceAccount", "Deployment"}
	if rb != nil {
		c.Writes = append(c.Writes, roleBindingKind.Kind)
	}
	c.Narrowed = func(w *caches.Sources) map[*caches.Source]func(old, cur any) bool {
		return map[*caches.Source]func(old, cur any) bool{w.Deployments: caches.DeploymentNonStatusChanged}
	}
	return c
}

// watched: the kinds it writes (of Deployments, only updates beyond the
// status: caches.DeploymentNonStatusChanged; of them all, not the answers
// to its own applies: base.Controller.Writes), the PVC it mounts (adopted
// or not), the ConfigMaps and Secrets its pod template hashes (and
// configMapsReady waits for), and Services, whose creation a new server's
// Deployment follows (serviceFirst).
func watched(w *caches.Sources) []*caches.Source {
	return []*caches.Source{w.Deployments, w.ServiceAccounts, w.Services, w.PVCs, w.AdoptedPVCs, w.ConfigMaps, w.Secrets}
}

func reconcile(ctx context.Context, d *base.Deps, rb *roleBindingChild, s *ogxv1beta1.OGXServer) (worker.Result, error) {
	if err := serviceFirst(d, s); err != nil {
		return worker.Result{}, err
	}
	in, err := d.Resolver.Inputs(ctx, s)
	if err != nil {
		return worker.Result{}, err
	}
	warnServerTLS(ctx, d.Resolver, d.Events, s, in.RuntimeConfig.Hash)
	if err := configMapsReady(d, s, in); err != nil {
		return worker.Result{}, err
	}
	res, err := d.Children.ServiceAccounts.Converge(ctx, s, render.ServiceAccountName(s.Name), render.ServiceAccount(s, &in))
	if err != nil {
		return worker.Result{}, err
	}
	d.Events.Written(s, "ServiceAccount", render.ServiceAccountName(s.Name), res)
	if err := convergeRoleBinding(ctx, d, rb, s, &in); err != nil {
		return worker.Result{}, err
	}
	// No pod of ours may mount a volume legacy pods still use.
	if err := base.StorageAdoptionGate(ctx, d.Resolver, s); err != nil {
		return worker.Result{}, err
	}
	desired, err := render.Deployment(s, &in)
	if err != nil {
		// Render-time spec errors (docs/children.md, Render-time errors).
		return worker.Result{}, &resolve.UserError{Reason: ogxv1beta1.ReasonInvalidSpec, Err: err}
	}
	if err := prepare(ctx, d, s, desired); err != nil {
		return worker.Result{}, err
	}
	onCreate := createReplicas(s, desired)
	res, err = d.Children.Deployments.ConvergeCreating(ctx, s, s.Name, desired, onCreate)
	if err != nil {
		return worker.Result{}, err
	}
	d.Events.Written(s, "Deployment", s.Name, res)
	// A pinned image tag is re-checked when due (base.Pins).
	next := worker.Result{RequeueAfter: d.Resolver.RecheckIn(s)}
	if res == events.Created && onCreate != desired {
		return next, handOverCreated(ctx, d, s, desired)
	}
	return next, nil
}

// createReplicas is what the create of the Deployment sends: desired, with
// autoscaling plus the HPA's minimum as replicas (docs/children.md, Creating
// an autoscaled Deployment).
func createReplicas(s *ogxv1beta1.OGXServer, desired *appsv1ac.DeploymentApplyConfiguration) *appsv1ac.DeploymentApplyConfiguration {
	if s.Spec.Autoscaling() == nil || desired.Spec == nil || desired.Spec.Replicas != nil {
		return desired
	}
	n := s.Spec.HPAMinReplicas()
	spec := *desired.Spec
	spec.Replicas = &n
	out := *desired
	out.Spec = &spec
	if desired.ObjectMetaApplyConfiguration != nil {
		// The create sets a resourceVersion precondition on what it sends.
		meta := *desired.ObjectMetaApplyConfiguration
		out.ObjectMetaApplyConfiguration = &meta
	}
	return &out
}

// handOverCreated completes the create of an autoscaled Deployment: the count
// createReplicas made ours is handed over, then the rendered object without
// replicas is applied to let go of the field.
func handOverCreated(ctx context.Context, d *base.Deps, s *ogxv1beta1.OGXServer, desired *appsv1ac.DeploymentApplyConfiguration) error {
	live, ok := d.Children.Deployments.Current(s.Namespace, s.Name)
	if !ok {
		return fmt.Errorf("Deployment %s/%s vanished right after its create; retrying", s.Namespace, s.Name)
	}
	// No resourceVersion precondition here: kube-controller-manager writes
	// the new Deployment within milliseconds (revision, status), and the
	// count is the one this pass just created it with; the HPA acts only
	// after its first sync period.
	if err := handOverReplicas(ctx, d, live, desired, false); err != nil {
		return err
	}
	_, err := d.Children.Deployments.Converge(ctx, s, s.Name, desired)
	return err
}

// serviceFirst defers the writes of a new server's ServiceAccount and
// Deployment until its Service is cached or just written; an existing
// Deployment never waits (docs/controllers.md, Order of a new server's
// writes).
func serviceFirst(d *base.Deps, s *ogxv1beta1.OGXServer) error {
	if _, exists := d.Children.Deployments.Current(s.Namespace, s.Name); exists {
		return nil
	}
	name := render.ServiceName(s.Name)
	if _, exists := d.Children.Services.Current(s.Namespace, name); exists {
		return nil
	}
	return &base.DeferredError{Message: fmt.Sprintf("waiting for Service %s to be created first", name)}
}

// configMapsReady waits until the ConfigMaps the Deployment mounts are cached
// with the expected content, so no pod points at one that does not exist yet.
func configMapsReady(d *base.Deps, s *ogxv1beta1.OGXServer, in render.Inputs) error {
	sc := d.Caches.For(s.Namespace)
	if in.RuntimeConfig.Mode == ogxv1beta1.ConfigModeGenerated {
		if _, err := sc.ConfigMaps.ConfigMaps(s.Namespace).Get(in.RuntimeConfig.ConfigMapName); err != nil {
			return &worker.WaitingError{Message: fmt.Sprintf("waiting for generated ConfigMap %s", in.RuntimeConfig.ConfigMapName)}
		}
	}
	if in.CABundleHash != "" {
		name := render.CABundleName(s.Name)
		cm, err := sc.ConfigMaps.ConfigMaps(s.Namespace).Get(name)
		if err != nil || contenthash.H16([]byte(cm.Data[render.CABundleKey])) != in.CABundleHash {
			return &worker.WaitingError{Message: fmt.Sprintf("waiting for ConfigMap %s to hold the current CA bundle", name)}
		}
	}
	return nil
}

// prepare sends what must precede the main apply, in this order: the
// takeover from the upstream operator (it can make the replica count ours),
// the strategy switch and the replica hand-over to the HPA, each with the
// resourceVersion last known (the cache, or our own newer write) as
// precondition (docs/children.md, Before the apply).
func prepare(ctx context.Context, d *base.Deps, s *ogxv1beta1.OGXServer, desired *appsv1ac.DeploymentApplyConfiguration) error {
	live, found := d.Children.Deployments.Current(s.Namespace, s.Name)
	if !found {
		return nil // absent (or not yet cached): the apply creates it
	}
	if apply.Guard(s, "Deployment", live.Obj) != nil {
		return nil // converge reports the guard's verdict
	}
	live, err := d.Children.Deployments.TakeOverKnown(ctx, s, live)
	if err != nil {
		return err
	}
	if err := switchStrategy(ctx, d, live.Obj, desired); err != nil {
		return err
	}
	return handOverReplicas(ctx, d, live, desired, true)
}

// switchStrategy handles the one field an apply alone cannot move: going to
// Recreate needs the API-defaulted rollingUpdate block cleared, and leaving
// Recreate needs the strategy patch's own co-ownership undone.
func switchStrategy(ctx context.Context, d *base.Deps, live *appsv1.Deployment, desired *appsv1ac.DeploymentApplyConfiguration) error {
	wantRecreate := desired.Spec != nil && desired.Spec.Strategy != nil && desired.Spec.Strategy.Type != nil &&
		*desired.Spec.Strategy.Type == appsv1.RecreateDeploymentStrategyType
	isRecreate := live.Spec.Strategy.Type == appsv1.RecreateDeploymentStrategyType
	var patch map[string]any
	switch {
	case wantRecreate && !isRecreate:
		patch = map[string]any{"spec": map[string]any{"strategy": map[string]any{"type": "Recreate", "rollingUpdate": nil}}}
	case !wantRecreate && isRecreate && hasManagerEntry(live.ManagedFields, render.StrategyFieldManager):
		patch = map[string]any{"spec": map[string]any{"strategy": map[string]any{"type": "RollingUpdate"}}}
	default:
		return nil
	}
	body, err := base.MergePatch(live.ResourceVersion, patch)
	if err != nil {
		return err
	}
	klog.FromContext(ctx).Info("Switching Deployment strategy", "name", live.Name, "recreate", wantRecreate)
	_, err = d.Kube.AppsV1().Deployments(live.Namespace).Patch(ctx, live.Name, types.MergePatchType, body,
		metav1.PatchOptions{FieldManager: render.StrategyFieldManager})
	if err != nil {
		return apply.ClassifyWriteError("Deployment", live.Name, err)
	}
	return nil
}

// handOverReplicas keeps the replica count when autoscaling starts: while
// ogx-controller owns spec.replicas, dropping it from the apply would reset
// it to 1, so the live value is first applied by another manager that keeps
// owning it for the HPA. With pinned that apply carries live's
// resourceVersion, so a stale count is never forced over a newer one.
func handOverReplicas(ctx context.Context, d *base.Deps, known apply.Known[*appsv1.Deployment], desired *appsv1ac.DeploymentApplyConfiguration, pinned bool) error {
	if desired.Spec != nil && desired.Spec.Replicas != nil {
		return nil
	}
	owns, err := caches.OwnsReplicas(known)
	live := known.Obj
	if err != nil || !owns || live.Spec.Replicas == nil {
		return err
	}
	ac := appsv1ac.Deployment(live.Name, live.Namespace).
		WithSpec(appsv1ac.DeploymentSpec().WithReplicas(*live.Spec.Replicas))
	if pinned {
		ac.WithResourceVersion(live.ResourceVersion)
	} else {
		// Still this object: a Deployment deleted (and perhaps recreated)
		// in between answers 409 and the pass retries.
		ac.WithUID(live.UID)
	}
	klog.FromContext(ctx).Info("Handing Deployment replicas over to the HPA", "name", live.Name, "replicas", *live.Spec.Replicas)
	out, err := d.Kube.AppsV1().Deployments(live.Namespace).Apply(ctx, ac, metav1.ApplyOptions{FieldManager: render.HandoverFieldManager, Force: true})
	if err != nil {
		return apply.ClassifyWriteError("Deployment", live.Name, err)
	}
	d.Children.Deployments.Recent.Remember(out, apply.Digest{})
	return nil
}

// hasManagerEntry reports whether manager has a non-status entry in
// managedFields.
func hasManagerEntry(entries []metav1.ManagedFieldsEntry, manager string) bool {
	return slices.ContainsFunc(entries, func(e metav1.ManagedFieldsEntry) bool { return e.Manager == manager && e.Subresource == "" })
}
