package controller

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	networkinglisters "k8s.io/client-go/listers/networking/v1"
	"k8s.io/client-go/tools/cache"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/generated/clientset/versioned"
	ogxinformers "github.com/ogx-k8s/ogx-controller/pkg/generated/informers/externalversions"
	ogxlisters "github.com/ogx-k8s/ogx-controller/pkg/generated/listers/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/metrics"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

// scope is every cache of one namespace (or of all namespaces). A client-go
// informer factory applies one namespace and one list filter to all its
// informers, so a scope holds one factory per filter: OGXServers (none),
// children (managed-by label), referenced ConfigMaps and Secrets
// (ogx.io/watch label), adopted PVCs, Services and Ingresses
// (ogx.io/adopted-from label, which the upstream operator sets without
// managed-by) and our pods (app=ogx with an instance label; only what the
// image digest needs is kept).
type scope struct {
	namespace string

	ogxFactory     ogxinformers.SharedInformerFactory
	childFactory   informers.SharedInformerFactory
	watchedFactory informers.SharedInformerFactory
	adoptedFactory informers.SharedInformerFactory
	podFactory     informers.SharedInformerFactory
	adoptedPVCs    corelisters.PersistentVolumeClaimLister
	// adoptedServices and adoptedIngresses hold the legacy networking
	// objects an adoption took over: whether one controlled by a server is
	// cached is what releasing its networking decides on (adoption.go).
	adoptedServices  corelisters.ServiceLister
	adoptedIngresses networkinglisters.IngressLister
	// podIndexer holds our pods, indexed by instance (indexInstance).
	podIndexer cache.Indexer
	// childIndexers are the caches of the applied child kinds by kind, for
	// lookups that miss often (no formatted NotFound as listers make).
	childIndexers  map[string]cache.Indexer
	servers        ogxlisters.OGXServerLister
	serverInformer cache.SharedIndexInformer
	pvcs           corelisters.PersistentVolumeClaimLister
	configMaps     corelisters.ConfigMapLister
	secrets        corelisters.SecretLister

	informers []cache.SharedIndexInformer
}

// Caches holds the scopes of every watched namespace and the operator
// ConfigMap informer, and tells a controller which scope serves a namespace.
type Caches struct {
	all    *scope
	scopes map[string]*scope

	// metrics records what the controllers do; nil records nothing.
	metrics *metrics.Metrics
	// fields decides which managedFields entries the caches keep.
	fields managedFieldsFilter

	operatorFactory   informers.SharedInformerFactory
	operatorConfigMap corelisters.ConfigMapLister
	operatorNamespace string
}

// NewCaches builds the informers (resync 0: drift is corrected by events,
// never by periodic resync) for the given namespaces, or cluster-wide when
// none is given, plus a name-filtered ConfigMap informer for the operator
// ConfigMap in the operator namespace. ours are our own field managers, whose
// managedFields entries the caches keep (the child views only as who has
// one, see childview.go); takeover are the upstream operator's, whose
// pending takeover makes a cache keep an object whole (see
// managedFieldsFilter).
func NewCaches(kube kubernetes.Interface, ogx versioned.Interface, namespaces []string, operatorNamespace string, ours, takeover []string) *Caches {
	keep := newManagedFieldsFilter(ours, takeover)
	c := &Caches{scopes: map[string]*scope{}, operatorNamespace: operatorNamespace, fields: keep}
	if len(namespaces) == 0 {
		c.all = newScope(kube, ogx, metav1.NamespaceAll, keep)
	}
	for _, ns := range namespaces {
		c.scopes[ns] = newScope(kube, ogx, ns, keep)
	}
	c.operatorFactory = informers.NewSharedInformerFactoryWithOptions(kube, 0,
		informers.WithNamespace(operatorNamespace),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) {
			o.FieldSelector = fields.OneTermEqualSelector("metadata.name", render.OperatorConfigMapName).String()
		}))
	c.operatorConfigMap = c.operatorFactory.Core().V1().ConfigMaps().Lister()
	return c
}

