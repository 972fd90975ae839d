package status

import (
	"cmp"
	"fmt"
	"slices"

	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/labels"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

// versionStatus: operatorVersion from the process, serverVersion kept when
// the probe did not tell; lastUpdated moves only when either changes.
func versionStatus(in statusInputs) ogxv1beta1.VersionInfo {
	old := in.server.Status.Version
	v := old
	v.OperatorVersion = in.operatorVersion
	if in.probe != nil && in.probe.Version != "" {
		v.ServerVersion = in.probe.Version
	}
	if v.OperatorVersion != old.OperatorVersion || v.ServerVersion != old.ServerVersion {
		v.LastUpdated = in.now
	}
	return v
}

// setDistribution fills the active and available distributions and the
// resolved image.
func setDistribution(in statusInputs, st *ogxv1beta1.OGXServerStatus) {
	s := in.server
	st.DistributionConfig.ActiveDistribution = s.Spec.DistributionName()
	if s.Spec.Distribution.Image != nil {
		st.DistributionConfig.ActiveDistribution = ogxv1beta1.ActiveDistributionCustom
	}
	st.DistributionConfig.AvailableDistributions = map[string]string(in.table)
	if in.image != "" {
		st.ResolvedDistribution = &ogxv1beta1.ResolvedDistribution{Image: in.image, ConfigSource: in.configSource,
			ConfigHash: in.configHash, LastHandledRecheck: in.lastHandledRecheck}
	}
}

// setEndpoints fills the replica counts and selector, the URLs and the
// providers the probe reported (only while a replica is available).
func setEndpoints(in statusInputs, st *ogxv1beta1.OGXServerStatus) {
	s, d := in.server, in.deployment
	if d != nil {
		st.AvailableReplicas = d.Status.AvailableReplicas
		st.Replicas = d.Status.Replicas
		st.Selector = podSelector(s)
	}
	if in.serviceExists {
		st.ServiceURL = serviceURL(s, in.clusterDomain)
	}
	st.ExternalURL = externalURL(s, in.ingress)
	if in.probe != nil && d != nil && d.Status.AvailableReplicas > 0 {
		st.DistributionConfig.Providers = in.probe.Providers
	}
}

// podSelector is the scale subresource's status.selector: the Deployment's
// selector in its serialized form. It is the selector every Deployment of
// ours is applied with, immutable once created, so it is derived here rather
// than kept in the Deployment cache, whose view drops the selector
// (docs/performance.md, Memory).
func podSelector(s *ogxv1beta1.OGXServer) string {
	return labels.SelectorFromSet(render.SelectorLabels(s.Name)).String()
}

// serviceURL is where the server answers in the cluster: its Service, over
// https when server TLS is on.
func serviceURL(s *ogxv1beta1.OGXServer, clusterDomain string) string {
	scheme := "http"
	if s.Spec.ServerTLS() != nil {
		scheme = "https"
	}
	return fmt.Sprintf("%s://%s.%s.svc.%s:%d", scheme, render.ServiceName(s.Name), s.Namespace, clusterDomain, s.Spec.Port())
}

// externalURL is nil without external access, "" until an address is
// known, else <scheme>://<host>: the configured hostname, else the
// load balancer's hostname or IP; https when a TLS entry covers the host.
func externalURL(s *ogxv1beta1.OGXServer, ing *networkingv1.Ingress) *string {
	if !s.Spec.ExternalAccessEnabled() {
		return nil
	}
	url := ""
	if ing == nil {
		return &url
	}
	host := s.Spec.Network.ExternalAccess.Hostname
	for _, lb := range ing.Status.LoadBalancer.Ingress {
		if host == "" {
			host = cmp.Or(lb.Hostname, lb.IP)
		}
	}
	if host == "" {
		return &url
	}
	scheme := "http"
	for _, t := range ing.Spec.TLS {
		if len(t.Hosts) == 0 || slices.Contains(t.Hosts, host) {
			scheme = "https"
		}
	}
	url = scheme + "://" + host
	return &url
}
