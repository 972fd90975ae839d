package controller

// Sync tests on fake clientsets: a Manager is built on client-go's fake
// kube clientset (fake.NewClientset, whose field-managed object tracker
// implements server-side apply and records managedFields, so Extract<Kind>
// sees what ogx-controller owns) and the generated ogx fake clientset. The
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
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
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
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/render"
	ogxfake "github.com/ogx-k8s/ogx-controller/pkg/generated/clientset/versioned/fake"
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
func sfTable() DistributionTable {
	return NewDistributionTable(func(string) string { return "" })
}

// newSFEnv builds and starts a Manager; kubeObjs and servers exist before the
// informers start (so a label-filtered informer lists only labelled ones).
func newSFEnv(tb testing.TB, opts Options, kubeObjs []runtime.Object, servers ...*ogxv1beta1.OGXServer) *sfEnv {
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
			c.queue.ShutDown()
		}
		m.status.queue.ShutDown()
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
		if _, err := c.syncKey(e.ctx, key); err != nil {
			e.tb.Fatalf("%s: %v", c.name, err)
		}
	}
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
	sc := e.m.caches.all
	children := labels.SelectorFromSet(labels.Set{render.LabelManagedBy: render.ManagedByValue})
	watched := labels.SelectorFromSet(labels.Set{ogxv1beta1.WatchLabel: "true"})
	f, w := sc.childFactory, sc.watchedFactory
	kube := e.kube.Tracker()
	views := childView{fields: e.m.caches.fields}.transform
	return []sfTrackedKind{
		{gvrOGXServers, ogxv1beta1.SchemeGroupVersion.WithKind("OGXServer"), e.ogx.Tracker(), sc.serverInformer, labels.Everything(), serverView(e.m.caches.fields)},
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
			w.Core().V1().ConfigMaps().Informer(), watched, stripUserManagedFields},
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
func (e *sfEnv) outcome(s *ogxv1beta1.OGXServer, controller string) (Outcome, bool) {
	o, ok := e.m.board.Get(s.UID)[controller]
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
var sfKey = Key(sfNamespace, sfName)

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
	in, err := e.m.resolver.inputs(e.ctx, s)
	if err != nil {
		e.tb.Fatalf("resolving inputs: %v", err)
	}
	return in
}

