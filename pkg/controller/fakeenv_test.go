package controller

// The harness of the sync tests on fake clientsets (*_sync_test.go): a
// Manager is built on client-go's fake kube clientset (fake.NewClientset,
// whose field-managed object tracker implements server-side apply and
// records managedFields, so Extract<Kind> sees what ogx-controller owns)
// and the generated ogx fake clientset. The
// informers run against the fakes, and each test drives the unexported sync
// functions of one controller directly and audits the requests the fakes
// received.
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
// every cached object with the tracker's copy (waitCaught), never by sleeping.

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/caches"
	ogxfake "github.com/ogx-k8s/ogx-controller/pkg/generated/clientset/versioned/fake"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
	"github.com/ogx-k8s/ogx-controller/pkg/resolve"
)

const (
	sfNamespace = "team-a"
	sfName      = "demo"
	sfUID       = types.UID("0b6a6c1e-6f2e-4c2a-9f59-5f1d8a0c7e11")
	sfOperator  = "ogx-system"
)

var (
	gvrDeployments     = appsv1.SchemeGroupVersion.WithResource("deployments")
	gvrServices        = corev1.SchemeGroupVersion.WithResource("services")
	gvrServiceAccounts = corev1.SchemeGroupVersion.WithResource("serviceaccounts")
	gvrPVCs            = corev1.SchemeGroupVersion.WithResource("persistentvolumeclaims")
	gvrOGXServers      = ogxv1beta1.SchemeGroupVersion.WithResource("ogxservers")
)

// sfServer returns an OGXServer with the given spec mutations applied.
func sfServer(ns, name string, uid types.UID, muts ...func(*ogxv1beta1.OGXServerSpec)) *ogxv1beta1.OGXServer {
	s := &ogxv1beta1.OGXServer{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, UID: uid, Generation: 1},
		Spec:       ogxv1beta1.OGXServerSpec{Distribution: ogxv1beta1.DistributionSpec{Name: ptr.To("starter")}},
	}
	for _, m := range muts {
		m(&s.Spec)
	}
	return s
}

func sfWithStorage(size string) func(*ogxv1beta1.OGXServerSpec) {
	return func(s *ogxv1beta1.OGXServerSpec) {
		if s.Workload == nil {
			s.Workload = &ogxv1beta1.WorkloadSpec{}
		}
		s.Workload.Storage = &ogxv1beta1.PVCStorageSpec{}
		if size != "" {
			q := resource.MustParse(size)
			s.Workload.Storage.Size = &q
		}
	}
}

// sfEnv is a started Manager on fake clientsets.
type sfEnv struct {
	tb   testing.TB
	ctx  context.Context
	kube *kubefake.Clientset
	ogx  *ogxfake.Clientset
	m    *Manager
}

// sfTable is a distribution table independent of the process environment.
func sfTable() resolve.DistributionTable {
	return resolve.NewDistributionTable(func(string) string { return "" })
}

// newSFEnv builds and starts a Manager; kubeObjs and servers exist before the
// informers start (so a label-filtered informer lists only labelled ones).
func newSFEnv(tb testing.TB, opts base.Options, kubeObjs []runtime.Object, servers ...*ogxv1beta1.OGXServer) *sfEnv {
	tb.Helper()
	ogxObjs := make([]runtime.Object, 0, len(servers))
	for _, s := range servers {
		ogxObjs = append(ogxObjs, s)
	}
	kube := kubefake.NewClientset(kubeObjs...)
	kube.PrependReactor("patch", "*", applyPreconditions(kube.Tracker()))
	ogx := ogxfake.NewSimpleClientset(ogxObjs...)
	if opts.OperatorNamespace == "" {
		opts.OperatorNamespace = sfOperator
	}
	if opts.Distributions == nil {
		opts.Distributions = sfTable()
	}
	if opts.OperatorVersion == "" {
		opts.OperatorVersion = "v0.0.0-test"
	}
	if opts.CacheSyncTimeout == 0 {
		opts.CacheSyncTimeout = 30 * time.Second
	}
	m, err := NewManager(kube, ogx, opts)
	if err != nil {
		tb.Fatalf("NewManager: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	tb.Cleanup(func() {
		cancel()
		for _, c := range m.childControllers {
			c.Queue().ShutDown()
		}
		m.status.Queue().ShutDown()
	})
	if err := m.Start(ctx); err != nil {
		tb.Fatalf("Start: %v", err)
	}
	e := &sfEnv{tb: tb, ctx: ctx, kube: kube, ogx: ogx, m: m}
	e.waitCaught()
	kube.ClearActions()
	ogx.ClearActions()
	return e
}

// syncChildren runs one pass of every child controller over key.
func (e *sfEnv) syncChildren(key string) {
	e.tb.Helper()
	for _, c := range e.m.childControllers {
		if _, err := c.Sync(e.ctx, key); err != nil {
			e.tb.Fatalf("%s: %v", c.Name(), err)
		}
	}
}

