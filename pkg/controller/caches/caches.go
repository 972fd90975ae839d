package caches

import (
	"context"
	"fmt"
	"reflect"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	appsinformers "k8s.io/client-go/informers/apps/v1"
	coreinformers "k8s.io/client-go/informers/core/v1"
	networkinginformers "k8s.io/client-go/informers/networking/v1"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	networkinglisters "k8s.io/client-go/listers/networking/v1"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/tools/cache"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/apply"
	"github.com/ogx-k8s/ogx-controller/pkg/generated/clientset/versioned"
	ogxinformers "github.com/ogx-k8s/ogx-controller/pkg/generated/informers/externalversions"
	ogxv1beta1informers "github.com/ogx-k8s/ogx-controller/pkg/generated/informers/externalversions/ogx/v1beta1"
	ogxlisters "github.com/ogx-k8s/ogx-controller/pkg/generated/listers/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/metrics"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

// Scope is every cache of one namespace (or of all namespaces). A client-go
// informer factory applies one namespace and one list filter to all its
// informers, so a Scope holds one factory per filter (docs/architecture.md,
// Caches); adopted objects have their own, as the upstream operator labels
// them ogx.io/adopted-from without managed-by.
type Scope struct {
	Namespace string

	OGXFactory     ogxinformers.SharedInformerFactory
	ChildFactory   informers.SharedInformerFactory
	WatchedFactory informers.SharedInformerFactory
	AdoptedFactory informers.SharedInformerFactory
	PodFactory     informers.SharedInformerFactory
	AdoptedPVCs    corelisters.PersistentVolumeClaimLister
	// AdoptedServices and AdoptedIngresses hold the legacy networking
	// objects an adoption took over: whether one controlled by a server is
	// cached is what releasing its networking decides on (base/adoption.go).
	AdoptedServices  corelisters.ServiceLister
	AdoptedIngresses networkinglisters.IngressLister
	// PodIndexer holds our pods, indexed by instance (IndexInstance).
	PodIndexer cache.Indexer
	// ChildIndexers are the caches of the applied child kinds by kind, for
	// lookups that miss often (no formatted NotFound as listers make).
	ChildIndexers map[string]cache.Indexer
	// childInformers are the informers of the kinds AddChildKind added.
	childInformers map[string]cache.SharedIndexInformer
	ServerLister   ogxlisters.OGXServerLister
	ServerInformer cache.SharedIndexInformer
	PVCs           corelisters.PersistentVolumeClaimLister
	ConfigMaps     corelisters.ConfigMapLister
	Secrets        corelisters.SecretLister
	// TrustedBundleFactory and TrustedBundles watch the metadata of the
	// namespace's odh-trusted-ca-bundle whatever its labels
	// (WatchTrustedBundles); nil without a metadata client.
	TrustedBundleFactory metadatainformer.SharedInformerFactory
	TrustedBundles       cache.SharedIndexInformer

	// childSelector and podSelector select the objects of ChildFactory and
	// PodFactory.
	childSelector, podSelector string

	// informers are every informer of the scope, which WaitForSync awaits.
	informers []cache.SharedIndexInformer
	// prior is what the child transform reads the cached Deployment views
	// from (reuse.go).
	prior *priorViews
}

// Caches holds the scopes of every watched namespace and the operator
// ConfigMap informer, and tells a controller which scope serves a namespace.
type Caches struct {
	all    *Scope
	scopes map[string]*Scope

	// fields decides which managedFields entries the caches keep.
	fields managedFieldsFilter
	// kinds are the child views of the kinds AddChildKind added.
	kinds map[reflect.Type]KindView
	// sent are the remembered writes of the child kinds (KnowWrites).
	sent map[reflect.Type]func(metav1.Object) apply.Digest

	OperatorFactory   informers.SharedInformerFactory
	OperatorConfigMap corelisters.ConfigMapLister
	// HashKeyFactory watches the hash-key Secret only (its own factory: a
	// factory's field selector applies to all of its kinds).
	HashKeyFactory informers.SharedInformerFactory
	HashKeys       corelisters.SecretLister
}

// NewCaches builds the informers (resync 0: drift is corrected by events,
// never by periodic resync) for the given namespaces, or cluster-wide when
// none is given, plus a name-filtered informer for the operator ConfigMap.
// ours are our own field managers, whose managedFields entries the caches
// keep; takeover are the upstream operator's (see managedFieldsFilter).
func NewCaches(kube kubernetes.Interface, ogx versioned.Interface, namespaces []string, operatorNamespace string, ours, takeover []string) *Caches {
	c := &Caches{scopes: map[string]*Scope{}, fields: newManagedFieldsFilter(ours, takeover),
		kinds: map[reflect.Type]KindView{}, sent: map[reflect.Type]func(metav1.Object) apply.Digest{}}
	if len(namespaces) == 0 {
		c.all = newScope(kube, ogx, metav1.NamespaceAll, c.childView())
	}
	for _, ns := range namespaces {
		c.scopes[ns] = newScope(kube, ogx, ns, c.childView())
	}
	c.OperatorFactory = informers.NewSharedInformerFactoryWithOptions(kube, 0,
		informers.WithNamespace(operatorNamespace),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) {
			o.FieldSelector = fields.OneTermEqualSelector("metadata.name", render.OperatorConfigMapName).String()
		}))
	c.OperatorConfigMap = c.OperatorFactory.Core().V1().ConfigMaps().Lister()
	c.HashKeyFactory = informers.NewSharedInformerFactoryWithOptions(kube, 0,
		informers.WithNamespace(operatorNamespace),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) {
			o.FieldSelector = fields.OneTermEqualSelector("metadata.name", render.HashKeySecretName).String()
		}))
	c.HashKeys = c.HashKeyFactory.Core().V1().Secrets().Lister()
	return c
}

