package base

import (
	"slices"
	"sync/atomic"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"
)

// Group versions and resources of the optional APIs (docs/controllers.md,
// Optional APIs).
const (
	MonitoringGroupVersion = "monitoring.coreos.com/v1"
	OpenShiftSecurityGV    = "security.openshift.io/v1"
)

// OptionalAPIs records what discovery last found (docs/controllers.md,
// Optional APIs).
type OptionalAPIs struct {
	Monitoring atomic.Bool
	OpenShift  atomic.Bool
}

// servesAll reports whether the group version lists every resource; a
// discovery error counts as "not served" and is retried at the next check.
func servesAll(d discovery.DiscoveryInterface, gv string, resources ...string) bool {
	list, err := d.ServerResourcesForGroupVersion(gv)
	if err != nil {
		return false
	}
	for _, r := range resources {
		if !slices.ContainsFunc(list.APIResources, func(a metav1.APIResource) bool { return a.Name == r }) {
			return false
		}
	}
	return true
}

// Discover checks the optional APIs once and reports whether either result
// changed. It asks the server each time (no cached discovery), so a CRD
// installed after start is seen.
func (a *OptionalAPIs) Discover(d discovery.DiscoveryInterface) (changed bool) {
	mon := servesAll(d, MonitoringGroupVersion, "servicemonitors", "prometheusrules")
	osh := servesAll(d, OpenShiftSecurityGV, "securitycontextconstraints")
	changed = a.Monitoring.Swap(mon) != mon
	changed = a.OpenShift.Swap(osh) != osh || changed
	return changed
}
