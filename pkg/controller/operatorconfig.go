package controller

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/klog/v2"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/render"
)

// ensureOperatorConfigMap makes sure the operator ConfigMap exists and carries
// the watch label (docs/controllers.md, Operator ConfigMap): it applies only
// the label, so the data users put there is never touched. The apply is
// skipped when the cached object already has the label; failures are retried
// every 30 s and are never fatal.
func (m *Manager) ensureOperatorConfigMap(ctx context.Context) {
	logger := klog.FromContext(ctx)
	wait.UntilWithContext(ctx, func(ctx context.Context) {
		cm, err := m.caches.operatorConfigMap.ConfigMaps(m.opts.OperatorNamespace).Get(render.OperatorConfigMapName)
		if err == nil && cm.Labels[ogxv1beta1.WatchLabel] == "true" {
			return
		}
		ac := corev1ac.ConfigMap(render.OperatorConfigMapName, m.opts.OperatorNamespace).
			WithLabels(map[string]string{ogxv1beta1.WatchLabel: "true"})
		if _, err := m.kube.CoreV1().ConfigMaps(m.opts.OperatorNamespace).Apply(ctx, ac, applyOptions()); err != nil {
			logger.Error(err, "Could not apply the operator ConfigMap; will retry", "name", render.OperatorConfigMapName)
			return
		}
		logger.Info("Applied the operator ConfigMap", "name", render.OperatorConfigMapName)
	}, 30*time.Second)
}
