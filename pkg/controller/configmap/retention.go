package configmap

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/klog/v2"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

// minGeneratedKept is how many generated ConfigMaps are always kept, so a
// rollback to the previous config stays possible.
const minGeneratedKept = 2

// collectGenerated deletes superseded generated ConfigMaps of an OGXServer,
// oldest first, keeping at least two and any that is current, named in status
// or mounted by the Deployment or one of its ReplicaSets (docs/children.md,
// Config retention). Errors are logged, never returned: collection must not
// fail a pass. The ReplicaSets are listed live only when the cached facts
// still leave one to delete: the LIST can only protect more.
func collectGenerated(ctx context.Context, d *base.Deps, s *ogxv1beta1.OGXServer, current string) {
	candidates := generatedOf(d, s)
	protected := protectedByCache(d, s, current)
	if len(candidates) <= keptOf(candidates, protected) {
		return
	}
	if err := markReplicaSetMounts(ctx, d, s, protected); err != nil {
		// Without the ReplicaSets we cannot tell what is still mounted.
		klog.FromContext(ctx).Error(err, "Listing ReplicaSets for config retention")
		return
	}
	deleteOldest(ctx, d, s, candidates, protected)
}

// generatedOf lists the cached generated ConfigMaps this OGXServer controls.
func generatedOf(d *base.Deps, s *ogxv1beta1.OGXServer) []*corev1.ConfigMap {
	sel := labels.SelectorFromSet(labels.Set{render.LabelGeneratedConfig: "true", render.LabelInstance: s.Name})
	cached, err := d.Caches.For(s.Namespace).ConfigMaps.ConfigMaps(s.Namespace).List(sel)
	if err != nil {
		return nil
	}
	var out []*corev1.ConfigMap
	for _, cm := range cached {
		if metav1.IsControlledBy(cm, s) {
			out = append(out, cm)
		}
	}
	return out
}

// protectedByCache is what the caches say must stay: the current ConfigMap,
// the one status names and the one the cached Deployment's template mounts.
func protectedByCache(d *base.Deps, s *ogxv1beta1.OGXServer, current string) map[string]bool {
	protected := map[string]bool{}
	if current != "" {
		protected[current] = true
	}
	if g := s.Status.ConfigGeneration; g != nil && g.ConfigMapName != "" {
		protected[g.ConfigMapName] = true
	}
	if dep, ok := d.Children.Deployments.Current(s.Namespace, s.Name); ok {
		markMounted(protected, dep.Obj.Spec.Template.Spec.Volumes)
	}
	return protected
}

// keptOf is how many candidates stay: max(2, the protected ones).
func keptOf(candidates []*corev1.ConfigMap, protected map[string]bool) int {
	n := 0
	for _, cm := range candidates {
		if protected[cm.Name] {
			n++
		}
	}
	return max(minGeneratedKept, n)
}

// markReplicaSetMounts protects what any ReplicaSet of the server mounts (a
// live LIST by the selector labels; see collectGenerated for why).
func markReplicaSetMounts(ctx context.Context, d *base.Deps, s *ogxv1beta1.OGXServer, protected map[string]bool) error {
	sel := labels.SelectorFromSet(labels.Set{render.LabelApp: render.AppValue, render.LabelInstance: s.Name}).String()
	list, err := d.Kube.AppsV1().ReplicaSets(s.Namespace).List(ctx, metav1.ListOptions{LabelSelector: sel})
	if err != nil {
		return fmt.Errorf("listing ReplicaSets of %s/%s: %w", s.Namespace, s.Name, err)
	}
	for i := range list.Items {
		markMounted(protected, list.Items[i].Spec.Template.Spec.Volumes)
	}
	return nil
}

// deleteOldest deletes unprotected candidates, oldest first (creation time,
// then name), with a UID precondition, until keptOf remain, and reports them
// in one Event.
func deleteOldest(ctx context.Context, d *base.Deps, s *ogxv1beta1.OGXServer, candidates []*corev1.ConfigMap, protected map[string]bool) {
	keep := keptOf(candidates, protected)
	slices.SortFunc(candidates, func(a, b *corev1.ConfigMap) int {
		return cmp.Or(a.CreationTimestamp.Compare(b.CreationTimestamp.Time), cmp.Compare(a.Name, b.Name))
	})
	remaining := len(candidates)
	var deleted []string
	for _, cm := range candidates {
		if remaining <= keep {
			break
		}
		if protected[cm.Name] {
			continue
		}
		uid := cm.UID
		err := d.Kube.CoreV1().ConfigMaps(s.Namespace).Delete(ctx, cm.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
		if err != nil && !apierrors.IsNotFound(err) {
			klog.FromContext(ctx).Error(err, "Deleting superseded generated ConfigMap", "name", cm.Name)
			continue
		}
		remaining--
		deleted = append(deleted, cm.Name)
	}
	if len(deleted) > 0 {
		d.Events.Normal(s, ogxv1beta1.EventConfigGarbageCollected, fmt.Sprintf("Deleted superseded generated ConfigMaps: %s", strings.Join(deleted, ", ")))
	}
}

// markMounted protects every ConfigMap mounted as user-config.
func markMounted(protected map[string]bool, vols []corev1.Volume) {
	for _, v := range vols {
		if v.Name == render.VolumeUserConfig && v.ConfigMap != nil {
			protected[v.ConfigMap.Name] = true
		}
	}
}
