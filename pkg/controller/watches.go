package controller

import (
	"reflect"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/apply"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

// Watches: how informer events become queue keys (docs/controllers.md,
// Enqueue rules). Each controller declares in its own file which sources
// start its passes (the watched function its constructor sets on the
// childController, StatusController.watches for status); a source
// is one informer of a scope with how its objects map to OGXServer keys,
// defined once here because every controller watching a kind maps it the
// same way. The manager merges the entries of one source into one event
// handler (mergeWatches).

// watchSource is one informer of a scope, how its objects map to OGXServer
// keys, which updates count (nil: all), and, for a kind the applier writes,
// the applier's recent-writes hook (nil for kinds it does not write).
type watchSource struct {
	informer cache.SharedIndexInformer
	keys     func(metav1.Object) []string
	changed  func(old, cur any) bool
	observe  func(metav1.Object, bool)
}

// watchSources are the informers of one scope whose events start passes.
type watchSources struct {
	deployments, serviceAccounts, roleBindings, services, pvcs, pods, adoptedPVCs,
	adoptedServices, adoptedIngresses, networkPolicies, ingresses, hpas, pdbs, configMaps, secrets *watchSource
}

// ordered lists the sources in the order their handlers are registered: a
// fixed order, so registration does not depend on how entries were collected.
func (w *watchSources) ordered() []*watchSource {
	return []*watchSource{w.deployments, w.serviceAccounts, w.roleBindings, w.services, w.pvcs, w.pods,
		w.adoptedPVCs, w.adoptedServices, w.adoptedIngresses, w.networkPolicies, w.ingresses, w.hpas, w.pdbs, w.configMaps, w.secrets}
}

// watchEntry says that events of source start passes of the controller
// whose queue enqueue adds to.
type watchEntry struct {
	source  *watchSource
	enqueue func(string)
}

// watchesOf gives each source the same enqueue.
func watchesOf(enqueue func(string), sources ...*watchSource) []watchEntry {
	entries := make([]watchEntry, len(sources))
	for i, s := range sources {
		entries[i] = watchEntry{source: s, enqueue: enqueue}
	}
	return entries
}

// scopeSources builds the sources of one scope. Children the applier writes
// carry its recent-writes hook; PVCs (never rewritten once created), pods
// and referenced Secrets do not.
func (m *Manager) scopeSources(sc *scope) *watchSources {
	f, w, ch := sc.childFactory, sc.watchedFactory, m.children
	return &watchSources{
		deployments:     &watchSource{informer: f.Apps().V1().Deployments().Informer(), keys: byOwner, observe: ch.deployments.Observe},
		serviceAccounts: &watchSource{informer: f.Core().V1().ServiceAccounts().Informer(), keys: byOwner, observe: ch.serviceAccounts.Observe},
		roleBindings:    &watchSource{informer: f.Rbac().V1().RoleBindings().Informer(), keys: byOwner, observe: ch.roleBindings.Observe},
		services:        &watchSource{informer: f.Core().V1().Services().Informer(), keys: byOwner, observe: ch.services.Observe},
		pvcs:            &watchSource{informer: f.Core().V1().PersistentVolumeClaims().Informer(), keys: m.pvcOwners},
		// A pod's ogx container turning ready or reporting its image
		// digest changes status.resolvedDistribution.image.
		pods:        &watchSource{informer: sc.podFactory.Core().V1().Pods().Informer(), keys: byInstance, changed: podViewChanged},
		adoptedPVCs: &watchSource{informer: sc.adoptedFactory.Core().V1().PersistentVolumeClaims().Informer(), keys: m.pvcOwners},
		// Adopted legacy Services and Ingresses (some without managed-by):
		// their release is decided from this cache, so its events start it.
		adoptedServices:  &watchSource{informer: sc.adoptedFactory.Core().V1().Services().Informer(), keys: byOwner},
		adoptedIngresses: &watchSource{informer: sc.adoptedFactory.Networking().V1().Ingresses().Informer(), keys: byOwner},
		networkPolicies:  &watchSource{informer: f.Networking().V1().NetworkPolicies().Informer(), keys: byOwner, observe: ch.networkPolicies.Observe},
		ingresses:        &watchSource{informer: f.Networking().V1().Ingresses().Informer(), keys: byOwner, observe: ch.ingresses.Observe},
		hpas:             &watchSource{informer: f.Autoscaling().V2().HorizontalPodAutoscalers().Informer(), keys: byOwner, observe: ch.hpas.Observe},
		pdbs:             &watchSource{informer: f.Policy().V1().PodDisruptionBudgets().Informer(), keys: byOwner, observe: ch.pdbs.Observe},
		// Owned (generated, CA bundle) and referenced ConfigMaps, and
		// referenced Secrets: content or label changes.
		configMaps: &watchSource{informer: w.Core().V1().ConfigMaps().Informer(), keys: m.configMapOwners,
			changed: dataOrLabelsChanged, observe: ch.configMaps.Observe},
		secrets: &watchSource{informer: w.Core().V1().Secrets().Informer(), keys: m.secretOwners, changed: dataOrLabelsChanged},
	}
}

// mergeWatches gives each source watched by any entry one handler that
// enqueues, for every key, every interested controller in the order of
// entries, wrapped once by observing when the source has a recent-writes
// hook. One handler per informer, rather than one per controller, is what
// keeps the order observing promises: handlers of one informer run on
// separate goroutines, so a controller's handler registered beside the
// observing one could enqueue a key processed before the applier had seen
// the event. Sources come out in the order of ordered.
func mergeWatches(sources *watchSources, entries []watchEntry) []watchWiring {
	enqueues := map[*watchSource][]func(string){}
	for _, e := range entries {
		enqueues[e.source] = append(enqueues[e.source], e.enqueue)
	}
	var out []watchWiring
	for _, s := range sources.ordered() {
		qs := enqueues[s]
		if len(qs) == 0 {
			continue
		}
		h := handler(s.keys, s.changed, qs...)
		if s.observe != nil {
			h = observing(s.observe, h)
		}
		out = append(out, watchWiring{informer: s.informer, handler: h})
	}
	return out
}

// watchWiring is one handler to register on one informer.
type watchWiring struct {
	informer cache.SharedIndexInformer
	handler  cache.ResourceEventHandler
}

// ownerKey returns the key of the OGXServer that controls obj, if any.
func ownerKey(obj metav1.Object) (string, bool) {
	ref := metav1.GetControllerOfNoCopy(obj)
	if ref == nil || ref.Kind != "OGXServer" || !apply.IsOGXGroup(ref.APIVersion) {
		return "", false
	}
	return Key(obj.GetNamespace(), ref.Name), true
}

// metaOf unwraps informer event objects, tombstones included.
func metaOf(obj any) (metav1.Object, bool) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	switch o := obj.(type) {
	case metav1.Object:
		return o, true
	case metav1.ObjectMetaAccessor:
		// An apply.CachedChild.
		m := o.GetObjectMeta()
		return m, m != nil
	}
	return nil, false
}