// serviceDone runs the service controller's pass over the server, which a
// new server's Deployment waits for (DeploymentController.serviceFirst), and
// clears the recorded actions.
func (e *sfEnv) serviceDone() {
	e.tb.Helper()
	if _, err := e.m.service.Sync(e.ctx, sfKey); err != nil {
		e.tb.Fatalf("service: %v", err)
	}
	e.waitCaught()
	e.clearActions()
}

// makeAvailable reports the Deployment name as rolled out with one
// available replica, as kube-controller-manager would, and waits until the
// caches show it.
func (e *sfEnv) makeAvailable(name string) {
	e.tb.Helper()
	dep, err := e.kube.AppsV1().Deployments(sfNamespace).Get(e.ctx, name, metav1.GetOptions{})
	if err != nil {
		e.tb.Fatal(err)
	}
	dep.Status = appsv1.DeploymentStatus{ObservedGeneration: dep.Generation, Replicas: 1, UpdatedReplicas: 1, ReadyReplicas: 1, AvailableReplicas: 1}
	if _, err := e.kube.AppsV1().Deployments(sfNamespace).UpdateStatus(e.ctx, dep, metav1.UpdateOptions{}); err != nil {
		e.tb.Fatal(err)
	}
	e.waitCaught()
}

// sfWrites returns the actions that are not reads (get, list, watch).
func sfWrites(actions []clienttesting.Action) []clienttesting.Action {
	var out []clienttesting.Action
	for _, a := range actions {
		switch a.GetVerb() {
		case "get", "list", "watch":
			continue
		}
		out = append(out, a)
	}
	return out
}

// sfDescribe renders actions for failure messages: verb resource[/sub] ns/name (patch type).
func sfDescribe(actions []clienttesting.Action) string {
	var b strings.Builder
	for _, a := range actions {
		fmt.Fprintf(&b, "\n  %s", sfActionString(a))
	}
	if b.Len() == 0 {
		return " (none)"
	}
	return b.String()
}

func sfActionString(a clienttesting.Action) string {
	res := a.GetResource().Resource
	if a.GetSubresource() != "" {
		res += "/" + a.GetSubresource()
	}
	name := ""
	switch x := a.(type) {
	case clienttesting.PatchActionImpl:
		return fmt.Sprintf("%s %s %s/%s (%s, manager %q)", a.GetVerb(), res, a.GetNamespace(), x.GetName(), x.GetPatchType(), x.PatchOptions.FieldManager)
	case clienttesting.GetActionImpl:
		name = x.GetName()
	case clienttesting.DeleteActionImpl:
		name = x.GetName()
	case clienttesting.CreateActionImpl:
		if m, err := meta.Accessor(x.GetObject()); err == nil {
			name = m.GetName()
		}
	case clienttesting.UpdateActionImpl:
		if m, err := meta.Accessor(x.GetObject()); err == nil {
			name = m.GetName()
		}
	}
	return fmt.Sprintf("%s %s %s/%s", a.GetVerb(), res, a.GetNamespace(), name)
}

// kubeWrites returns (and clears) the write actions the kube fake received.
func (e *sfEnv) kubeWrites() []clienttesting.Action {
	w := sfWrites(e.kube.Actions())
	e.kube.ClearActions()
	return w
}

// ogxWrites returns (and clears) the write actions the ogx fake received.
func (e *sfEnv) ogxWrites() []clienttesting.Action {
	w := sfWrites(e.ogx.Actions())
	e.ogx.ClearActions()
	return w
}

func (e *sfEnv) clearActions() {
	e.kube.ClearActions()
	e.ogx.ClearActions()
}

