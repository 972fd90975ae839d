package base

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/ogx-k8s/ogx-controller/pkg/controller/apply"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/caches"
)

// Kind declares a child kind that only its own controller reads, in that
// controller's package: adding such a kind touches no shared file
// (docs/architecture.md, Adding a child kind). O is its typed object, AC
// its apply configuration.
type Kind[O apply.ChildObject, AC any] struct {
	// Kind and APIVersion name it in apply configurations, Events and
	// errors.
	Kind, APIVersion string
	// Informer picks its informer from a scope's child factory.
	Informer func(informers.SharedInformerFactory) cache.SharedIndexInformer
	// Client picks its typed client for a namespace.
	Client func(kube kubernetes.Interface, namespace string) TypedClient[O, AC]
	// Extract is client-go's Extract function of the kind.
	Extract func(O, string) (AC, error)
	// Trim returns what the cache keeps of an object besides its metadata:
	// what the controller reads of it, often nothing (caches.ViewOf).
	Trim func(O) O
}

// OwnedSource is a kind a controller package registered: the manager makes
// each scope's source of it (caches.Sources.Owned), mapping objects to the
// OGXServer that controls them and telling the applier of its events.
type OwnedSource struct {
	Kind, APIVersion string
	Observe          func(metav1.Object, bool)
}

// RegisterKind caches k in every scope, builds its applier and records its
// event source in d; call it from the kind's NewController, before the
// caches start. The controller watches it through Source.
func RegisterKind[O apply.ChildObject, AC any](d *Deps, k Kind[O, AC]) *apply.Child[O, AC] {
	d.Caches.AddChildKind(k.Kind, k.Informer, caches.ViewOf(k.Extract, k.Trim))
	child := newChild(k.Kind, k.APIVersion, d.Caches, d.Opts.TakeoverManagers, d.Events.Journal(),
		func(ns string) TypedClient[O, AC] { return k.Client(d.Kube, ns) }, k.Extract)
	d.Owned = append(d.Owned, OwnedSource{Kind: k.Kind, APIVersion: k.APIVersion, Observe: child.Observe})
	return child
}

// Source returns the watched-sources function of a kind registered with
// RegisterKind: its own informer's events start the controller's passes.
func Source(kind string) func(*caches.Sources) []*caches.Source {
	return func(w *caches.Sources) []*caches.Source { return []*caches.Source{w.Owned[kind]} }
}
