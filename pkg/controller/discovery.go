package controller

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	"k8s.io/klog/v2"
)

// Group versions and resources of the optional APIs (controller spec §1.10).
const (
	monitoringGroupVersion = "monitoring.coreos.com/v1"
	openshiftSecurityGV    = "security.openshift.io/v1"
)

// servesAll reports whether the group version lists every resource; a
// discovery error counts as "not served" and is retried at the next check.
func servesAll(d discovery.DiscoveryInterface, gv string, resources ...string) bool {
	list, err := d.ServerResourcesForGroupVersion(gv)
	if err != nil {
		return false
	}
	have := map[string]bool{}
	for _, r := range list.APIResources {
		have[r.Name] = true
	}
	for _, r := range resources {
		if !have[r] {
			return false
		}
	}
	return true
}

// discover checks the optional APIs once and reports whether either result
// changed. It asks the server each time (no cached discovery), so a CRD
// installed after start is seen.
func (a *optionalAPIs) discover(d discovery.DiscoveryInterface) (changed bool) {
	mon := servesAll(d, monitoringGroupVersion, "servicemonitors", "prometheusrules")
	osh := servesAll(d, openshiftSecurityGV, "securitycontextconstraints")
	changed = a.monitoring.Swap(mon) != mon
	changed = a.openshift.Swap(osh) != osh || changed
	return changed
}

// watchOptionalAPIs re-checks the optional APIs every interval and, when a
// result flips, enqueues every OGXServer for the controllers they gate.
func (m *Manager) watchOptionalAPIs(ctx context.Context, interval time.Duration) {
	wait.UntilWithContext(ctx, func(ctx context.Context) {
		changed := m.resolver.apis.discover(m.kube.Discovery())
		// Starts or stops the dynamic informers; once they have synced (or
		// stopped) every OGXServer is enqueued for the monitoring controller.
		m.monitoring.SetAPIServed(ctx, m.resolver.apis.monitoring.Load())
		if changed {
			klog.FromContext(ctx).Info("Optional APIs changed",
				"monitoring", m.resolver.apis.monitoring.Load(), "openshiftSecurity", m.resolver.apis.openshift.Load())
			for _, s := range m.caches.Servers() {
				key := Key(s.Namespace, s.Name)
				m.deployment.Enqueue(key)
				m.status.Enqueue(key)
			}
		}
	}, interval)
}