// sfEventually polls cond until it holds or the deadline passes.
func sfEventually(tb testing.TB, what string, cond func() (bool, string)) {
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

// sfTrackedKind ties a tracker resource to the informer that caches it.
type sfTrackedKind struct {
	gvr      schema.GroupVersionResource
	gvk      schema.GroupVersionKind
	tracker  clienttesting.ObjectTracker
	informer cache.SharedIndexInformer
	// selector is the informer's list filter.
	selector labels.Selector
	// transform is the informer's transform, if any.
	transform cache.TransformFunc
}

func (e *sfEnv) trackedKinds() []sfTrackedKind {
	sc := e.m.Caches.For(sfNamespace)
	children := labels.SelectorFromSet(labels.Set{render.LabelManagedBy: render.ManagedByValue})
	watched := labels.SelectorFromSet(labels.Set{ogxv1beta1.WatchLabel: "true"})
	f, w := sc.ChildFactory, sc.WatchedFactory
	kube := e.kube.Tracker()
	views := e.m.Caches.ChildTransform()
	return []sfTrackedKind{
		{gvrOGXServers, ogxv1beta1.SchemeGroupVersion.WithKind("OGXServer"), e.ogx.Tracker(), sc.ServerInformer, labels.Everything(), e.m.Caches.ServerTransform()},
		{gvrDeployments, appsv1.SchemeGroupVersion.WithKind("Deployment"), kube, f.Apps().V1().Deployments().Informer(), children, views},
		{gvrServices, corev1.SchemeGroupVersion.WithKind("Service"), kube, f.Core().V1().Services().Informer(), children, views},
		{gvrServiceAccounts, corev1.SchemeGroupVersion.WithKind("ServiceAccount"), kube, f.Core().V1().ServiceAccounts().Informer(), children, views},
		{gvrPVCs, corev1.SchemeGroupVersion.WithKind("PersistentVolumeClaim"), kube, f.Core().V1().PersistentVolumeClaims().Informer(), children, views},
		{networkingv1.SchemeGroupVersion.WithResource("networkpolicies"), networkingv1.SchemeGroupVersion.WithKind("NetworkPolicy"), kube,
			f.Networking().V1().NetworkPolicies().Informer(), children, views},
		{networkingv1.SchemeGroupVersion.WithResource("ingresses"), networkingv1.SchemeGroupVersion.WithKind("Ingress"), kube,
			f.Networking().V1().Ingresses().Informer(), children, views},
		{autoscalingv2.SchemeGroupVersion.WithResource("horizontalpodautoscalers"), autoscalingv2.SchemeGroupVersion.WithKind("HorizontalPodAutoscaler"), kube,
			f.Autoscaling().V2().HorizontalPodAutoscalers().Informer(), children, views},
		{policyv1.SchemeGroupVersion.WithResource("poddisruptionbudgets"), policyv1.SchemeGroupVersion.WithKind("PodDisruptionBudget"), kube,
			f.Policy().V1().PodDisruptionBudgets().Informer(), children, views},
		{rbacv1.SchemeGroupVersion.WithResource("rolebindings"), rbacv1.SchemeGroupVersion.WithKind("RoleBinding"), kube,
			f.Rbac().V1().RoleBindings().Informer(), children, views},
		{corev1.SchemeGroupVersion.WithResource("configmaps"), corev1.SchemeGroupVersion.WithKind("ConfigMap"), kube,
			w.Core().V1().ConfigMaps().Informer(), watched, e.m.Caches.WatchedTransform()},
	}
}

// waitCaught waits until the informers of the written kinds hold exactly
// what the fakes store (for objects matching the informer's filter): the
// controllers then see the result of every earlier write.
func (e *sfEnv) waitCaught() {
	e.tb.Helper()
	kinds := e.trackedKinds()
	sfEventually(e.tb, "informer caches to catch up with the fakes", func() (bool, string) {
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
				if !equality.Semantic.DeepEqual(got, want) {
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

// outcome returns what controller recorded for the server.
func (e *sfEnv) outcome(s *ogxv1beta1.OGXServer, controller string) (base.Outcome, bool) {
	o, ok := e.m.Board.Get(s.UID)[controller]
	return o, ok
}

// updateServer stores a new spec (or metadata) and waits for the cache.
func (e *sfEnv) updateServer(s *ogxv1beta1.OGXServer) {
	e.tb.Helper()
	if err := e.ogx.Tracker().Update(gvrOGXServers, s, s.Namespace); err != nil {
		e.tb.Fatalf("updating OGXServer: %v", err)
	}
	e.waitCaught()
}

// sfKey is the key of the default test server.
var sfKey = caches.Key(sfNamespace, sfName)

// sfExpectApply checks one action is an SSA of resource/name by ogx-controller with force.
func sfExpectApply(t *testing.T, a clienttesting.Action, gvr schema.GroupVersionResource, name string) {
	t.Helper()
	p, ok := a.(clienttesting.PatchActionImpl)
	if !ok || a.GetVerb() != "patch" || a.GetResource() != gvr || p.GetName() != name || a.GetNamespace() != sfNamespace ||
		p.GetPatchType() != types.ApplyPatchType || a.GetSubresource() != "" {
		t.Fatalf("want server-side apply of %s %s/%s, got %s", gvr.Resource, sfNamespace, name, sfActionString(a))
	}
	if p.PatchOptions.FieldManager != render.FieldManager || p.PatchOptions.Force == nil || !*p.PatchOptions.Force {
		t.Errorf("apply of %s %s: field manager %q force %v, want %q force true", gvr.Resource, name,
			p.PatchOptions.FieldManager, p.PatchOptions.Force, render.FieldManager)
	}
}

// renderInputs resolves the render inputs the way the deployment controller does.
func (e *sfEnv) renderInputs(s *ogxv1beta1.OGXServer) render.Inputs {
	e.tb.Helper()
	in, err := e.m.Resolver.Inputs(e.ctx, s)
	if err != nil {
		e.tb.Fatalf("resolving inputs: %v", err)
	}
	return in
}

// syncStatus runs one status pass over the server sfKey and returns the
// server as stored afterwards.
func (e *sfEnv) syncStatus() *ogxv1beta1.OGXServer {
	e.tb.Helper()
	if _, err := e.m.status.sync(e.ctx, sfKey); err != nil {
		e.tb.Fatal(err)
	}
	got, err := e.ogx.OgxV1beta1().OGXServers(sfNamespace).Get(e.ctx, sfName, metav1.GetOptions{})
	if err != nil {
		e.tb.Fatal(err)
	}
	return got
}