func TestSyncFakeDeploymentAppliesThenSkips(t *testing.T) {
	for _, tc := range []struct {
		name string
		muts []func(*ogxv1beta1.OGXServerSpec)
	}{
		{name: "defaults"},
		{name: "storage and replicas", muts: []func(*ogxv1beta1.OGXServerSpec){sfWithStorage("20Gi"), func(s *ogxv1beta1.OGXServerSpec) {
			s.Workload.Replicas = ptr.To[int32](3)
		}}},
		{name: "custom image and port", muts: []func(*ogxv1beta1.OGXServerSpec){func(s *ogxv1beta1.OGXServerSpec) {
			s.Distribution = ogxv1beta1.DistributionSpec{Image: ptr.To("quay.io/example/ogx:1.2.3")}
			s.Network = &ogxv1beta1.NetworkSpec{Port: 9000}
		}}},
		{name: "autoscaling", muts: []func(*ogxv1beta1.OGXServerSpec){func(s *ogxv1beta1.OGXServerSpec) {
			s.Workload = &ogxv1beta1.WorkloadSpec{Autoscaling: &ogxv1beta1.AutoscalingSpec{MaxReplicas: 4}}
		}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := sfServer(sfNamespace, sfName, sfUID, tc.muts...)
			e := newSFEnv(t, Options{}, nil, s)
			ctx := e.ctx

			if _, err := e.m.deployment.syncKey(ctx, sfKey); err != nil {
				t.Fatalf("first sync: %v", err)
			}
			w := e.kubeWrites()
			if len(w) != 2 {
				t.Fatalf("first sync: want 2 writes (ServiceAccount, Deployment), got%s", sfDescribe(w))
			}
			sfExpectApply(t, w[0], gvrServiceAccounts, sfName+"-sa")
			sfExpectApply(t, w[1], gvrDeployments, sfName)
			if o, _ := e.outcome(s, "deployment"); o != (Outcome{Generation: 1, Class: OutcomeOK}) {
				t.Errorf("outcome after first sync = %+v, want ok for generation 1", o)
			}

			// What was applied is what render produces, and ogx-controller owns it.
			in := e.renderInputs(s)
			wantDep, err := render.Deployment(s, &in)
			if err != nil {
				t.Fatal(err)
			}
			dep, err := e.kube.AppsV1().Deployments(sfNamespace).Get(ctx, sfName, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			gotDep, err := appsv1ac.ExtractDeployment(dep, render.FieldManager)
			if err != nil {
				t.Fatal(err)
			}
			if !equality.Semantic.DeepEqual(gotDep, wantDep) {
				t.Errorf("stored Deployment differs from render (-want +got):\n%s", cmp.Diff(wantDep, gotDep))
			}
			sa, err := e.kube.CoreV1().ServiceAccounts(sfNamespace).Get(ctx, sfName+"-sa", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if ref := metav1.GetControllerOf(sa); ref == nil || ref.UID != sfUID || ref.Kind != "OGXServer" {
				t.Errorf("ServiceAccount controller ref = %+v, want this OGXServer", ref)
			}

			e.waitCaught()
			e.clearActions()
			for i := range 2 {
				if _, err := e.m.deployment.syncKey(ctx, sfKey); err != nil {
					t.Fatalf("steady sync %d: %v", i, err)
				}
				if w := e.kubeWrites(); len(w) != 0 {
					t.Fatalf("steady sync %d sent writes:%s", i, sfDescribe(w))
				}
			}
		})
	}
}

func TestSyncFakeDeploymentDriftIsReapplied(t *testing.T) {
	s := sfServer(sfNamespace, sfName, sfUID)
	e := newSFEnv(t, Options{}, nil, s)
	if _, err := e.m.deployment.syncKey(e.ctx, sfKey); err != nil {
		t.Fatal(err)
	}
	e.waitCaught()
	e.clearActions()

	// A hand edit of an owned field moves ownership; the next pass re-applies.
	dep, err := e.kube.AppsV1().Deployments(sfNamespace).Get(e.ctx, sfName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dep.Spec.Replicas = ptr.To[int32](5)
	if _, err := e.kube.AppsV1().Deployments(sfNamespace).Update(e.ctx, dep, metav1.UpdateOptions{FieldManager: "kubectl-edit"}); err != nil {
		t.Fatal(err)
	}
	e.waitCaught()
	e.clearActions()
	if _, err := e.m.deployment.syncKey(e.ctx, sfKey); err != nil {
		t.Fatal(err)
	}
	w := e.kubeWrites()
	if len(w) != 1 {
		t.Fatalf("after drift: want one Deployment apply, got%s", sfDescribe(w))
	}
	sfExpectApply(t, w[0], gvrDeployments, sfName)
	dep, err = e.kube.AppsV1().Deployments(sfNamespace).Get(e.ctx, sfName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := ptr.Deref(dep.Spec.Replicas, -1); got != 1 {
		t.Errorf("replicas after re-apply = %d, want 1", got)
	}
}

func TestSyncFakeServiceAppliesThenSkips(t *testing.T) {
	for _, tc := range []struct {
		name  string
		muts  []func(*ogxv1beta1.OGXServerSpec)
		ports []int32
	}{
		{name: "defaults with metrics port", ports: []int32{8321, 9464}},
		{name: "monitoring off", ports: []int32{8321}, muts: []func(*ogxv1beta1.OGXServerSpec){func(s *ogxv1beta1.OGXServerSpec) {
			s.Monitoring = &ogxv1beta1.MonitoringSpec{Enabled: ptr.To(false)}
		}}},
		{name: "custom port", ports: []int32{9000, 9464}, muts: []func(*ogxv1beta1.OGXServerSpec){func(s *ogxv1beta1.OGXServerSpec) {
			s.Network = &ogxv1beta1.NetworkSpec{Port: 9000}
		}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := sfServer(sfNamespace, sfName, sfUID, tc.muts...)
			e := newSFEnv(t, Options{}, nil, s)
			if _, err := e.m.service.syncKey(e.ctx, sfKey); err != nil {
				t.Fatalf("first sync: %v", err)
			}
			w := e.kubeWrites()
			if len(w) != 1 {
				t.Fatalf("first sync: want one Service apply, got%s", sfDescribe(w))
			}
			sfExpectApply(t, w[0], gvrServices, sfName+"-service")
			svc, err := e.kube.CoreV1().Services(sfNamespace).Get(e.ctx, sfName+"-service", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var ports []int32
			for _, p := range svc.Spec.Ports {
				ports = append(ports, p.Port)
			}
			if diff := cmp.Diff(tc.ports, ports); diff != "" {
				t.Errorf("Service ports (-want +got):\n%s", diff)
			}
			owned, err := corev1ac.ExtractService(svc, render.FieldManager)
			if err != nil {
				t.Fatal(err)
			}
			if want := render.Service(s, &render.Inputs{}); !equality.Semantic.DeepEqual(owned, want) {
				t.Errorf("owned Service fields differ from render:\n%s", cmp.Diff(want, owned))
			}
			if o, _ := e.outcome(s, "service"); o != (Outcome{Generation: 1, Class: OutcomeOK}) {
				t.Errorf("outcome = %+v, want ok", o)
			}

			e.waitCaught()
			e.clearActions()
			if _, err := e.m.service.syncKey(e.ctx, sfKey); err != nil {
				t.Fatalf("steady sync: %v", err)
			}
			if w := e.kubeWrites(); len(w) != 0 {
				t.Fatalf("steady sync sent writes:%s", sfDescribe(w))
			}

			// A spec change reaches the Service with one apply.
			s2 := s.DeepCopy()
			s2.Generation = 2
			s2.Spec.Network = &ogxv1beta1.NetworkSpec{Port: 7777}
			e.updateServer(s2)
			e.clearActions()
			if _, err := e.m.service.syncKey(e.ctx, sfKey); err != nil {
				t.Fatal(err)
			}
			w = e.kubeWrites()
			if len(w) != 1 {
				t.Fatalf("after spec change: want one apply, got%s", sfDescribe(w))
			}
			sfExpectApply(t, w[0], gvrServices, sfName+"-service")
			if o, _ := e.outcome(s, "service"); o.Generation != 2 || o.Class != OutcomeOK {
				t.Errorf("outcome after spec change = %+v, want ok for generation 2", o)
			}
		})
	}
}

func TestSyncFakePVCCreatesThenSkips(t *testing.T) {
	s := sfServer(sfNamespace, sfName, sfUID, sfWithStorage("20Gi"))
	e := newSFEnv(t, Options{}, nil, s)
	if _, err := e.m.pvc.syncKey(e.ctx, sfKey); err != nil {
		t.Fatalf("first sync: %v", err)
	}
	w := e.kubeWrites()
	if len(w) != 1 {
		t.Fatalf("first sync: want one create, got%s", sfDescribe(w))
	}
	c, ok := w[0].(clienttesting.CreateActionImpl)
	if !ok || c.GetResource() != gvrPVCs || c.GetNamespace() != sfNamespace {
		t.Fatalf("want create of a PVC, got %s", sfActionString(w[0]))
	}
	if c.CreateOptions.FieldManager != render.FieldManager {
		t.Errorf("create field manager = %q, want %q", c.CreateOptions.FieldManager, render.FieldManager)
	}
	pvc := c.GetObject().(*corev1.PersistentVolumeClaim)
	want := &corev1.PersistentVolumeClaim{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolumeClaim"},
		ObjectMeta: metav1.ObjectMeta{Name: sfName + "-pvc", Namespace: sfNamespace, Labels: map[string]string{
			render.LabelManagedBy: render.ManagedByValue, render.LabelPartOf: render.PartOfValue,
			ogxv1beta1.WatchLabel: "true", render.LabelInstance: sfName,
		}},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceStorage: resource.MustParse("20Gi"),
			}},
		},
	}
	if !equality.Semantic.DeepEqual(pvc, want) {
		t.Errorf("created PVC (-want +got):\n%s", cmp.Diff(want, pvc))
	}
	if o, _ := e.outcome(s, "pvc"); o != (Outcome{Generation: 1, Class: OutcomeOK}) {
		t.Errorf("outcome = %+v, want ok", o)
	}

	e.waitCaught()
	e.clearActions()
	if _, err := e.m.pvc.syncKey(e.ctx, sfKey); err != nil {
		t.Fatalf("steady sync: %v", err)
	}
	if w := e.kubeWrites(); len(w) != 0 {
		t.Fatalf("steady sync sent writes:%s", sfDescribe(w))
	}

	// Without storage the pvc controller does nothing at all.
	s2 := sfServer(sfNamespace, "plain", "uid-plain")
	e2 := newSFEnv(t, Options{}, nil, s2)
	if _, err := e2.m.pvc.syncKey(e2.ctx, Key(sfNamespace, "plain")); err != nil {
		t.Fatal(err)
	}
	if w := e2.kubeWrites(); len(w) != 0 {
		t.Errorf("pvc sync without storage sent writes:%s", sfDescribe(w))
	}
	if o, _ := e2.outcome(s2, "pvc"); o != (Outcome{Generation: 1, Class: OutcomeOK}) {
		t.Errorf("outcome without storage = %+v, want ok", o)
	}
}

// TestSyncFakePVCVerbAudit (no code path deletes or patches a PVC's spec):
// across creation, resize, storage removal, deletion and a foreign claim, no
// request other than create is ever sent for a PVC, by any controller.
func TestSyncFakePVCVerbAudit(t *testing.T) {
	foreign := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: "other-pvc", Namespace: sfNamespace},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany},
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceStorage: resource.MustParse("1Gi"),
			}},
		},
	}
	// A claim the upstream operator adopted for "third": labelled as adopted
	// but without managed-by, so the pvc controller adds that label (a
	// metadata-only patch, the one PVC patch allowed).
	adopted := foreign.DeepCopy()
	adopted.Name = "legacy-pvc"
	adopted.Labels = map[string]string{render.LabelAdoptedFrom: "legacy", render.LabelInstance: "third"}
	s := sfServer(sfNamespace, sfName, sfUID, sfWithStorage("10Gi"))
	other := sfServer(sfNamespace, "other", "uid-other", sfWithStorage("5Gi"))
	third := sfServer(sfNamespace, "third", "uid-third", sfWithStorage("5Gi"))
	e := newSFEnv(t, Options{}, []runtime.Object{foreign.DeepCopy(), adopted.DeepCopy()}, s, other, third)

	var all []clienttesting.Action
	pass := func(step string, keys ...string) {
		t.Helper()
		for _, key := range keys {
			for _, c := range e.m.childControllers {
				_, _ = c.syncKey(e.ctx, key)
			}
			_, _ = e.m.status.sync(e.ctx, key)
		}
		all = append(all, e.kube.Actions()...)
		e.kube.ClearActions()
		e.waitCaught()
		// A second pass after the caches caught up.
		for _, key := range keys {
			for _, c := range e.m.childControllers {
				_, _ = c.syncKey(e.ctx, key)
			}
		}
		all = append(all, e.kube.Actions()...)
		e.kube.ClearActions()
		e.waitCaught()
	}
	otherKey := Key(sfNamespace, "other")
	pass("create", sfKey, otherKey, Key(sfNamespace, "third"))
	if got, err := e.kube.CoreV1().PersistentVolumeClaims(sfNamespace).Get(e.ctx, "legacy-pvc", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	} else {
		if !equality.Semantic.DeepEqual(got.Spec, adopted.Spec) {
			t.Errorf("adopted PVC spec changed:\n%s", cmp.Diff(adopted.Spec, got.Spec))
		}
		if got.Labels[render.LabelManagedBy] != render.ManagedByValue {
			t.Errorf("adopted PVC labels = %v, want managed-by added", got.Labels)
		}
	}

	// The foreign claim named other-pvc is reported, not touched.
	o, _ := e.outcome(other, "pvc")
	wantMsg := "PersistentVolumeClaim other-pvc exists and is not managed by this OGXServer"
	if o.Class != OutcomeUserError || o.Reason != ReasonChildConflict || o.Message != wantMsg {
		t.Errorf("foreign PVC outcome = %+v, want user error %s %q", o, ReasonChildConflict, wantMsg)
	}
	got, err := e.kube.CoreV1().PersistentVolumeClaims(sfNamespace).Get(e.ctx, "other-pvc", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !equality.Semantic.DeepEqual(got.Spec, foreign.Spec) || len(got.Labels) != 0 {
		t.Errorf("foreign PVC was modified: %+v", got)
	}

	// Resize request: never applied.
	s2 := s.DeepCopy()
	s2.Generation = 2
	sfWithStorage("50Gi")(&s2.Spec)
	e.updateServer(s2)
	pass("resize", sfKey)
	pvc, err := e.kube.CoreV1().PersistentVolumeClaims(sfNamespace).Get(e.ctx, sfName+"-pvc", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if q := pvc.Spec.Resources.Requests[corev1.ResourceStorage]; q.Cmp(resource.MustParse("10Gi")) != 0 {
		t.Errorf("PVC request after resize = %s, want 10Gi (never resized)", q.String())
	}

	// Storage removed: the claim stays.
	s3 := s2.DeepCopy()
	s3.Generation = 3
	s3.Spec.Workload.Storage = nil
	e.updateServer(s3)
	pass("storage removed", sfKey)

	// Being deleted, then gone.
	s4 := s3.DeepCopy()
	s4.DeletionTimestamp = ptr.To(metav1.Now())
	s4.Finalizers = []string{"example.com/hold"}
	e.updateServer(s4)
	pass("terminating", sfKey)
	if err := e.ogx.Tracker().Delete(gvrOGXServers, sfNamespace, sfName); err != nil {
		t.Fatal(err)
	}
	e.waitCaught()
	pass("deleted", sfKey)

	creates, patches := 0, 0
	for _, a := range all {
		if a.GetResource() != gvrPVCs {
			continue
		}
		switch a.GetVerb() {
		case "get", "list", "watch":
		case "create":
			creates++
		case "patch":
			patches++
			// Only metadata may be patched (label normalisation), never spec.
			p := a.(clienttesting.PatchActionImpl)
			var body map[string]any
			if err := json.Unmarshal(p.GetPatch(), &body); err != nil || p.GetPatchType() != types.MergePatchType {
				t.Errorf("PVC patch %s is not a JSON merge patch: %s", sfActionString(a), p.GetPatch())
				continue
			}
			for k := range body {
				if k != "metadata" {
					t.Errorf("PVC patch touches %q: %s %s", k, sfActionString(a), p.GetPatch())
				}
			}
		default:
			t.Errorf("forbidden PVC request: %s", sfActionString(a))
		}
		if a.GetSubresource() != "" {
			t.Errorf("PVC subresource request: %s", sfActionString(a))
		}
	}
	// demo-pvc once, other-pvc once (answered AlreadyExists), and other-pvc
	// again on the second pass.
	if creates != 3 {
		t.Errorf("PVC creates = %d, want 3", creates)
	}
	if patches == 0 {
		t.Errorf("the adopted PVC's label normalisation sent no patch; the audit did not see the patch path")
	}
	if _, err := e.kube.CoreV1().PersistentVolumeClaims(sfNamespace).Get(e.ctx, sfName+"-pvc", metav1.GetOptions{}); err != nil {
		t.Errorf("demo-pvc after deletion of its OGXServer: %v (must be retained)", err)
	}
}

func TestSyncFakeStatusWritesOnceThenNothing(t *testing.T) {
	s := sfServer(sfNamespace, sfName, sfUID, sfWithStorage(""))
	e := newSFEnv(t, Options{OperatorVersion: "v1.2.3"}, nil, s)
	clock := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	e.m.status.now = func() time.Time { return clock }

	// Before the child controllers reported, status waits and writes nothing.
	res, err := e.m.status.sync(e.ctx, sfKey)
	if err != nil {
		t.Fatal(err)
	}
	if res.RequeueAfter != time.Second {
		t.Errorf("requeue with an incomplete board = %v, want 1s", res.RequeueAfter)
	}
	if w := e.ogxWrites(); len(w) != 0 {
		t.Fatalf("status wrote with an incomplete board:%s", sfDescribe(w))
	}

	for _, c := range e.m.childControllers {
		if _, err := c.syncKey(e.ctx, sfKey); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
	}
	e.waitCaught()
	if _, err := e.m.status.sync(e.ctx, sfKey); err != nil {
		t.Fatal(err)
	}
	w := e.ogxWrites()
	if len(w) != 1 {
		t.Fatalf("first status sync: want one write, got%s", sfDescribe(w))
	}
	p, ok := w[0].(clienttesting.PatchActionImpl)
	if !ok || p.GetSubresource() != "status" || p.GetPatchType() != types.ApplyPatchType || p.GetName() != sfName ||
		p.PatchOptions.FieldManager != render.FieldManager {
		t.Fatalf("status write = %s, want apply of ogxservers/status by %s", sfActionString(w[0]), render.FieldManager)
	}
	stored, err := e.ogx.OgxV1beta1().OGXServers(sfNamespace).Get(e.ctx, sfName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if stored.Status.Phase != ogxv1beta1.PhaseInitializing || stored.Status.ObservedGeneration != 1 {
		t.Errorf("stored status phase %q observedGeneration %d, want Initializing 1", stored.Status.Phase, stored.Status.ObservedGeneration)
	}
	if stored.Status.Version.OperatorVersion != "v1.2.3" || !stored.Status.Version.LastUpdated.Time.Equal(clock) {
		t.Errorf("stored version = %+v", stored.Status.Version)
	}

	// Steady state over several requeue cycles: no request at all, on either
	// clientset, although the clock moves.
	e.waitCaught()
	e.clearActions()
	for i := range 3 {
		clock = clock.Add(5 * time.Minute)
		if _, err := e.m.status.sync(e.ctx, sfKey); err != nil {
			t.Fatal(err)
		}
		for _, c := range e.m.childControllers {
			if _, err := c.syncKey(e.ctx, sfKey); err != nil {
				t.Fatal(err)
			}
		}
		if w := append(e.ogxWrites(), e.kubeWrites()...); len(w) != 0 {
			t.Fatalf("cycle %d: steady state sent writes:%s", i, sfDescribe(w))
		}
	}

	// A changed input writes again, once; timestamps of unchanged
	// conditions stay.
	e.makeAvailable(sfName)
	e.clearActions()
	clock = clock.Add(time.Minute)
	if _, err := e.m.status.sync(e.ctx, sfKey); err != nil {
		t.Fatal(err)
	}
	if w := e.ogxWrites(); len(w) != 1 {
		t.Fatalf("after the rollout: want one status write, got%s", sfDescribe(w))
	}
	after, err := e.ogx.OgxV1beta1().OGXServers(sfNamespace).Get(e.ctx, sfName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if after.Status.Phase != ogxv1beta1.PhaseReady {
		t.Errorf("phase after rollout = %q, want Ready", after.Status.Phase)
	}
	for _, c := range after.Status.Conditions {
		before := meta.FindStatusCondition(stored.Status.Conditions, c.Type)
		switch {
		case before == nil:
			if !c.LastTransitionTime.Time.Equal(clock) {
				t.Errorf("new condition %s: lastTransitionTime %v, want %v", c.Type, c.LastTransitionTime, clock)
			}
		case before.Status == c.Status && !c.LastTransitionTime.Equal(&before.LastTransitionTime):
			t.Errorf("condition %s kept status %s but lastTransitionTime moved %v → %v", c.Type, c.Status, before.LastTransitionTime, c.LastTransitionTime)
		case before.Status != c.Status && !c.LastTransitionTime.Time.Equal(clock):
			t.Errorf("condition %s flipped but lastTransitionTime is %v, want %v", c.Type, c.LastTransitionTime, clock)
		}
	}
	if meta.FindStatusCondition(after.Status.Conditions, CondReconciling) != nil {
		t.Errorf("Reconciling present while Ready: %+v", after.Status.Conditions)
	}
	e.waitCaught()
	e.clearActions()
	clock = clock.Add(5 * time.Minute)
	if _, err := e.m.status.sync(e.ctx, sfKey); err != nil {
		t.Fatal(err)
	}
	if w := e.ogxWrites(); len(w) != 0 {
		t.Fatalf("steady Ready state sent writes:%s", sfDescribe(w))
	}
}

// TestSyncFakeStatusOnlyUpdateTriggersNoPass: a status-only or unrelated
// metadata update of an OGXServer enqueues no controller; a generation change
// enqueues all. A later spec change of a second OGXServer is the sentinel: the
// informer delivers events to a handler in order, so once the sentinel is
// queued the earlier update has been handled.
func TestSyncFakeStatusOnlyUpdateTriggersNoPass(t *testing.T) {
	s := sfServer(sfNamespace, sfName, sfUID)
	sentinel := sfServer(sfNamespace, "sentinel", "uid-sentinel")
	e := newSFEnv(t, Options{}, nil, s, sentinel)
	var runners []*queueRunner
	for _, c := range e.m.childControllers {
		runners = append(runners, c.queueRunner)
	}
	runners = append(runners, e.m.status.queueRunner)
	queued := func(names ...string) []string {
		var out []string
		for _, q := range runners {
			for _, n := range names {
				out = append(out, q.name+":"+Key(sfNamespace, n))
			}
		}
		return out
	}
	// Drain what the initial adds enqueued.
	drain := func() []string {
		var keys []string
		for _, q := range runners {
			for q.queue.Len() > 0 {
				k, _ := q.queue.Get()
				keys = append(keys, q.name+":"+k)
				q.queue.Done(k)
				q.queue.Forget(k)
			}
		}
		return keys
	}
	drain()
	bumpSentinel := func(gen int64) {
		t.Helper()
		sn := sentinel.DeepCopy()
		sn.Generation = gen
		if err := e.ogx.Tracker().Update(gvrOGXServers, sn, sfNamespace); err != nil {
			t.Fatal(err)
		}
		sfEventually(t, "the sentinel to be enqueued everywhere", func() (bool, string) {
			for _, q := range runners {
				if q.queue.Len() == 0 {
					return false, q.name + " queue empty"
				}
			}
			return true, ""
		})
	}

	upd := s.DeepCopy()
	upd.Status.Phase = ogxv1beta1.PhaseReady
	upd.Labels = map[string]string{"unrelated": "x"}
	upd.Annotations = map[string]string{"note": "y"}
	if err := e.ogx.Tracker().Update(gvrOGXServers, upd, sfNamespace); err != nil {
		t.Fatal(err)
	}
	bumpSentinel(2)
	want := queued("sentinel")
	if got := drain(); !cmp.Equal(got, want) {
		t.Errorf("after a status/metadata-only update, queued %v, want only the sentinel %v", got, want)
	}

	spec := upd.DeepCopy()
	spec.Generation = 2
	spec.Spec.Network = &ogxv1beta1.NetworkSpec{Port: 9999}
	if err := e.ogx.Tracker().Update(gvrOGXServers, spec, sfNamespace); err != nil {
		t.Fatal(err)
	}
	bumpSentinel(3)
	want = queued("demo", "sentinel")
	if got := drain(); !cmp.Equal(got, want) {
		t.Errorf("after a spec change, queued %v, want %v", got, want)
	}
}
