package controller

import (
	"context"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/apply"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/caches"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
	"github.com/ogx-k8s/ogx-controller/pkg/resolve"
)

// ensureOperatorConfigMap makes sure the operator ConfigMap exists and carries
// the watch label (docs/controllers.md, Operator ConfigMap): it applies only
// the label, so the data users put there is never touched. The apply is
// skipped when the cached object already has the label; failures are retried
// every 30 s and are never fatal.
func (m *Manager) ensureOperatorConfigMap(ctx context.Context) {
	logger := klog.FromContext(ctx)
	wait.UntilWithContext(ctx, func(ctx context.Context) {
		cm, err := m.Caches.OperatorConfigMap.ConfigMaps(m.Opts.OperatorNamespace).Get(render.OperatorConfigMapName)
		if err == nil && cm.Labels[ogxv1beta1.WatchLabel] == "true" {
			return
		}
		ac := corev1ac.ConfigMap(render.OperatorConfigMapName, m.Opts.OperatorNamespace).
			WithLabels(map[string]string{ogxv1beta1.WatchLabel: "true"})
		if _, err := m.Kube.CoreV1().ConfigMaps(m.Opts.OperatorNamespace).Apply(ctx, ac, apply.ApplyOptions()); err != nil {
			logger.Error(err, "Could not apply the operator ConfigMap; will retry", "name", render.OperatorConfigMapName)
			return
		}
		logger.Info("Applied the operator ConfigMap", "name", render.OperatorConfigMapName)
	}, 30*time.Second)
}

// operatorConfigEvents: invalid image overrides are reported on the
// operator ConfigMap itself, once per content change, and its image
// overrides affect every OGXServer.
func (m *Manager) operatorConfigEvents() []cache.ResourceEventHandler {
	return []cache.ResourceEventHandler{
		cache.ResourceEventHandlerFuncs{
			AddFunc: func(obj any) { m.checkImageOverrides(obj) },
			UpdateFunc: func(old, cur any) {
				if caches.DataOrLabelsChanged(old, cur) {
					m.checkImageOverrides(cur)
				}
			},
		},
		caches.Handler(m.allServers, caches.DataOrLabelsChanged, m.configMap.Enqueue, m.deployment.Enqueue, m.status.Enqueue),
	}
}

// checkImageOverrides emits InvalidImageOverrides when the operator
// ConfigMap's image-overrides cannot be used (invalid YAML, or an entry that
// is not an image reference; such entries are ignored).
func (m *Manager) checkImageOverrides(obj any) {
	cm, ok := obj.(*corev1.ConfigMap)
	if !ok {
		return
	}
	_, problems := resolve.ImageOverrides(cm.Data[render.ImageOverridesKey])
	if len(problems) == 0 {
		return
	}
	m.Events.EmitFor(corev1.ObjectReference{APIVersion: "v1", Kind: "ConfigMap", Namespace: cm.Namespace, Name: cm.Name,
		UID: cm.UID, ResourceVersion: cm.ResourceVersion}, corev1.EventTypeWarning, ogxv1beta1.EventInvalidImageOverrides, "Reconcile",
		strings.Join(problems, "; "))
}

// allServers maps an object whose change concerns every server (the
// operator ConfigMap, the hash-key Secret) to every server's key.
func (m *Manager) allServers(metav1.Object) []string {
	var keys []string
	for _, s := range m.Caches.Servers() {
		keys = append(keys, caches.Key(s.Namespace, s.Name))
	}
	return keys
}
