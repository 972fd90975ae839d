package controller

// Unit tests of how informer events become queue keys (sources.go, caches/watch.go): the
// object-to-OGXServer mappings the watches use, the handler wrapper, the
// update filter of referenced objects and the merge of every controller's
// watches into one handler per informer.

import (
	"fmt"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/apply"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/caches"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/controllertest"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/worker"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

// controlled returns metadata ns/name with one owner reference.
func controlled(ns, name, apiVersion, kind, owner string, controller bool) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: ns, OwnerReferences: []metav1.OwnerReference{{
		APIVersion: apiVersion, Kind: kind, Name: owner, UID: types.UID("u-" + owner), Controller: ptr.To(controller)}}}
}

func TestEventKeys(t *testing.T) {
	// demo reads ConfigMaps override and client-cert and Secret client-key;
	// other reads override too; plain reads nothing of its own.
	demo := controllertest.Server(sfNamespace, sfName, sfUID, func(s *ogxv1beta1.OGXServerSpec) {
		s.OverrideConfig = &ogxv1beta1.ConfigMapKeyRef{Name: "override", Key: "config.yaml"}
		s.TLS = &ogxv1beta1.OutboundTLSSpec{Identity: &ogxv1beta1.ClientIdentitySpec{
			Cert: ogxv1beta1.ConfigMapKeyRef{Name: "client-cert", Key: "tls.crt"},
			Key:  ogxv1beta1.SecretKeyRef{Name: "client-key", Key: "tls.key"},
		}}
	})
	other := controllertest.Server(sfNamespace, "other", "uid-other", func(s *ogxv1beta1.OGXServerSpec) {
		s.OverrideConfig = &ogxv1beta1.ConfigMapKeyRef{Name: "override", Key: "config.yaml"}
	})
	plain := controllertest.Server(sfNamespace, "plain", "uid-plain")
	elsewhere := controllertest.Server("team-b", "remote", "uid-remote")
	e := newSFEnv(t, base.Options{}, nil, demo, other, plain, elsewhere)
	m := e.m

	const ogxAPI = "ogx.io/v1beta1"
	cm := func(meta metav1.ObjectMeta) metav1.Object { return &corev1.ConfigMap{ObjectMeta: meta} }
	named := func(ns, name string, labels map[string]string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: name, Namespace: ns, Labels: labels}
	}
	cases := []struct {
		name string
		keys func(metav1.Object) []string
		obj  metav1.Object
		want []string
	}{
		// Children: the controller owner reference.
		{"child owned by an OGXServer", caches.ByOwner, cm(controlled(sfNamespace, "x", ogxAPI, "OGXServer", "demo", true)), []string{"team-a/demo"}},
		{"owner of another ogx.io version", caches.ByOwner, cm(controlled(sfNamespace, "x", "ogx.io/v1", "OGXServer", "demo", true)), []string{"team-a/demo"}},
		{"owner reference that is not the controller", caches.ByOwner, cm(controlled(sfNamespace, "x", ogxAPI, "OGXServer", "demo", false)), nil},
		{"OGXServer kind of another group", caches.ByOwner, cm(controlled(sfNamespace, "x", "example.com/v1", "OGXServer", "demo", true)), nil},
		{"controlled by another kind", caches.ByOwner, cm(controlled(sfNamespace, "x", "apps/v1", "Deployment", "demo", true)), nil},
		{"no owner", caches.ByOwner, cm(named(sfNamespace, "x", nil)), nil},

		// Pods: the instance label, kept on the pod view.
		{"pod of an instance", caches.ByInstance, &caches.PodView{ObjectMeta: named(sfNamespace, "p", nil), Instance: "demo"}, []string{"team-a/demo"}},
		{"pod without instance", caches.ByInstance, &caches.PodView{ObjectMeta: named(sfNamespace, "p", nil)}, nil},
		{"a pod that is not a view", caches.ByInstance, &corev1.Pod{ObjectMeta: named(sfNamespace, "p", map[string]string{render.LabelInstance: "demo"})}, nil},

		// PVCs: the instance label, else N-pvc of an existing server.
		{"PVC with instance label", m.pvcOwners, &corev1.PersistentVolumeClaim{ObjectMeta: named(sfNamespace, "legacy-pvc",
			map[string]string{render.LabelInstance: "demo"})}, []string{"team-a/demo"}},
		{"PVC named after a server", m.pvcOwners, &corev1.PersistentVolumeClaim{ObjectMeta: named(sfNamespace, "plain-pvc", nil)}, []string{"team-a/plain"}},
		{"PVC named after no server", m.pvcOwners, &corev1.PersistentVolumeClaim{ObjectMeta: named(sfNamespace, "ghost-pvc", nil)}, nil},
		{"PVC named after a server of another namespace", m.pvcOwners, &corev1.PersistentVolumeClaim{ObjectMeta: named(sfNamespace, "remote-pvc", nil)}, nil},
		{"PVC named just pvc", m.pvcOwners, &corev1.PersistentVolumeClaim{ObjectMeta: named(sfNamespace, "-pvc", nil)}, nil},

		// Watched ConfigMaps: the owner, else every server referencing it.
		{"generated ConfigMap: its owner only", m.configMapOwners, cm(controlled(sfNamespace, "override", ogxAPI, "OGXServer", "plain", true)), []string{"team-a/plain"}},
		{"ConfigMap referenced by two servers", m.configMapOwners, cm(named(sfNamespace, "override", nil)), []string{"team-a/demo", "team-a/other"}},
		{"ConfigMap referenced through TLS", m.configMapOwners, cm(named(sfNamespace, "client-cert", nil)), []string{"team-a/demo"}},
		{"the trusted CA bundle concerns every server of its namespace", m.configMapOwners, cm(named(sfNamespace, render.TrustedCABundleConfigMap, nil)),
			[]string{"team-a/demo", "team-a/other", "team-a/plain"}},
		{"a referenced name in another namespace", m.configMapOwners, cm(named("team-b", "override", nil)), nil},
		{"unreferenced ConfigMap", m.configMapOwners, cm(named(sfNamespace, "unrelated", nil)), nil},

		// Trusted-bundle metadata: the servers of its namespace while it
		// lacks the watch label; a labelled one's events come from the
		// watched ConfigMaps.
		{"unlabelled trusted CA bundle", m.unwatchedTrustedBundleServers, &metav1.PartialObjectMetadata{
			ObjectMeta: named(sfNamespace, render.TrustedCABundleConfigMap, map[string]string{ogxv1beta1.WatchLabel: "false"})},
			[]string{"team-a/demo", "team-a/other", "team-a/plain"}},
		{"labelled trusted CA bundle", m.unwatchedTrustedBundleServers, &metav1.PartialObjectMetadata{
			ObjectMeta: named(sfNamespace, render.TrustedCABundleConfigMap, map[string]string{ogxv1beta1.WatchLabel: "true"})}, nil},
		{"unlabelled trusted CA bundle of a namespace without servers", m.unwatchedTrustedBundleServers, &metav1.PartialObjectMetadata{
			ObjectMeta: named("team-c", render.TrustedCABundleConfigMap, nil)}, nil},

		// Watched Secrets: every server referencing it.
		{"referenced Secret", m.secretOwners, &corev1.Secret{ObjectMeta: named(sfNamespace, "client-key", nil)}, []string{"team-a/demo"}},
		{"a Secret named like a referenced ConfigMap", m.secretOwners, &corev1.Secret{ObjectMeta: named(sfNamespace, "override", nil)}, nil},
		{"owned Secret is not a reference", m.secretOwners, &corev1.Secret{ObjectMeta: controlled(sfNamespace, "s", ogxAPI, "OGXServer", "demo", true)}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := c.keys(c.obj)
			sort.Strings(got)
			if d := cmp.Diff(c.want, got, cmpopts.EquateEmpty()); d != "" {
				t.Errorf("keys (-want +got):\n%s", d)
			}
		})
	}
}

