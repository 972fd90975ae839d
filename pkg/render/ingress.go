package render

import (
	networkingv1 "k8s.io/api/networking/v1"
	networkingv1ac "k8s.io/client-go/applyconfigurations/networking/v1"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

// Ingress renders N-ingress (docs/children.md, Ingress). Annotations and
// ingressClassName are deliberately not rendered: they belong to the user
// (for example a backend-protocol annotation for a TLS backend) and survive
// the applies because ogx-controller never owns them.
func Ingress(s *ogxv1beta1.OGXServer, _ *Inputs) *networkingv1ac.IngressApplyConfiguration {
	var host string
	if n := s.Spec.Network; n != nil && n.ExternalAccess != nil {
		host = n.ExternalAccess.Hostname
	}
	rule := networkingv1ac.IngressRule()
	if host != "" {
		rule.WithHost(host)
	}
	rule.WithHTTP(networkingv1ac.HTTPIngressRuleValue().WithPaths(
		networkingv1ac.HTTPIngressPath().
			WithPath("/").
			WithPathType(networkingv1.PathTypePrefix).
			WithBackend(networkingv1ac.IngressBackend().WithService(
				networkingv1ac.IngressServiceBackend().
					WithName(ServiceName(s.Name)).
					WithPort(networkingv1ac.ServiceBackendPort().WithNumber(s.Spec.Port()))))))
	spec := networkingv1ac.IngressSpec().WithRules(rule)
	if t := s.Spec.ServerTLS(); t != nil {
		tls := networkingv1ac.IngressTLS()
		if host != "" {
			tls.WithHosts(host)
		}
		spec.WithTLS(tls.WithSecretName(t.SecretName))
	}
	return networkingv1ac.Ingress(IngressName(s.Name), s.Namespace).
		WithLabels(IngressLabels(s.Name)).
		WithOwnerReferences(ownerRefs(s)...).
		WithSpec(spec)
}
