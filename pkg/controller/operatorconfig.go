package controller

import (
	"context"
	"strings"
	"sync"
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

// operatorConfigEvents: image overrides that cannot be used are reported
// on the operator ConfigMap itself, once per content change, and its image
// overrides affect every OGXServer. Handlers have no context to log with,
// so they only signal watchOperatorConfig.
func (m *Manager) operatorConfigEvents() []cache.ResourceEventHandler {
	changed := func() {
		select {
		case m.operatorConfigChanged <- struct{}{}:
		default:
		}
	}
	return []cache.ResourceEventHandler{
		cache.ResourceEventHandlerFuncs{
			AddFunc: func(any) { changed() },
			UpdateFunc: func(old, cur any) {
				if caches.DataOrLabelsChanged(old, cur) {
					changed()
				}
			},
		},
		caches.Handler(m.allServers, caches.DataOrLabelsChanged, m.configMap.Enqueue, m.deployment.Enqueue, m.status.Enqueue),
	}
}

// watchOperatorConfig checks the operator ConfigMap's image overrides
// whenever its informer reports a change, until ctx is done. Every replica
// runs it, so each logs the problems; only the leader's Events are sent.
func (m *Manager) watchOperatorConfig(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-m.operatorConfigChanged:
			m.checkOperatorConfig(ctx)
		}
	}
}

// checkOperatorConfig checks the cached operator ConfigMap's image
// overrides, if it exists.
func (m *Manager) checkOperatorConfig(ctx context.Context) {
	if cm, err := m.Caches.OperatorConfigMap.ConfigMaps(m.Opts.OperatorNamespace).Get(render.OperatorConfigMapName); err == nil {
		m.checkImageOverrides(ctx, cm)
	}
}

// checkImageOverrides reports the operator ConfigMap's image-overrides
// entries that cannot be used: invalid YAML, an entry that is not an image
// reference, or one naming no distribution (all of them ignored). The
// problems are logged once per distinct set, however often this runs (each
// content change, and again when the replica starts leading), and named in
// an InvalidImageOverrides Event each time it runs.
func (m *Manager) checkImageOverrides(ctx context.Context, cm *corev1.ConfigMap) {
	overrides, problems := resolve.ImageOverrides(cm.Data[render.ImageOverridesKey])
	problems = append(problems, m.Resolver.Table.UnknownOverrides(overrides)...)
	if m.overridesCause.changed(strings.Join(problems, "; ")) {
		klog.FromContext(ctx).Info("Ignoring image overrides that cannot be used", "configMap", klog.KObj(cm), "problems", problems)
	}
	if len(problems) == 0 {
		return
	}
	m.Events.EmitFor(corev1.ObjectReference{APIVersion: "v1", Kind: "ConfigMap", Namespace: cm.Namespace, Name: cm.Name,
		UID: cm.UID, ResourceVersion: cm.ResourceVersion}, corev1.EventTypeWarning, ogxv1beta1.EventInvalidImageOverrides, "Reconcile",
		strings.Join(problems, "; "))
}

// lastCause is the cause last logged about something the process has one
// of (the operator ConfigMap), so that it is logged once per cause; the
// per-server counterpart is base.CauseLog.
type lastCause struct {
	mu    sync.Mutex
	cause string
}

// changed records cause and reports whether it is new and not empty; an
// empty cause (fixed) lets the same cause be logged again if it returns.
func (l *lastCause) changed(cause string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cause == cause {
		return false
	}
	l.cause = cause
	return cause != ""
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