// TestHandler: every mapped key reaches every queue, tombstones are
// unwrapped, updates pass only through the filter, and objects without
// metadata are ignored.
func TestHandler(t *testing.T) {
	owned := &corev1.ConfigMap{ObjectMeta: controlled(sfNamespace, "x", "ogx.io/v1beta1", "OGXServer", "demo", true)}
	var a, b []string
	unchanged := func(old, cur any) bool { return false }
	h := caches.Handler(caches.ByOwner, unchanged, func(k string) { a = append(a, k) }, func(k string) { b = append(b, k) })
	h.OnAdd(owned, false)
	h.OnUpdate(owned, owned)
	h.OnDelete(cache.DeletedFinalStateUnknown{Key: "team-a/x", Obj: owned})
	h.OnAdd("not an object", false)
	want := []string{"team-a/demo", "team-a/demo"}
	if d := cmp.Diff(want, a); d != "" {
		t.Errorf("first queue (-want +got):\n%s", d)
	}
	if d := cmp.Diff(want, b); d != "" {
		t.Errorf("second queue (-want +got):\n%s", d)
	}

	var all []string
	caches.Handler(caches.ByOwner, nil, func(k string) { all = append(all, k) }).OnUpdate(owned, owned)
	if d := cmp.Diff([]string{"team-a/demo"}, all); d != "" {
		t.Errorf("without a filter every update counts (-want +got):\n%s", d)
	}
}

