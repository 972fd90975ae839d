package controllertest

import (
	"context"
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/apply"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/caches"
	ogxfake "github.com/ogx-k8s/ogx-controller/pkg/generated/clientset/versioned/fake"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

// The harness of the tests on fake clientsets: the controllers' shared
// dependencies (base.Deps) are built on client-go's fake kube clientset
// (fake.NewClientset, whose field-managed object tracker implements
// server-side apply and records managedFields, so Extract<Kind> sees what
// ogx-controller owns) and the generated ogx fake clientset. The informers
// run against the fakes; a test drives one controller's Sync directly and
// audits the requests the fakes received.
//
// The generated ogx fake's NewClientset cannot apply OGXServers: its
// field-managed tracker has no structured-merge schema for the CRD type
// (kubernetes/kubernetes#126850), so ApplyStatus fails with "no type found
// matching". The ogx side therefore uses NewSimpleClientset, whose tracker
// implements apply as a strategic merge patch of the sent object.
//
// Two more properties of the fakes shape these tests: their watches do not
// apply label selectors (only List does), so objects that must stay out of
// the label-filtered caches (foreign Services, unlabelled PVCs) are created
// before the informers start; and stored objects carry no resourceVersion.
// "The informers have seen the result" is therefore checked by comparing
// every cached object with the tracker's copy (WaitCaught), never by
// sleeping.

// Env is the controllers' shared dependencies on fake clientsets.
type Env struct {
	TB   testing.TB
	Ctx  context.Context
	Kube *kubefake.Clientset
	OGX  *ogxfake.Clientset
	Deps *base.Deps
}

// Key is the key of the default test server.
const Key = Namespace + "/" + Name

// NewEnv builds the Deps on fakes that hold kubeObjs and servers before any
// informer starts (so a label-filtered informer lists only labelled ones).
// Nothing runs until Start (or a manager built on Deps starts).
func NewEnv(tb testing.TB, opts base.Options, kubeObjs []runtime.Object, servers ...*ogxv1beta1.OGXServer) *Env {
	tb.Helper()
	ogxObjs := make([]runtime.Object, 0, len(servers))
	for _, s := range servers {
		ogxObjs = append(ogxObjs, s)
	}
	kube := kubefake.NewClientset(kubeObjs...)
	kube.PrependReactor("patch", "*", ApplyPreconditions(kube.Tracker()))
	kube.PrependReactor("patch", "*", DryRunPatches(kube.Tracker()))
	ogx := ogxfake.NewSimpleClientset(ogxObjs...)
	if opts.OperatorNamespace == "" {
		opts.OperatorNamespace = Operator
	}
	if opts.Distributions == nil {
		opts.Distributions = Table()
	}
	if opts.OperatorVersion == "" {
		opts.OperatorVersion = "v0.0.0-test"
	}
	if opts.CacheSyncTimeout == 0 {
		opts.CacheSyncTimeout = 30 * time.Second
	}
	d := base.NewDeps(kube, ogx, opts)
	ctx, cancel := context.WithCancel(context.Background())
	tb.Cleanup(cancel)
	return &Env{TB: tb, Ctx: ctx, Kube: kube, OGX: ogx, Deps: &d}
}

// Start starts the informers with the indexers the controllers read by,
// waits until they hold what the fakes store and clears the recorded
// actions; for tests of one controller, without a manager.
func (e *Env) Start() {
	e.TB.Helper()
	c := e.Deps.Caches
	c.Each(func(sc *caches.Scope) {
		if err := sc.ServerInformer.AddIndexers(caches.ReferenceIndexers()); err != nil {
			e.TB.Fatal(err)
		}
	})
	c.Start(e.Ctx)
	if err := c.WaitForSync(e.Ctx, e.Deps.Opts.CacheSyncTimeout); err != nil {
		e.TB.Fatal(err)
	}
	e.Deps.Resolver.APIs.Discover(e.Kube.Discovery())
	e.Settle()
}

// Settle waits for the caches to catch up and clears the recorded actions.
func (e *Env) Settle() {
	e.TB.Helper()
	e.WaitCaught()
	e.ClearActions()
}

// KubeWrites returns (and clears) the write actions the kube fake received.
func (e *Env) KubeWrites() []clienttesting.Action {
	w := Writes(e.Kube.Actions())
	e.Kube.ClearActions()
	return w
}

// OGXWrites returns (and clears) the write actions the ogx fake received.
func (e *Env) OGXWrites() []clienttesting.Action {
	w := Writes(e.OGX.Actions())
	e.OGX.ClearActions()
	return w
}

// ClearActions forgets the actions both fakes recorded.
func (e *Env) ClearActions() {
	e.Kube.ClearActions()
	e.OGX.ClearActions()
}

// Eventually polls cond until it holds or the deadline passes.
func Eventually(tb testing.TB, what string, cond func() (bool, string)) {
	tb.Helper()
	last := ""
	err := wait.PollUntilContextTimeout(context.Background(), 2*time.Millisecond, 20*time.Second, true,
		func(context.Context) (bool, error) {
			ok, why := cond()
			last = why
			return ok, nil
		})
	if err != nil {
		tb.Fatalf("timed out waiting for %s: %s", what, last)
	}
}

// Outcome returns what controller recorded for the server.
func (e *Env) Outcome(s *ogxv1beta1.OGXServer, controller string) (base.Outcome, bool) {
	o, ok := e.Deps.Board.Get(s.UID)[controller]
	return o, ok
}

// UpdateServer stores a new spec (or metadata) and waits for the cache.
func (e *Env) UpdateServer(s *ogxv1beta1.OGXServer) {
	e.TB.Helper()
	gvr := ogxv1beta1.SchemeGroupVersion.WithResource("ogxservers")
	if err := e.OGX.Tracker().Update(gvr, s, s.Namespace); err != nil {
		e.TB.Fatalf("updating OGXServer: %v", err)
	}
	e.WaitCaught()
}

// RenderInputs resolves the render inputs the way the deployment
// controller does.
func (e *Env) RenderInputs(s *ogxv1beta1.OGXServer) render.Inputs {
	e.TB.Helper()
	in, err := e.Deps.Resolver.Inputs(e.Ctx, s)
	if err != nil {
		e.TB.Fatalf("resolving inputs: %v", err)
	}
	return in
}

// trackedKind ties a tracker resource to the informer that caches it.
type trackedKind struct {
	gvr      schema.GroupVersionResource
	gvk      schema.GroupVersionKind
	tracker  clienttesting.ObjectTracker
	informer cache.SharedIndexInformer
	// selector is the informer's list filter.
	selector labels.Selector
	// transform is the informer's transform, if any.
	transform cache.TransformFunc
}

func (e *Env) trackedKinds() []trackedKind {
	sc := e.Deps.Caches.For(Namespace)
	children := labels.SelectorFromSet(labels.Set{render.LabelManagedBy: render.ManagedByValue})
	watched := labels.SelectorFromSet(labels.Set{ogxv1beta1.WatchLabel: "true"})
	f, w := sc.ChildFactory, sc.WatchedFactory
	kube := e.Kube.Tracker()
	views := e.Deps.Caches.ChildTransform()
	kinds := []trackedKind{
		{ogxv1beta1.SchemeGroupVersion.WithResource("ogxservers"), ogxv1beta1.SchemeGroupVersion.WithKind("OGXServer"), e.OGX.Tracker(), sc.ServerInformer, labels.Everything(), e.Deps.Caches.ServerTransform()},
		{appsv1.SchemeGroupVersion.WithResource("deployments"), appsv1.SchemeGroupVersion.WithKind("Deployment"), kube, f.Apps().V1().Deployments().Informer(), children, views},
		{corev1.SchemeGroupVersion.WithResource("services"), corev1.SchemeGroupVersion.WithKind("Service"), kube, f.Core().V1().Services().Informer(), children, views},
		{corev1.SchemeGroupVersion.WithResource("serviceaccounts"), corev1.SchemeGroupVersion.WithKind("ServiceAccount"), kube, f.Core().V1().ServiceAccounts().Informer(), children, views},
		{corev1.SchemeGroupVersion.WithResource("persistentvolumeclaims"), corev1.SchemeGroupVersion.WithKind("PersistentVolumeClaim"), kube, f.Core().V1().PersistentVolumeClaims().Informer(), children, views},
		{networkingv1.SchemeGroupVersion.WithResource("ingresses"), networkingv1.SchemeGroupVersion.WithKind("Ingress"), kube,
			f.Networking().V1().Ingresses().Informer(), children, views},
		{corev1.SchemeGroupVersion.WithResource("configmaps"), corev1.SchemeGroupVersion.WithKind("ConfigMap"), kube,
			w.Core().V1().ConfigMaps().Informer(), watched, e.Deps.Caches.WatchedTransform()},
	}
	// The kinds controller packages registered for themselves.
	for _, k := range e.Deps.Owned {
		gvk := schema.FromAPIVersionAndKind(k.APIVersion, k.Kind)
		gvr, _ := meta.UnsafeGuessKindToResource(gvk)
		kinds = append(kinds, trackedKind{gvr, gvk, kube, sc.ChildInformer(k.Kind), children, views})
	}
	return kinds
}

// WaitCaught waits until the informers of the written kinds hold exactly
// what the fakes store (for objects matching the informer's filter): the
// controllers then see the result of every earlier write.
func (e *Env) WaitCaught() {
	e.TB.Helper()
	kinds := e.trackedKinds()
	Eventually(e.TB, "informer caches to catch up with the fakes", func() (bool, string) {
		for _, k := range kinds {
			list, err := k.tracker.List(k.gvr, k.gvk, metav1.NamespaceAll)
			if err != nil {
				return false, err.Error()
			}
			items, err := meta.ExtractList(list)
			if err != nil {
				return false, err.Error()
			}
			want := 0
			for _, it := range items {
				m, _ := meta.Accessor(it)
				if !k.selector.Matches(labels.Set(m.GetLabels())) {
					continue
				}
				want++
				key := m.GetNamespace() + "/" + m.GetName()
				got, ok, err := k.informer.GetIndexer().GetByKey(key)
				if err != nil || !ok {
					return false, fmt.Sprintf("%s %s not cached yet", k.gvr.Resource, key)
				}
				var want any = it
				if k.transform != nil {
					if want, err = k.transform(it.DeepCopyObject()); err != nil {
						return false, err.Error()
					}
				}
				if !sameEntry(got, want) {
					return false, fmt.Sprintf("%s %s cached copy is stale", k.gvr.Resource, key)
				}
			}
			if n := len(k.informer.GetIndexer().ListKeys()); n != want {
				return false, fmt.Sprintf("%s: %d cached, %d stored", k.gvr.Resource, n, want)
			}
		}
		return true, ""
	})
}

// Started is NewEnv followed by Start: the Deps of one controller's tests.
func Started(tb testing.TB, opts base.Options, kubeObjs []runtime.Object, servers ...*ogxv1beta1.OGXServer) *Env {
	tb.Helper()
	e := NewEnv(tb, opts, kubeObjs, servers...)
	e.Start()
	return e
}

// sameEntry compares two cache entries; views by what they hand readers.
func sameEntry(a, b any) bool {
	ca, okA := a.(*apply.CachedChild)
	cb, okB := b.(*apply.CachedChild)
	if okA && okB {
		return ca.OwnedDigest == cb.OwnedDigest && ca.OwnsReplicas == cb.OwnsReplicas &&
			equality.Semantic.DeepEqual(ca.Typed(), cb.Typed())
	}
	return equality.Semantic.DeepEqual(a, b)
}
