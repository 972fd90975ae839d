package caches

import (
	"fmt"
	"maps"
	"reflect"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/ogx-k8s/ogx-controller/pkg/controller/apply"
)

// Source is one informer of a scope, how its objects map to OGXServer
// keys, which updates count (nil: all), and, for a kind the applier writes,
// the applier's recent-writes hook (docs/controllers.md, Enqueue rules).
// Each is defined once because every controller watching a kind maps it
// the same way.
type Source struct {
	Informer cache.SharedIndexInformer
	Keys     func(metav1.Object) []string
	Changed  func(old, cur any) bool
	Observe  func(metav1.Object, bool)
}

// Sources are the informers of one scope whose events start passes: the
// kinds several controllers watch by name, and in Owned those of the kinds
// a controller package added for itself (Caches.AddChildKind), by kind.
type Sources struct {
	Deployments, ServiceAccounts, Services, PVCs, Pods, AdoptedPVCs,
	AdoptedServices, AdoptedIngresses, Ingresses, ConfigMaps, Secrets *Source
	// TrustedBundles are the unlabelled odh-trusted-ca-bundle ConfigMaps
	// (Caches.WatchTrustedBundles); nil when the scope has no such watch.
	TrustedBundles *Source
	Owned          map[string]*Source
}

// OfKind is the source of the child kind named kind as apply.Child.Kind
// names it, or nil.
func (w *Sources) OfKind(kind string) *Source {
	switch kind {
	case "Deployment":
		return w.Deployments
	case "ServiceAccount":
		return w.ServiceAccounts
	case "Service":
		return w.Services
	case "Ingress":
		return w.Ingresses
	}
	return w.Owned[kind]
}

// Ordered lists the sources in the order their handlers are registered: a
// fixed order (the owned kinds sorted by kind), so registration does not
// depend on how entries were collected. Absent optional sources are left
// out.
func (w *Sources) Ordered() []*Source {
	out := []*Source{w.Deployments, w.ServiceAccounts, w.Services, w.PVCs, w.Pods,
		w.AdoptedPVCs, w.AdoptedServices, w.AdoptedIngresses, w.Ingresses, w.ConfigMaps, w.Secrets}
	if w.TrustedBundles != nil {
		out = append(out, w.TrustedBundles)
	}
	for _, kind := range slices.Sorted(maps.Keys(w.Owned)) {
		out = append(out, w.Owned[kind])
	}
	return out
}

// Watch says that events of source start passes of the controller
// whose queue enqueue adds to. Changed, when set, narrows the updates
// that do, for this controller alone, after the source's own Changed.
// SkipOwnWrites, for the controller that writes the source's kind, leaves
// out the event of the answer to its own apply (apply.CachedChild.OwnWrite):
// the pass that wrote it knew the object already, so the pass it would
// start only compares and skips (one pass per child of a new server).
// After a relist an update may go from an older version straight to our
// answer, over a version we never saw: what our apply did not overwrite
// of it is then left to the object's next change.
type Watch struct {
	Source        *Source
	Enqueue       func(string)
	Changed       func(old, cur any) bool
	SkipOwnWrites bool
}

// WatchesOf gives each source the same enqueue; a nil source (an optional
// watch the scope lacks, such as Sources.TrustedBundles) is skipped.
func WatchesOf(enqueue func(string), sources ...*Source) []Watch {
	entries := make([]Watch, 0, len(sources))
	for _, s := range sources {
		if s != nil {
			entries = append(entries, Watch{Source: s, Enqueue: enqueue})
		}
	}
	return entries
}

// MergeWatches gives each source watched by any entry one handler that
// enqueues every interested controller in the order of entries, behind the
// source's recent-writes hook if it has one (Observing), in the order of
// Ordered. One handler per informer, because handlers of one informer run
// on separate goroutines (docs/controllers.md, Enqueue rules).
func MergeWatches(sources *Sources, entries []Watch) []Wiring {
	bySource := map[*Source][]Watch{}
	for _, e := range entries {
		bySource[e.Source] = append(bySource[e.Source], e)
	}
	var out []Wiring
	for _, s := range sources.Ordered() {
		ws := bySource[s]
		if len(ws) == 0 {
			continue
		}
		h := watchHandler(s.Keys, s.Changed, ws)
		if s.Observe != nil {
			h = Observing(s.Observe, h)
		}
		out = append(out, Wiring{Informer: s.Informer, Handler: h})
	}
	return out
}