func TestDataOrLabelsChanged(t *testing.T) {
	cmBase := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"a": "1"}, Annotations: map[string]string{"n": "1"},
		ResourceVersion: "1"}, Data: map[string]string{"k": "v"}, BinaryData: map[string][]byte{"b": {1}}}
	cmWith := func(f func(*corev1.ConfigMap)) *corev1.ConfigMap { c := cmBase.DeepCopy(); f(c); return c }
	secBase := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"a": "1"}}, Data: map[string][]byte{"k": []byte("v")}}
	secWith := func(f func(*corev1.Secret)) *corev1.Secret { s := secBase.DeepCopy(); f(s); return s }
	cases := []struct {
		name     string
		old, cur any
		want     bool
	}{
		{"ConfigMap: only metadata noise", cmBase, cmWith(func(c *corev1.ConfigMap) { c.ResourceVersion = "2"; c.Annotations["n"] = "2" }), false},
		{"ConfigMap: data", cmBase, cmWith(func(c *corev1.ConfigMap) { c.Data["k"] = "w" }), true},
		{"ConfigMap: binaryData", cmBase, cmWith(func(c *corev1.ConfigMap) { c.BinaryData["b"] = []byte{2} }), true},
		{"ConfigMap: labels", cmBase, cmWith(func(c *corev1.ConfigMap) { c.Labels["a"] = "2" }), true},
		{"Secret: only metadata noise", secBase, secWith(func(s *corev1.Secret) { s.ResourceVersion = "2" }), false},
		{"Secret: data", secBase, secWith(func(s *corev1.Secret) { s.Data["k"] = []byte("w") }), true},
		{"Secret: labels", secBase, secWith(func(s *corev1.Secret) { delete(s.Labels, "a") }), true},
		{"any other kind", &corev1.Pod{}, &corev1.Pod{}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := caches.DataOrLabelsChanged(c.old, c.cur); got != c.want {
				t.Errorf("dataOrLabelsChanged = %v, want %v", got, c.want)
			}
		})
	}
}

