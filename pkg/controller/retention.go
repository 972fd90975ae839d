package controller

import (
	"context"
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/klog/v2"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/render"
)

// minGeneratedKept is how many generated ConfigMaps are always kept, so a
// rollback to the previous config stays possible.
const minGeneratedKept = 2

// collectGenerated deletes superseded generated ConfigMaps of an OGXServer
// (docs/children.md, Config retention). It never deletes the current one, the
// one status names, or one that the Deployment or any of its ReplicaSets still
// mounts, keeps at least two, and deletes the oldest first. Errors are logged,
// never returned: collection must not fail a pass.
func (c *ConfigMapController) collectGenerated(ctx context.Context, s *ogxv1beta1.OGXServer, current string) {
	logger := klog.FromContext(ctx)
	sc := c.d.caches.For(s.Namespace)
	sel := labels.SelectorFromSet(labels.Set{render.LabelGeneratedConfig: "true", render.LabelInstance: s.Name})
	cached, err := sc.configMaps.ConfigMaps(s.Namespace).List(sel)
	if err != nil {
		return
	}
	var candidates []*corev1.ConfigMap
	for _, cm := range cached {
		if ref := metav1.GetControllerOfNoCopy(cm); ref != nil && ref.UID == s.UID {
			candidates = append(candidates, cm)
		}
	}
	if len(candidates) <= minGeneratedKept {
		return
	}
	protected := map[string]bool{}
	if current != "" {
		protected[current] = true
	}
	if g := s.Status.ConfigGeneration; g != nil && g.ConfigMapName != "" {
		protected[g.ConfigMapName] = true
	}
	if d, err := sc.deployments.Deployments(s.Namespace).Get(s.Name); err == nil {
		markMounted(protected, d.Spec.Template.Spec.Volumes)
	}
	rsSel := labels.SelectorFromSet(labels.Set{render.LabelApp: render.AppValue, render.LabelInstance: s.Name}).String()
	rsList, err := c.d.kube.AppsV1().ReplicaSets(s.Namespace).List(ctx, metav1.ListOptions{LabelSelector: rsSel})
	if err != nil {
		// Without the ReplicaSets we cannot tell what is still mounted.
		logger.Error(err, "Listing ReplicaSets for config retention")
		return
	}
	for i := range rsList.Items {
		markMounted(protected, rsList.Items[i].Spec.Template.Spec.Volumes)
	}
	nProtected := 0
	for _, cm := range candidates {
		if protected[cm.Name] {
			nProtected++
		}
	}
	keep := max(minGeneratedKept, nProtected)
	sort.Slice(candidates, func(i, j int) bool {
		a, b := candidates[i], candidates[j]
		if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
			return a.CreationTimestamp.Before(&b.CreationTimestamp)
		}
		return a.Name < b.Name
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
		err := c.d.kube.CoreV1().ConfigMaps(s.Namespace).Delete(ctx, cm.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
		if err != nil && !apierrors.IsNotFound(err) {
			logger.Error(err, "Deleting superseded generated ConfigMap", "name", cm.Name)
			continue
		}
		remaining--
		deleted = append(deleted, cm.Name)
	}
	if len(deleted) > 0 {
		c.d.events.normal(s, "ConfigGarbageCollected", fmt.Sprintf("Deleted superseded generated ConfigMaps: %s", strings.Join(deleted, ", ")))
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
