package base

import (
	"context"
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	networkingv1ac "k8s.io/client-go/applyconfigurations/networking/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/ogx-k8s/ogx-controller/pkg/controller/apply"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/caches"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/events"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

// TypedClient is the part of a client-go typed client the applier uses;
// every typed client of a namespaced kind satisfies it.
type TypedClient[O any, AC any] interface {
	Get(ctx context.Context, name string, opts metav1.GetOptions) (O, error)
	Apply(ctx context.Context, ac AC, opts metav1.ApplyOptions) (O, error)
	Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error
	Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions, subresources ...string) (O, error)
}

// newChild binds one kind: its typed client, its cache and client-go's
// Extract function for the fields a manager owns.
func newChild[O metav1.Object, AC any, C TypedClient[O, AC]](kind, apiVersion string, c *caches.Caches, opts Options,
	journal *events.Journal, client func(ns string) C, extract func(O, string) (AC, error),
) *apply.Child[O, AC] {
	gv, _ := schema.ParseGroupVersion(apiVersion)
	// Every pass looks up children that do not exist (optional kinds, a
	// Service not created yet): one NotFound per kind, not one formatted per
	// lookup as the generated listers do. Callers only test it with IsNotFound.
	notFound := apierrors.NewNotFound(schema.GroupResource{Group: gv.Group, Resource: strings.ToLower(kind)}, "")
	recent := apply.NewRecentWrites[O]()
	caches.KnowWrites(c, recent)
	opts.Metrics.InitKind(kind)
	return &apply.Child[O, AC]{
		Kind:       kind,
		APIVersion: apiVersion,
		Metrics:    opts.Metrics,
		Takeover:   opts.TakeoverManagers,
		Journal:    journal,
		Cached: func(ns, name string) (apply.Known[O], error) {
			sc := c.For(ns)
			if sc == nil {
				return apply.Known[O]{}, fmt.Errorf("namespace %q is not watched", ns)
			}
			idx := sc.ChildIndexers[kind]
			if idx == nil {
				return apply.Known[O]{}, fmt.Errorf("no cache of %s", kind)
			}
			obj, exists, err := idx.GetByKey(ns + "/" + name)
			switch {
			case err != nil:
				return apply.Known[O]{}, err
			case !exists:
				return apply.Known[O]{}, notFound
			}
			return apply.KnownOf[O](kind, obj)
		},
		Live: func(ctx context.Context, ns, name string) (O, error) {
			return client(ns).Get(ctx, name, metav1.GetOptions{})
		},
		Extract:            func(o O) (AC, error) { return extract(o, render.FieldManager) },
		SetResourceVersion: func(ac AC, rv string) { apply.SetTypedResourceVersion(ac, rv) },
		Recent:             recent,
		Apply: func(ctx context.Context, ns string, ac AC) (O, error) {
			return client(ns).Apply(ctx, ac, apply.ApplyOptions())
		},
		Delete: func(ctx context.Context, ns, name string, opts metav1.DeleteOptions) error {
			return client(ns).Delete(ctx, name, opts)
		},
		Patch: func(ctx context.Context, ns, name string, data []byte) (O, error) {
			return client(ns).Patch(ctx, name, types.JSONPatchType, data, metav1.PatchOptions{FieldManager: render.FieldManager})
		},
	}
}

// DeploymentChild is the applier of Deployments.
type DeploymentChild = apply.Child[*appsv1.Deployment, *appsv1ac.DeploymentApplyConfiguration]

// Children holds one applier per kind several controllers read (a kind
// only its own controller reads is declared in its package, RegisterKind).
type Children struct {
	Deployments     *DeploymentChild
	Services        *apply.Child[*corev1.Service, *corev1ac.ServiceApplyConfiguration]
	ServiceAccounts *apply.Child[*corev1.ServiceAccount, *corev1ac.ServiceAccountApplyConfiguration]
	Ingresses       *apply.Child[*networkingv1.Ingress, *networkingv1ac.IngressApplyConfiguration]
	ConfigMaps      *apply.Child[*corev1.ConfigMap, *corev1ac.ConfigMapApplyConfiguration]
}

// NewChildren wires the child kinds to their clients and caches; takeovers
// from opts.TakeoverManagers are noted in journal.
func NewChildren(kube kubernetes.Interface, c *caches.Caches, opts Options, journal *events.Journal) *Children {
	return &Children{
		Deployments: newChild("Deployment", "apps/v1", c, opts, journal, kube.AppsV1().Deployments, appsv1ac.ExtractDeployment),
		Services:    newChild("Service", "v1", c, opts, journal, kube.CoreV1().Services, corev1ac.ExtractService),
		ServiceAccounts: newChild("ServiceAccount", "v1", c, opts, journal,
			kube.CoreV1().ServiceAccounts, corev1ac.ExtractServiceAccount),
		Ingresses: newChild("Ingress", "networking.k8s.io/v1", c, opts, journal,
			kube.NetworkingV1().Ingresses, networkingv1ac.ExtractIngress),
		// Generated and CA bundle ConfigMaps carry the ogx.io/watch label, so
		// the watched ConfigMap cache holds them.
		ConfigMaps: newChild("ConfigMap", "v1", c, opts, journal, kube.CoreV1().ConfigMaps, corev1ac.ExtractConfigMap),
	}
}

// Kind declares a child kind that only its own controller reads, in that
// controller's package, so adding one touches no shared file
// (docs/architecture.md, Adding a child kind). O is its typed object, AC
// its apply configuration.
type Kind[O apply.ChildObject, AC any] struct {
	// Kind and APIVersion name it in apply configurations, Events and
	// errors.
	Kind, APIVersion string
	// Informer is the kind's NewFiltered...Informer from client-go's
	// informers packages, with which the caches make its informer.
	Informer caches.NewFilteredInformer
	// Client picks its typed client for a namespace.
	Client func(kube kubernetes.Interface, namespace string) TypedClient[O, AC]
	// Extract is client-go's Extract function of the kind.
	Extract func(O, string) (AC, error)
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
	d.Caches.AddChildKind(k.Kind, k.Informer, caches.ViewOf(k.Extract))
	child := newChild(k.Kind, k.APIVersion, d.Caches, d.Opts, d.Events.Journal(),
		func(ns string) TypedClient[O, AC] { return k.Client(d.Kube, ns) }, k.Extract)
	d.Owned = append(d.Owned, OwnedSource{Kind: k.Kind, APIVersion: k.APIVersion, Observe: child.Observe})
	return child
}

// Source returns the watched-sources function of a kind registered with
// RegisterKind: its own informer's events start the controller's passes.
func Source(kind string) func(*caches.Sources) []*caches.Source {
	return func(w *caches.Sources) []*caches.Source { return []*caches.Source{w.Owned[kind]} }
}