// TestMergeWatches: entries of one source become one handler that observes
// first, then enqueues every key for every interested controller in entry
// order; a source nobody watches gets no handler, and a source without a
// hook is not observed.
func TestMergeWatches(t *testing.T) {
	var log []string
	record := func(name string) func(string) { return func(k string) { log = append(log, name+" "+k) } }
	observed := &caches.Source{Informer: cache.NewSharedIndexInformer(nil, &corev1.ConfigMap{}, 0, cache.Indexers{}),
		Keys:    func(metav1.Object) []string { return []string{"ns/a", "ns/b"} },
		Observe: func(o metav1.Object, deleted bool) { log = append(log, "observe "+o.GetName()) }}
	plain := &caches.Source{Informer: cache.NewSharedIndexInformer(nil, &corev1.Secret{}, 0, cache.Indexers{}), Keys: caches.ByOwner}
	unwatched := &caches.Source{Informer: cache.NewSharedIndexInformer(nil, &corev1.Service{}, 0, cache.Indexers{}), Keys: caches.ByOwner}
	sources := &caches.Sources{ConfigMaps: observed, Secrets: plain, Services: unwatched}
	// ordered lists every field; the ones this test leaves nil must be
	// skipped like an unwatched source.
	entries := append(caches.WatchesOf(record("first"), observed, plain), caches.WatchesOf(record("second"), observed)...)
	got := caches.MergeWatches(sources, entries)
	if len(got) != 2 || got[0].Informer != observed.Informer || got[1].Informer != plain.Informer {
		t.Fatalf("wirings %+v, want one for the ConfigMaps, then one for the Secrets", got)
	}
	got[0].Handler.OnAdd(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm"}}, false)
	want := []string{"observe cm", "first ns/a", "second ns/a", "first ns/b", "second ns/b"}
	if d := cmp.Diff(want, log); d != "" {
		t.Errorf("observed source (-want +got):\n%s", d)
	}
	log = nil
	got[1].Handler.OnDelete(&corev1.Secret{ObjectMeta: controlled(sfNamespace, "s", "ogx.io/v1beta1", "OGXServer", "demo", true)})
	if d := cmp.Diff([]string{"first team-a/demo"}, log); d != "" {
		t.Errorf("source without a hook (-want +got):\n%s", d)
	}
}

// wiredPair merges two watches of src, the first ("first") set up by
// setup and a plain second ("second"), and returns their handler and the
// log of what each enqueued.
func wiredPair(t *testing.T, sources *caches.Sources, src *caches.Source, setup func(*caches.Watch)) (cache.ResourceEventHandler, *[]string) {
	t.Helper()
	log := &[]string{}
	record := func(name string) func(string) { return func(k string) { *log = append(*log, name+" "+k) } }
	first := caches.WatchesOf(record("first"), src)
	setup(&first[0])
	wired := caches.MergeWatches(sources, append(first, caches.WatchesOf(record("second"), src)...))
	if len(wired) != 1 {
		t.Fatalf("%d wirings, want 1", len(wired))
	}
	return wired[0].Handler, log
}

// TestMergeWatchesNarrowed: a watch's own update filter (Watch.Changed)
// holds back only that controller's updates, never its adds or deletes.
func TestMergeWatchesNarrowed(t *testing.T) {
	src := &caches.Source{Informer: cache.NewSharedIndexInformer(nil, &corev1.Secret{}, 0, cache.Indexers{}), Keys: caches.ByOwner}
	h, log := wiredPair(t, &caches.Sources{Secrets: src}, src, func(w *caches.Watch) {
		w.Changed = func(old, cur any) bool { return old.(*corev1.Secret).Generation != cur.(*corev1.Secret).Generation }
	})
	obj := func() *corev1.Secret {
		return &corev1.Secret{ObjectMeta: controlled(sfNamespace, "s", "ogx.io/v1beta1", "OGXServer", "demo", true)}
	}
	same, next := obj(), obj()
	next.Generation = 2
	h.OnAdd(same, false)
	h.OnUpdate(same, obj())
	h.OnUpdate(same, next)
	h.OnDelete(next)
	want := []string{"first team-a/demo", "second team-a/demo", "second team-a/demo", "first team-a/demo", "second team-a/demo",
		"first team-a/demo", "second team-a/demo"}
	if d := cmp.Diff(want, *log); d != "" {
		t.Errorf("enqueued (-want +got):\n%s", d)
	}
}

// TestMergeWatchesSkipOwnWrites: the view of our own write's answer starts
// no pass of the controller that skips its own writes, added or updated;
// every other controller, and a deletion, still enqueue.
func TestMergeWatchesSkipOwnWrites(t *testing.T) {
	src := &caches.Source{Informer: cache.NewSharedIndexInformer(nil, &corev1.Service{}, 0, cache.Indexers{}), Keys: caches.ByOwner}
	h, log := wiredPair(t, &caches.Sources{Services: src}, src, func(w *caches.Watch) { w.SkipOwnWrites = true })
	meta := controlled(sfNamespace, "demo-service", "ogx.io/v1beta1", "OGXServer", "demo", true)
	ours := &apply.CachedChild{Meta: meta, OwnedDigest: apply.Digest{1}, OwnWrite: true}
	theirs := &apply.CachedChild{Meta: meta, OwnedDigest: apply.Digest{2}}
	h.OnAdd(ours, false)
	h.OnUpdate(theirs, ours)
	h.OnUpdate(ours, theirs)
	h.OnDelete(ours)
	want := []string{"second team-a/demo", "second team-a/demo", "first team-a/demo", "second team-a/demo",
		"first team-a/demo", "second team-a/demo"}
	if d := cmp.Diff(want, *log); d != "" {
		t.Errorf("enqueued (-want +got):\n%s", d)
	}
}

// declaredWatch is one entry the controllers declare: the source, the
// controller it enqueues into and the entry itself.
type declaredWatch struct {
	source, controller string
	entry              caches.Watch
}

// declaredWatches lists what the controllers of a manager declare, each
// entry named by its source and the controller it enqueues into, and the
// sources' names.
func declaredWatches(t *testing.T) ([]declaredWatch, *caches.Sources, map[*caches.Source]string) {
	e := newSFEnv(t, base.Options{Metadata: controllertest.MetadataClient(t)}, nil)
	m := e.m
	queues := map[string]*worker.Runner{"status": m.status.Runner}
	for _, c := range m.childControllers {
		queues[c.Name()] = c.Runner
	}
	var sources *caches.Sources
	m.Caches.Each(func(sc *caches.Scope) { sources = m.scopeSources(sc) })
	names := map[*caches.Source]string{sources.Deployments: "Deployment", sources.ServiceAccounts: "ServiceAccount",
		sources.Services: "Service", sources.PVCs: "PVC", sources.Pods: "Pod",
		sources.AdoptedPVCs: "adopted PVC", sources.AdoptedServices: "adopted Service",
		sources.AdoptedIngresses: "adopted Ingress", sources.Owned["NetworkPolicy"]: "NetworkPolicy", sources.Ingresses: "Ingress",
		sources.Owned["HorizontalPodAutoscaler"]: "HPA", sources.Owned["PodDisruptionBudget"]: "PDB",
		sources.ConfigMaps: "ConfigMap", sources.Secrets: "Secret", sources.TrustedBundles: "trusted bundle"}
	var out []declaredWatch
	for i, entry := range m.watches(sources) {
		key := fmt.Sprintf("probe/%d", i)
		entry.Enqueue(key)
		for name, q := range queues {
			if q.Queue().Len() > 0 && drained(q, key) {
				out = append(out, declaredWatch{source: names[entry.Source], controller: name, entry: entry})
			}
		}
	}
	return out, sources, names
}

// TestDeclaredWatches: what the controllers declare, merged, is the table of
// docs/controllers.md (Enqueue rules): per source, the controllers enqueued
// in order, and whether the applier's hook observes it.
func TestDeclaredWatches(t *testing.T) {
	declared, sources, names := declaredWatches(t)
	got := map[string][]string{}
	for _, d := range declared {
		got[d.source] = append(got[d.source], d.controller)
	}
	want := map[string][]string{
		"Deployment": {"deployment", "status"}, "ServiceAccount": {"deployment"},
		"Service": {"service", "deployment", "status"}, "PVC": {"pvc", "deployment", "status"}, "Pod": {"status"},
		"adopted PVC": {"pvc", "deployment", "status"}, "adopted Service": {"service"},
		"adopted Ingress": {"ingress"}, "NetworkPolicy": {"networkpolicy"},
		"Ingress": {"ingress", "status"}, "HPA": {"hpa"}, "PDB": {"pdb"},
		"ConfigMap": {"configmap", "deployment", "status"}, "Secret": {"configmap", "deployment", "monitoring", "status"},
		"trusted bundle": {"configmap"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("controllers per source (-want +got):\n%s", d)
	}
	var hooked []string
	for _, s := range sources.Ordered() {
		if s.Observe != nil {
			hooked = append(hooked, names[s])
		}
	}
	wantHooked := []string{"Deployment", "ServiceAccount", "Service", "Ingress", "ConfigMap", "HPA", "NetworkPolicy", "PDB"}
	if d := cmp.Diff(wantHooked, hooked); d != "" {
		t.Errorf("sources observed for the applier (-want +got):\n%s", d)
	}
}

// TestDeclaredWatchFilters: only the deployment controller filters the
// updates of a source (caches.DeploymentNonStatusChanged), and each kind's
// writer skips the answers to its own applies.
func TestDeclaredWatchFilters(t *testing.T) {
	declared, _, _ := declaredWatches(t)
	var narrowed, skipOwn []string
	for _, d := range declared {
		if d.entry.Changed != nil {
			narrowed = append(narrowed, d.source+" -> "+d.controller)
		}
		if d.entry.SkipOwnWrites {
			skipOwn = append(skipOwn, d.source+" -> "+d.controller)
		}
	}
	if d := cmp.Diff([]string{"Deployment -> deployment"}, narrowed); d != "" {
		t.Errorf("watches with an update filter of their own (-want +got):\n%s", d)
	}
	wantSkip := []string{"Deployment -> deployment", "ServiceAccount -> deployment", "Service -> service", "Ingress -> ingress",
		"NetworkPolicy -> networkpolicy", "HPA -> hpa", "PDB -> pdb"}
	if d := cmp.Diff(wantSkip, skipOwn, cmpopts.SortSlices(func(a, b string) bool { return a < b })); d != "" {
		t.Errorf("watches skipping their controller's own writes (-want +got):\n%s", d)
	}
}

// drained empties q and reports whether key was among its items.
func drained(q *worker.Runner, key string) bool {
	found := false
	for q.Queue().Len() > 0 {
		k, _ := q.Queue().Get()
		found = found || k == key
		q.Queue().Forget(k)
		q.Queue().Done(k)
	}
	return found
}

// TestHandlerUnwrapsCachedChildren: the child caches hand out
// apply.CachedChild, also inside a delete tombstone; the handler maps its
// object, and the applier's recent-writes hook sees the deletion.
func TestHandlerUnwrapsCachedChildren(t *testing.T) {
	svc := &corev1.Service{ObjectMeta: controlled(sfNamespace, "demo-service", "ogx.io/v1beta1", "OGXServer", "demo", true)}
	cached := &apply.CachedChild{Meta: svc.ObjectMeta, OwnedDigest: apply.Digest{1}}
	var keys []string
	var observed []string
	h := caches.Observing(func(m metav1.Object, deleted bool) {
		observed = append(observed, fmt.Sprintf("%s deleted=%v", m.GetName(), deleted))
	},
		caches.Handler(caches.ByOwner, nil, func(k string) { keys = append(keys, k) }))
	h.OnAdd(cached, false)
	h.OnDelete(cache.DeletedFinalStateUnknown{Key: "team-a/demo-service", Obj: cached})
	if d := cmp.Diff([]string{"team-a/demo", "team-a/demo"}, keys); d != "" {
		t.Errorf("keys (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"demo-service deleted=false", "demo-service deleted=true"}, observed); d != "" {
		t.Errorf("observed (-want +got):\n%s", d)
	}
}