// Wiring is one handler to register on one informer.
type Wiring struct {
	Informer cache.SharedIndexInformer
	Handler  cache.ResourceEventHandler
}

// OwnerKey returns the key of the OGXServer that controls obj, if any.
func OwnerKey(obj metav1.Object) (string, bool) {
	ref := metav1.GetControllerOfNoCopy(obj)
	if ref == nil || ref.Kind != "OGXServer" || !apply.IsOGXGroup(ref.APIVersion) {
		return "", false
	}
	return Key(obj.GetNamespace(), ref.Name), true
}

// MetaOf unwraps informer event objects, tombstones included.
func MetaOf(obj any) (metav1.Object, bool) {
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

// Handler builds event handlers that map an object to OGXServer keys and
// enqueue them; update events are filtered by changed.
func Handler(keys func(metav1.Object) []string, changed func(old, cur any) bool, enqueue ...func(string)) cache.ResourceEventHandlerFuncs {
	ws := make([]Watch, len(enqueue))
	for i, e := range enqueue {
		ws[i] = Watch{Enqueue: e}
	}
	return watchHandler(keys, changed, ws)
}

// watchHandler is Handler with an update filter of each watch's own
// (Watch.Changed) after changed.
func watchHandler(keys func(metav1.Object) []string, changed func(old, cur any) bool, ws []Watch) cache.ResourceEventHandlerFuncs {
	// old is nil but for an update.
	do := func(obj, old any, deletion bool) {
		m, ok := MetaOf(obj)
		if !ok {
			return
		}
		for _, k := range keys(m) {
			for _, w := range ws {
				if deletion || w.wants(old, obj) {
					w.Enqueue(k)
				}
			}
		}
	}
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { do(obj, nil, false) },
		UpdateFunc: func(old, cur any) {
			if changed == nil || changed(old, cur) {
				do(cur, old, false)
			}
		},
		DeleteFunc: func(obj any) { do(obj, nil, true) },
	}
}

// wants reports whether an add (old nil) or an update of cur starts a pass
// of w's controller.
func (w Watch) wants(old, cur any) bool {
	if old != nil && w.Changed != nil && !w.Changed(old, cur) {
		return false
	}
	return !w.SkipOwnWrites || !ownWrite(cur)
}

// ownWrite reports whether obj is a view of the answer to one of our
// applies.
func ownWrite(obj any) bool {
	c, ok := obj.(*apply.CachedChild)
	return ok && c.OwnWrite
}

// Observing runs observe (a child's apply.RecentWrites hook) for every event
// before h, in the same handler, so a key h enqueues is never processed
// before observe has seen the event. Exported for the manager's tests of
// the merged handlers.
func Observing(observe func(metav1.Object, bool), h cache.ResourceEventHandlerFuncs) cache.ResourceEventHandlerFuncs {
	seen := func(obj any, deleted bool) {
		if m, ok := MetaOf(obj); ok {
			observe(m, deleted)
		}
	}
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			seen(obj, false)
			h.OnAdd(obj, false)
		},
		UpdateFunc: func(old, cur any) {
			seen(cur, false)
			h.OnUpdate(old, cur)
		},
		DeleteFunc: func(obj any) {
			seen(obj, true)
			h.OnDelete(obj)
		},
	}
}

// ByOwner maps a child to the OGXServer that controls it.
func ByOwner(m metav1.Object) []string {
	if k, ok := OwnerKey(m); ok {
		return []string{k}
	}
	return nil
}

// ByInstance maps a pod (a PodView) to the OGXServer named by its instance
// label.
func ByInstance(o metav1.Object) []string {
	if p, ok := o.(*PodView); ok && p.Instance != "" {
		return []string{Key(p.Namespace, p.Instance)}
	}
	return nil
}

// DataOrLabelsChanged filters ConfigMap and Secret updates to those that can
// change what we render: data, binaryData or labels.
func DataOrLabelsChanged(old, cur any) bool {
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

// Key returns the workqueue key of an OGXServer.
func Key(namespace, name string) string {
	return fmt.Sprintf("%s/%s", namespace, name)
}