// childView is the transform of one scope's child caches; the scopes share
// the views of added kinds.
func (c *Caches) childView() childView {
	return childView{fields: c.fields, share: &sharing{}, kinds: c.kinds, sent: c.sent}
}

func newScope(kube kubernetes.Interface, ogx versioned.Interface, namespace string, children childView) *Scope {
	s := &Scope{Namespace: namespace, prior: &priorViews{}}
	children.prior = s.prior
	s.OGXFactory = ogxinformers.NewSharedInformerFactoryWithOptions(ogx, 0, ogxinformers.WithNamespace(namespace),
		ogxinformers.WithTransform(serverView(children.fields)))
	// The unindexed informers of a factory (unindexed.go) are made with
	// the same namespace and selector: childSelector, podSelector.
	filtered := func(selector string, transform cache.TransformFunc) informers.SharedInformerFactory {
		return informers.NewSharedInformerFactoryWithOptions(kube, 0, informers.WithNamespace(namespace),
			informers.WithTweakListOptions(selectorTweak(selector)), informers.WithTransform(transform))
	}
	s.childSelector = labels.SelectorFromSet(labels.Set{render.LabelManagedBy: render.ManagedByValue}).String()
	s.ChildFactory = filtered(s.childSelector, children.transform)
	s.AdoptedFactory = filtered(render.LabelAdoptedFrom, managedFieldsFilter{}.transform)
	s.podSelector = render.LabelApp + "=" + render.AppValue + "," + render.LabelInstance
	s.PodFactory = filtered(s.podSelector, NewPodView)
	s.WatchedFactory = filtered(labels.SelectorFromSet(labels.Set{ogxv1beta1.WatchLabel: "true"}).String(),
		stripUserManagedFields)
	s.bindInformers()
	// Set before the informers start, so the transform sees it.
	s.prior.deployments = s.ChildIndexers["Deployment"]
	return s
}