func newScope(kube kubernetes.Interface, ogx versioned.Interface, namespace string, keep managedFieldsFilter) *scope {
	s := &scope{namespace: namespace}
	s.ogxFactory = ogxinformers.NewSharedInformerFactoryWithOptions(ogx, 0, ogxinformers.WithNamespace(namespace),
		ogxinformers.WithTransform(serverView(keep)))
	filtered := func(selector string, transform cache.TransformFunc) informers.SharedInformerFactory {
		return informers.NewSharedInformerFactoryWithOptions(kube, 0, informers.WithNamespace(namespace),
			informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = selector }),
			informers.WithTransform(transform))
	}
	s.childFactory = filtered(labels.SelectorFromSet(labels.Set{render.LabelManagedBy: render.ManagedByValue}).String(),
		childView{fields: keep, labels: &mapSharer{}}.transform)
	s.adoptedFactory = filtered(render.LabelAdoptedFrom, managedFieldsFilter{}.transform)
	s.podFactory = filtered(render.LabelApp+"="+render.AppValue+","+render.LabelInstance, newPodView)
	s.watchedFactory = filtered(labels.SelectorFromSet(labels.Set{ogxv1beta1.WatchLabel: "true"}).String(),
		stripUserManagedFields)
	s.bindInformers()
	return s
}

// bindInformers creates the scope's informers in its factories (an
// informer exists once asked for) and keeps their listers and indexers.
func (s *scope) bindInformers() {
	srv := s.ogxFactory.Ogx().V1beta1().OGXServers()
	s.servers, s.serverInformer = srv.Lister(), srv.Informer()
	s.pvcs = s.childFactory.Core().V1().PersistentVolumeClaims().Lister()
	s.configMaps = s.watchedFactory.Core().V1().ConfigMaps().Lister()
	s.secrets = s.watchedFactory.Core().V1().Secrets().Lister()
	s.adoptedPVCs = s.adoptedFactory.Core().V1().PersistentVolumeClaims().Lister()
	s.adoptedServices = s.adoptedFactory.Core().V1().Services().Lister()
	s.adoptedIngresses = s.adoptedFactory.Networking().V1().Ingresses().Lister()
	s.childIndexers = map[string]cache.Indexer{
		"Deployment":              s.childFactory.Apps().V1().Deployments().Informer().GetIndexer(),
		"Service":                 s.childFactory.Core().V1().Services().Informer().GetIndexer(),
		"ServiceAccount":          s.childFactory.Core().V1().ServiceAccounts().Informer().GetIndexer(),
		"PersistentVolumeClaim":   s.childFactory.Core().V1().PersistentVolumeClaims().Informer().GetIndexer(),
		"RoleBinding":             s.childFactory.Rbac().V1().RoleBindings().Informer().GetIndexer(),
		"NetworkPolicy":           s.childFactory.Networking().V1().NetworkPolicies().Informer().GetIndexer(),
		"Ingress":                 s.childFactory.Networking().V1().Ingresses().Informer().GetIndexer(),
		"HorizontalPodAutoscaler": s.childFactory.Autoscaling().V2().HorizontalPodAutoscalers().Informer().GetIndexer(),
		"PodDisruptionBudget":     s.childFactory.Policy().V1().PodDisruptionBudgets().Informer().GetIndexer(),
		"ConfigMap":               s.watchedFactory.Core().V1().ConfigMaps().Informer().GetIndexer(),
	}
	podInformer := s.podFactory.Core().V1().Pods().Informer()
	// Before the informer starts, adding an index cannot fail.
	_ = podInformer.AddIndexers(instanceIndexers())
	s.podIndexer = podInformer.GetIndexer()
	s.informers = []cache.SharedIndexInformer{
		s.serverInformer,
		s.childFactory.Apps().V1().Deployments().Informer(),
		s.childFactory.Core().V1().Services().Informer(),
		s.childFactory.Core().V1().ServiceAccounts().Informer(),
		s.childFactory.Core().V1().PersistentVolumeClaims().Informer(),
		s.childFactory.Networking().V1().NetworkPolicies().Informer(),
		s.childFactory.Networking().V1().Ingresses().Informer(),
		s.childFactory.Autoscaling().V2().HorizontalPodAutoscalers().Informer(),
		s.childFactory.Policy().V1().PodDisruptionBudgets().Informer(),
		s.childFactory.Rbac().V1().RoleBindings().Informer(),
		s.watchedFactory.Core().V1().ConfigMaps().Informer(),
		s.watchedFactory.Core().V1().Secrets().Informer(),
		s.adoptedFactory.Core().V1().PersistentVolumeClaims().Informer(),
		s.adoptedFactory.Core().V1().Services().Informer(),
		s.adoptedFactory.Networking().V1().Ingresses().Informer(),
		s.podFactory.Core().V1().Pods().Informer(),
	}
}

