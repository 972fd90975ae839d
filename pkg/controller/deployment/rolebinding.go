package deployment

import (
	"context"
	"errors"
	"slices"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	rbacv1ac "k8s.io/client-go/applyconfigurations/rbac/v1"
	rbacinformers "k8s.io/client-go/informers/rbac/v1"
	"k8s.io/client-go/kubernetes"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/apply"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
	"github.com/ogx-k8s/ogx-controller/pkg/resolve"
)

// roleBindingChild is the applier of N-rb.
type roleBindingChild = apply.Child[*rbacv1.RoleBinding, *rbacv1ac.RoleBindingApplyConfiguration]

// roleBindingKind is N-rb, the anyuid binding of N-sa. It is registered only
// with --server-any-uid (base.Options.ServerAnyUID): without it the
// operator neither caches nor writes RoleBindings, and its default RBAC
// holds no rule on them.
var roleBindingKind = base.Kind[*rbacv1.RoleBinding, *rbacv1ac.RoleBindingApplyConfiguration]{
	Kind: "RoleBinding", APIVersion: "rbac.authorization.k8s.io/v1",
	Informer: rbacinformers.NewFilteredRoleBindingInformer,
	Client: func(kube kubernetes.Interface, ns string) base.TypedClient[*rbacv1.RoleBinding, *rbacv1ac.RoleBindingApplyConfiguration] {
		return kube.RbacV1().RoleBindings(ns)
	},
	Extract: rbacv1ac.ExtractRoleBinding,
}

// convergeRoleBinding applies N-rb where render.WantRoleBinding holds; rb is
// nil when the kind is not registered, and then WantRoleBinding never holds.
func convergeRoleBinding(ctx context.Context, d *base.Deps, rb *roleBindingChild, s *ogxv1beta1.OGXServer, in *render.Inputs) error {
	if rb == nil || !render.WantRoleBinding(in) {
		return nil
	}
	name := render.RoleBindingName(s.Name)
	res, err := rb.Converge(ctx, s, name, render.RoleBinding(s, in))
	if roleRefChanged(err) {
		return resolve.NewUserError(ogxv1beta1.ReasonChildConflict,
			"RoleBinding %s/%s binds another role, and a RoleBinding's roleRef cannot change: delete it and ogx-controller creates it anew (it never deletes one itself)",
			s.Namespace, name)
	}
	if err != nil {
		return err
	}
	d.Events.Written(s, "RoleBinding", name, res)
	return nil
}

// roleRefChanged reports whether an apply of a RoleBinding was refused
// because the stored one binds another role: roleRef is immutable, so the
// API server answers 422 Invalid with a cause on roleRef.
func roleRefChanged(err error) bool {
	var status apierrors.APIStatus
	if !apierrors.IsInvalid(err) || !errors.As(err, &status) || status.Status().Details == nil {
		return false
	}
	return slices.ContainsFunc(status.Status().Details.Causes, func(c metav1.StatusCause) bool { return c.Field == "roleRef" })
}