// bindInformers creates the scope's informers in its factories (an
// informer exists once it or its lister is asked for, except the unindexed
// ones, made here first) and keeps their listers and indexers.
func (s *Scope) bindInformers() {
	f, w, a := s.ChildFactory, s.WatchedFactory, s.AdoptedFactory
	// The OGXServer factory has no list tweak (newScope), so none here.
	s.OGXFactory.InformerFor(&ogxv1beta1.OGXServer{}, func(c versioned.Interface, resync time.Duration) cache.SharedIndexInformer {
		return ogxv1beta1informers.NewFilteredOGXServerInformer(c, s.Namespace, resync, cache.Indexers{}, nil)
	})
	srv := s.OGXFactory.Ogx().V1beta1().OGXServers()
	s.ServerLister, s.ServerInformer = srv.Lister(), srv.Informer()
	for obj, newInformer := range map[runtime.Object]NewFilteredInformer{
		&appsv1.Deployment{}:            appsinformers.NewFilteredDeploymentInformer,
		&corev1.Service{}:               coreinformers.NewFilteredServiceInformer,
		&corev1.ServiceAccount{}:        coreinformers.NewFilteredServiceAccountInformer,
		&corev1.PersistentVolumeClaim{}: coreinformers.NewFilteredPersistentVolumeClaimInformer,
		&networkingv1.Ingress{}:         networkinginformers.NewFilteredIngressInformer,
	} {
		s.unindexedChild(obj, newInformer)
	}
	unindexed(s.PodFactory, &corev1.Pod{}, s.Namespace, selectorTweak(s.podSelector), coreinformers.NewFilteredPodInformer)
	s.PVCs = f.Core().V1().PersistentVolumeClaims().Lister()
	s.ConfigMaps = w.Core().V1().ConfigMaps().Lister()
	s.Secrets = w.Core().V1().Secrets().Lister()
	s.AdoptedPVCs = a.Core().V1().PersistentVolumeClaims().Lister()
	s.AdoptedServices = a.Core().V1().Services().Lister()
	s.AdoptedIngresses = a.Networking().V1().Ingresses().Lister()
	podInformer := s.PodFactory.Core().V1().Pods().Informer()
	// Before the informer starts, adding an index cannot fail.
	_ = podInformer.AddIndexers(InstanceIndexers())
	s.PodIndexer = podInformer.GetIndexer()
	s.informers = []cache.SharedIndexInformer{s.ServerInformer, podInformer, w.Core().V1().Secrets().Informer(),
		a.Core().V1().PersistentVolumeClaims().Informer(), a.Core().V1().Services().Informer(),
		a.Networking().V1().Ingresses().Informer()}
	s.childInformers = map[string]cache.SharedIndexInformer{}
	s.ChildIndexers = map[string]cache.Indexer{}
	for kind, inf := range map[string]cache.SharedIndexInformer{
		"Deployment":            f.Apps().V1().Deployments().Informer(),
		"Service":               f.Core().V1().Services().Informer(),
		"ServiceAccount":        f.Core().V1().ServiceAccounts().Informer(),
		"PersistentVolumeClaim": f.Core().V1().PersistentVolumeClaims().Informer(),
		"Ingress":               f.Networking().V1().Ingresses().Informer(),
		"ConfigMap":             w.Core().V1().ConfigMaps().Informer(),
	} {
		s.ChildIndexers[kind] = inf.GetIndexer()
		s.informers = append(s.informers, inf)
	}
}

// AddChildKind caches one more child kind, which only its own controller
// package reads (base.RegisterKind), in every scope: newInformer is the
// kind's generated NewFiltered...Informer, and view is how its objects are
// cached. Call it before Start.
func (c *Caches) AddChildKind(kind string, newInformer NewFilteredInformer, view KindView) {
	c.kinds[view.typ] = view
	c.Each(func(s *Scope) {
		inf := s.unindexedChild(reflect.New(view.typ.Elem()).Interface().(runtime.Object), newInformer)
		s.childInformers[kind] = inf
		s.ChildIndexers[kind] = inf.GetIndexer()
		s.informers = append(s.informers, inf)
	})
}

// ChildInformer returns the informer AddChildKind added for kind, or nil.
func (s *Scope) ChildInformer(kind string) cache.SharedIndexInformer { return s.childInformers[kind] }

// PVC returns the cached claim, or nil. Most servers have none, so the
// lookup must not cost a formatted NotFound error as a lister's Get does.
func (s *Scope) PVC(namespace, name string) *corev1.PersistentVolumeClaim {
	obj, ok, err := s.ChildIndexers["PersistentVolumeClaim"].GetByKey(namespace + "/" + name)
	if err != nil || !ok {
		return nil
	}
	p, _ := obj.(*corev1.PersistentVolumeClaim)
	return p
}

// For returns the scope holding namespace ns, or nil when ns is not watched.
func (c *Caches) For(ns string) *Scope {
	if c.all != nil {
		return c.all
	}
	return c.scopes[ns]
}

// Each calls f for every scope.
func (c *Caches) Each(f func(*Scope)) {
	if c.all != nil {
		f(c.all)
	}
	for _, s := range c.scopes {
		f(s)
	}
}