// pvc returns the cached claim, or nil. Most servers have none, so the
// lookup must not cost a formatted NotFound error as a lister's Get does.
func (s *scope) pvc(namespace, name string) *corev1.PersistentVolumeClaim {
	obj, ok, err := s.childIndexers["PersistentVolumeClaim"].GetByKey(namespace + "/" + name)
	if err != nil || !ok {
		return nil
	}
	p, _ := obj.(*corev1.PersistentVolumeClaim)
	return p
}

// For returns the scope holding namespace ns, or nil when ns is not watched.
func (c *Caches) For(ns string) *scope {
	if c.all != nil {
		return c.all
	}
	return c.scopes[ns]
}

// each calls f for every scope.
func (c *Caches) each(f func(*scope)) {
	if c.all != nil {
		f(c.all)
	}
	for _, s := range c.scopes {
		f(s)
	}
}

// Start starts every informer; they stop when ctx is done.
func (c *Caches) Start(ctx context.Context) {
	c.each(func(s *scope) {
		s.ogxFactory.Start(ctx.Done())
		s.childFactory.Start(ctx.Done())
		s.watchedFactory.Start(ctx.Done())
		s.adoptedFactory.Start(ctx.Done())
		s.podFactory.Start(ctx.Done())
	})
	c.operatorFactory.Core().V1().ConfigMaps().Informer()
	c.operatorFactory.Start(ctx.Done())
}

// WaitForSync blocks until every informer has synced or the timeout passes.
func (c *Caches) WaitForSync(ctx context.Context, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var synced []cache.InformerSynced
	c.each(func(s *scope) {
		for _, inf := range s.informers {
			synced = append(synced, inf.HasSynced)
		}
	})
	synced = append(synced, c.operatorFactory.Core().V1().ConfigMaps().Informer().HasSynced)
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
	return s.servers.OGXServers(namespace).Get(name)
}

// Servers lists every cached OGXServer.
func (c *Caches) Servers() []*ogxv1beta1.OGXServer {
	var out []*ogxv1beta1.OGXServer
	c.each(func(s *scope) {
		list, _ := s.servers.List(labels.Everything())
		out = append(out, list...)
	})
	return out
}

// hasServer says whether an OGXServer with uid is in the cache now.
func (c *Caches) hasServer(uid types.UID) bool {
	found := false
	c.each(func(s *scope) {
		if !found {
			objs, err := s.serverInformer.GetIndexer().ByIndex(indexUID, string(uid))
			found = err == nil && len(objs) > 0
		}
	})
	return found
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

// podsOf returns the cached pods of one OGXServer instance (podView),
// found through the instance index.
func (c *Caches) podsOf(namespace, instance string) []*podView {
	sc := c.For(namespace)
	if sc == nil {
		return nil
	}
	objs, _ := sc.podIndexer.ByIndex(indexInstance, Key(namespace, instance))
	pods := make([]*podView, 0, len(objs))
	for _, o := range objs {
		if p, ok := o.(*podView); ok {
			pods = append(pods, p)
		}
	}
	return pods
}