// handler builds event handlers that map an object to OGXServer keys and
// enqueue them; update events are filtered by changed.
func handler(keys func(metav1.Object) []string, changed func(old, cur any) bool, enqueue ...func(string)) cache.ResourceEventHandlerFuncs {
	do := func(obj any) {
		m, ok := metaOf(obj)
		if !ok {
			return
		}
		for _, k := range keys(m) {
			for _, e := range enqueue {
				e(k)
			}
		}
	}
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { do(obj) },
		UpdateFunc: func(old, cur any) {
			if changed == nil || changed(old, cur) {
				do(cur)
			}
		},
		DeleteFunc: do,
	}
}

// observing runs observe (a child's recentWrites hook) for every event
// before h, in the same handler, so a key h enqueues is never processed
// before observe has seen the event.
func observing(observe func(metav1.Object, bool), h cache.ResourceEventHandlerFuncs) cache.ResourceEventHandlerFuncs {
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			if m, ok := metaOf(obj); ok {
				observe(m, false)
			}
			h.OnAdd(obj, false)
		},
		UpdateFunc: func(old, cur any) {
			if m, ok := metaOf(cur); ok {
				observe(m, false)
			}
			h.OnUpdate(old, cur)
		},
		DeleteFunc: func(obj any) {
			if m, ok := metaOf(obj); ok {
				observe(m, true)
			}
			h.OnDelete(obj)
		},
	}
}

// byOwner maps a child to the OGXServer that controls it.
func byOwner(m metav1.Object) []string {
	if k, ok := ownerKey(m); ok {
		return []string{k}
	}
	return nil
}

// byInstance maps a pod (a podView) to the OGXServer named by its instance
// label.
func byInstance(o metav1.Object) []string {
	if p, ok := o.(*podView); ok && p.Instance != "" {
		return []string{Key(p.Namespace, p.Instance)}
	}
	return nil
}

// pvcOwners maps a PVC to its OGXServer: the instance label, else a name
// N-pvc where N is an OGXServer in the namespace.
func (m *Manager) pvcOwners(o metav1.Object) []string {
	if n := o.GetLabels()[render.LabelInstance]; n != "" {
		return []string{Key(o.GetNamespace(), n)}
	}
	if name := o.GetName(); len(name) > 4 && name[len(name)-4:] == "-pvc" {
		if _, err := m.caches.Server(o.GetNamespace(), name[:len(name)-4]); err == nil {
			return []string{Key(o.GetNamespace(), name[:len(name)-4])}
		}
	}
	return nil
}

// configMapOwners maps a watched ConfigMap to the OGXServers that own it or
// reference it.
func (m *Manager) configMapOwners(o metav1.Object) []string {
	if k, ok := ownerKey(o); ok {
		return []string{k}
	}
	return m.referencing(indexConfigMaps, o)
}

// secretOwners maps a watched Secret to the OGXServers referencing it.
func (m *Manager) secretOwners(o metav1.Object) []string {
	return m.referencing(indexSecrets, o)
}

// referencing looks o up in a reference index of the OGXServer informer.
func (m *Manager) referencing(index string, o metav1.Object) []string {
	sc := m.caches.For(o.GetNamespace())
	if sc == nil {
		return nil
	}
	objs, err := sc.serverInformer.GetIndexer().ByIndex(index, Key(o.GetNamespace(), o.GetName()))
	if err != nil {
		return nil
	}
	keys := make([]string, 0, len(objs))
	for _, obj := range objs {
		if s, ok := obj.(*ogxv1beta1.OGXServer); ok {
			keys = append(keys, Key(s.Namespace, s.Name))
		}
	}
	return keys
}

// dataOrLabelsChanged filters ConfigMap and Secret updates to those that can
// change what we render: data, binaryData or labels.
func dataOrLabelsChanged(old, cur any) bool {
	switch o := old.(type) {
	case *corev1.ConfigMap:
		c := cur.(*corev1.ConfigMap)
		return !reflect.DeepEqual(o.Data, c.Data) || !reflect.DeepEqual(o.BinaryData, c.BinaryData) || !reflect.DeepEqual(o.Labels, c.Labels)
	case *corev1.Secret:
		c := cur.(*corev1.Secret)
		return !reflect.DeepEqual(o.Data, c.Data) || !reflect.DeepEqual(o.Labels, c.Labels)
	}
	return true
}
