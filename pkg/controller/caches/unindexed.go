package caches

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/informers/internalinterfaces"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// NewFilteredInformer is a generated NewFiltered...Informer function of
// client-go's informers packages.
type NewFilteredInformer func(kubernetes.Interface, string, time.Duration, cache.Indexers, internalinterfaces.TweakListOptionsFunc) cache.SharedIndexInformer

// unindexedChild makes the child factory's informer of obj's type
// (unindexed).
func (s *Scope) unindexedChild(obj runtime.Object, newInformer NewFilteredInformer) cache.SharedIndexInformer {
	return unindexed(s.ChildFactory, obj, s.Namespace, selectorTweak(s.childSelector), newInformer)
}

// unindexed makes f's informer of obj's type without the namespace index
// a factory gives every informer: nothing lists these caches by namespace
// (children and pods are read by key or by their own index), and the
// index took about 0.7 KiB per server at N=1,000 (session 27's heap
// profile at idle). Called before anything else asks f for the type, as f
// keeps the first informer made for it.
func unindexed(f informers.SharedInformerFactory, obj runtime.Object, namespace string, tweak internalinterfaces.TweakListOptionsFunc, newInformer NewFilteredInformer) cache.SharedIndexInformer {
	inf := f.InformerFor(obj, func(c kubernetes.Interface, resync time.Duration) cache.SharedIndexInformer {
		return newInformer(c, namespace, resync, cache.Indexers{}, tweak)
	})
	if _, indexed := inf.GetIndexer().GetIndexers()[cache.NamespaceIndex]; indexed {
		panic(fmt.Sprintf("caches: the %T informer was made before its unindexed one", obj))
	}
	return inf
}

// selectorTweak sets a list's label selector.
func selectorTweak(selector string) internalinterfaces.TweakListOptionsFunc {
	return func(o *metav1.ListOptions) { o.LabelSelector = selector }
}