// Start starts every informer; they stop when ctx is done.
func (c *Caches) Start(ctx context.Context) {
	c.Each(func(s *Scope) {
		s.OGXFactory.Start(ctx.Done())
		s.ChildFactory.Start(ctx.Done())
		s.WatchedFactory.Start(ctx.Done())
		s.AdoptedFactory.Start(ctx.Done())
		s.PodFactory.Start(ctx.Done())
		if s.TrustedBundleFactory != nil {
			s.TrustedBundleFactory.Start(ctx.Done())
		}
	})
	c.OperatorFactory.Start(ctx.Done())
	c.HashKeyFactory.Start(ctx.Done())
}

// WaitForSync blocks until every informer has synced or the timeout passes.
func (c *Caches) WaitForSync(ctx context.Context, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	synced := []cache.InformerSynced{c.OperatorFactory.Core().V1().ConfigMaps().Informer().HasSynced,
		c.HashKeyFactory.Core().V1().Secrets().Informer().HasSynced}
	c.Each(func(s *Scope) {
		for _, inf := range s.informers {
			synced = append(synced, inf.HasSynced)
		}
	})
	if !cache.WaitForCacheSync(ctx.Done(), synced...) {
		return fmt.Errorf("informer caches did not sync within %s", timeout)
	}
	return nil
}

// Server returns an OGXServer from the cache.
func (c *Caches) Server(namespace, name string) (*ogxv1beta1.OGXServer, error) {
	s := c.For(namespace)
	if s == nil {
		return nil, fmt.Errorf("namespace %q is not watched", namespace)
	}
	return s.ServerLister.OGXServers(namespace).Get(name)
}

// Servers lists every cached OGXServer.
func (c *Caches) Servers() []*ogxv1beta1.OGXServer {
	var out []*ogxv1beta1.OGXServer
	c.Each(func(s *Scope) {
		list, _ := s.ServerLister.List(labels.Everything())
		out = append(out, list...)
	})
	return out
}

// ServerUIDs returns the UIDs of the cached OGXServers: one pass over the
// cache for the sweep every few minutes, where an index by UID cost about
// 200 bytes per server for the life of the process.
func (c *Caches) ServerUIDs() map[types.UID]bool {
	out := map[types.UID]bool{}
	c.Each(func(s *Scope) {
		for _, obj := range s.ServerInformer.GetStore().List() {
			if m, ok := MetaOf(obj); ok {
				out[m.GetUID()] = true
			}
		}
	})
	return out
}

// ServerPhases counts the cached OGXServers by status.phase, for
// ogx_controller_servers (metrics.Metrics.CountServersWith).
func (c *Caches) ServerPhases() map[string]int { return countPhases(c.Servers()) }

// countPhases counts servers by status.phase: every phase of the API is
// present, zero or not, so a phase's series stays when it empties, and a
// server without a phase yet counts as metrics.PhaseUnknown.
func countPhases(servers []*ogxv1beta1.OGXServer) map[string]int {
	out := map[string]int{metrics.PhaseUnknown: 0}
	for _, p := range []ogxv1beta1.Phase{ogxv1beta1.PhasePending, ogxv1beta1.PhaseInitializing,
		ogxv1beta1.PhaseReady, ogxv1beta1.PhaseFailed, ogxv1beta1.PhaseTerminating} {
		out[string(p)] = 0
	}
	for _, s := range servers {
		phase := string(s.Status.Phase)
		if phase == "" {
			phase = metrics.PhaseUnknown
		}
		out[phase]++
	}
	return out
}

// PodsOf returns the cached pods of one OGXServer instance (PodView),
// found through the instance index.
func (c *Caches) PodsOf(namespace, instance string) []*PodView {
	sc := c.For(namespace)
	if sc == nil {
		return nil
	}
	objs, _ := sc.PodIndexer.ByIndex(IndexInstance, Key(namespace, instance))
	pods := make([]*PodView, 0, len(objs))
	for _, o := range objs {
		if p, ok := o.(*PodView); ok {
			pods = append(pods, p)
		}
	}
	return pods
}

// ServerTransform is the OGXServer informers' transform: what a cached
// object is made of, for tests that compare the caches with stored objects.
func (c *Caches) ServerTransform() cache.TransformFunc { return serverView(c.fields) }

// ChildTransform is the child informers' transform (see ServerTransform).
func (c *Caches) ChildTransform() cache.TransformFunc { return c.childView().transform }

// WatchedTransform is the watched informers' transform (see ServerTransform).
func (c *Caches) WatchedTransform() cache.TransformFunc { return stripUserManagedFields }
