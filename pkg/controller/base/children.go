package base

import (
	"context"
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	networkingv1ac "k8s.io/client-go/applyconfigurations/networking/v1"
	rbacv1ac "k8s.io/client-go/applyconfigurations/rbac/v1"
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
func newChild[O metav1.Object, AC any](kind, apiVersion string, c *caches.Caches, takeover []string, journal *events.Journal,
	client func(ns string) TypedClient[O, AC],
	extract func(O, string) (AC, error),
) *apply.Child[O, AC] {
	gv, _ := schema.ParseGroupVersion(apiVersion)
	// Every pass of every server looks up children that do not exist
	// (optional kinds, a Service not created yet): one NotFound error per
	// kind, not one formatted per lookup as the generated listers do.
	// Callers only test it with IsNotFound; it carries no name.
	notFound := apierrors.NewNotFound(schema.GroupResource{Group: gv.Group, Resource: strings.ToLower(kind)}, "")
	return &apply.Child[O, AC]{
		Kind:       kind,
		APIVersion: apiVersion,
		Metrics:    c.Metrics,
		Takeover:   takeover,
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
		Recent:             apply.NewRecentWrites[O](),
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

// The typed children several controllers read (a kind only its own
// controller reads is declared in that controller's package, RegisterKind).
type (
	DeploymentChild     = apply.Child[*appsv1.Deployment, *appsv1ac.DeploymentApplyConfiguration]
	ServiceChild        = apply.Child[*corev1.Service, *corev1ac.ServiceApplyConfiguration]
	ServiceAccountChild = apply.Child[*corev1.ServiceAccount, *corev1ac.ServiceAccountApplyConfiguration]
	RoleBindingChild    = apply.Child[*rbacv1.RoleBinding, *rbacv1ac.RoleBindingApplyConfiguration]
	IngressChild        = apply.Child[*networkingv1.Ingress, *networkingv1ac.IngressApplyConfiguration]
	ConfigMapChild      = apply.Child[*corev1.ConfigMap, *corev1ac.ConfigMapApplyConfiguration]
)

// Children holds one applier per shared child kind.
type Children struct {
	Deployments     *DeploymentChild
	Services        *ServiceChild
	ServiceAccounts *ServiceAccountChild
	RoleBindings    *RoleBindingChild
	Ingresses       *IngressChild
	ConfigMaps      *ConfigMapChild
}

// NewChildren wires the child kinds to their clients and caches; takeovers
// from the managers in takeover are noted in journal.
func NewChildren(kube kubernetes.Interface, c *caches.Caches, takeover []string, journal *events.Journal) *Children {
	return &Children{
		Deployments: newChild("Deployment", "apps/v1", c, takeover, journal,
			func(ns string) TypedClient[*appsv1.Deployment, *appsv1ac.DeploymentApplyConfiguration] {
				return kube.AppsV1().Deployments(ns)
			},
			appsv1ac.ExtractDeployment),
		Services: newChild("Service", "v1", c, takeover, journal,
			func(ns string) TypedClient[*corev1.Service, *corev1ac.ServiceApplyConfiguration] {
				return kube.CoreV1().Services(ns)
			},
			corev1ac.ExtractService),
		ServiceAccounts: newChild("ServiceAccount", "v1", c, takeover, journal,
			func(ns string) TypedClient[*corev1.ServiceAccount, *corev1ac.ServiceAccountApplyConfiguration] {
				return kube.CoreV1().ServiceAccounts(ns)
			},
			corev1ac.ExtractServiceAccount),
		RoleBindings: newChild("RoleBinding", "rbac.authorization.k8s.io/v1", c, takeover, journal,
			func(ns string) TypedClient[*rbacv1.RoleBinding, *rbacv1ac.RoleBindingApplyConfiguration] {
				return kube.RbacV1().RoleBindings(ns)
			},
			rbacv1ac.ExtractRoleBinding),
		Ingresses: newChild("Ingress", "networking.k8s.io/v1", c, takeover, journal,
			func(ns string) TypedClient[*networkingv1.Ingress, *networkingv1ac.IngressApplyConfiguration] {
				return kube.NetworkingV1().Ingresses(ns)
			},
			networkingv1ac.ExtractIngress),
		// Generated and CA bundle ConfigMaps carry the ogx.io/watch label, so
		// the watched ConfigMap cache holds them.
		ConfigMaps: newChild("ConfigMap", "v1", c, takeover, journal,
			func(ns string) TypedClient[*corev1.ConfigMap, *corev1ac.ConfigMapApplyConfiguration] {
				return kube.CoreV1().ConfigMaps(ns)
			},
			corev1ac.ExtractConfigMap),
	}
}
