package render

import (
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	networkingv1ac "k8s.io/client-go/applyconfigurations/networking/v1"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

// Namespaces and labels of the cluster DNS servers the DNS egress rule
// admits: kube-dns/CoreDNS on Kubernetes, the openshift-dns namespace on
// OpenShift.
const (
	kubeSystemNamespace   = "kube-system"
	kubeDNSAppLabel       = "k8s-app"
	kubeDNSAppValue       = "kube-dns"
	openShiftDNSNamespace = "openshift-dns"
	policyGroupIngress    = "ingress"
	policyGroupMonitoring = "monitoring"
)

// NetworkPolicy renders N-network-policy (docs/children.md, NetworkPolicy).
//
// The default ingress rules always come first, whatever the user adds: rule A
// admits the server port from this namespace, the controller's namespace (the
// status probe) and the OpenShift router; rule B admits the metrics port from
// the OpenShift monitoring stack. Whenever egress is enforced a DNS rule is
// appended after the user's egress rules, so that enforcing egress never
// breaks name resolution. Rules for a direction that policyTypes does not
// enforce are not rendered: the API server would store them without effect.
// User ports without a protocol get protocol TCP, the API server's default,
// because the rule lists are atomic (see convert.go).
func NetworkPolicy(s *ogxv1beta1.OGXServer, in *Inputs) *networkingv1ac.NetworkPolicyApplyConfiguration {
	in = orZero(in)
	spec := &s.Spec
	var user ogxv1beta1.NetworkPolicySpec
	if spec.Network != nil && spec.Network.Policy != nil {
		user = *spec.Network.Policy.DeepCopy()
	}
	ingressOn, egressOn := policyTypes(&user)

	np := networkingv1ac.NetworkPolicySpec().
		WithPodSelector(metav1ac.LabelSelector().WithMatchLabels(SelectorLabels(s.Name)))
	if ingressOn {
		np.WithPolicyTypes(networkingv1.PolicyTypeIngress)
	}
	if egressOn {
		np.WithPolicyTypes(networkingv1.PolicyTypeEgress)
	}

	if ingressOn {
		np.WithIngress(ingressRules(spec, &user, in.OperatorNamespace)...)
	}
	if egressOn {
		np.WithEgress(egressRules(&user)...)
	}

	return networkingv1ac.NetworkPolicy(NetworkPolicyName(s.Name), s.Namespace).
		WithLabels(ChildLabels()).
		WithOwnerReferences(ownerRefs(s)...).
		WithSpec(np)
}

// ingressRules are the enforced ingress rules: the server port from pods of
// its namespace, the operator's namespace and the OpenShift ingress
// controllers; the metrics port from the OpenShift monitoring stack when
// monitoring is on; then the user's rules.
func ingressRules(spec *ogxv1beta1.OGXServerSpec, user *ogxv1beta1.NetworkPolicySpec, operatorNamespace string) []*networkingv1ac.NetworkPolicyIngressRuleApplyConfiguration {
	rules := []*networkingv1ac.NetworkPolicyIngressRuleApplyConfiguration{networkingv1ac.NetworkPolicyIngressRule().
		WithPorts(policyPort(corev1.ProtocolTCP, spec.Port())).
		WithFrom(
			networkingv1ac.NetworkPolicyPeer().WithPodSelector(metav1ac.LabelSelector()),
			namespacePeer(LabelKubernetesName, operatorNamespace),
			namespacePeer(LabelOpenShiftPolicyGroup, policyGroupIngress),
		)}
	if spec.MonitoringEnabled() {
		rules = append(rules, networkingv1ac.NetworkPolicyIngressRule().
			WithPorts(policyPort(corev1.ProtocolTCP, spec.MetricsPort())).
			WithFrom(namespacePeer(LabelOpenShiftPolicyGroup, policyGroupMonitoring)))
	}
	for i := range user.Ingress {
		defaultPolicyPorts(user.Ingress[i].Ports)
		rules = append(rules, toApply[networkingv1ac.NetworkPolicyIngressRuleApplyConfiguration](&user.Ingress[i]))
	}
	return rules
}

// egressRules are the user's egress rules followed by the DNS rule.
func egressRules(user *ogxv1beta1.NetworkPolicySpec) []*networkingv1ac.NetworkPolicyEgressRuleApplyConfiguration {
	var rules []*networkingv1ac.NetworkPolicyEgressRuleApplyConfiguration
	for i := range user.Egress {
		defaultPolicyPorts(user.Egress[i].Ports)
		rules = append(rules, toApply[networkingv1ac.NetworkPolicyEgressRuleApplyConfiguration](&user.Egress[i]))
	}
	return append(rules, networkingv1ac.NetworkPolicyEgressRule().
		WithTo(
			networkingv1ac.NetworkPolicyPeer().
				WithNamespaceSelector(metav1ac.LabelSelector().WithMatchLabels(map[string]string{LabelKubernetesName: kubeSystemNamespace})).
				WithPodSelector(metav1ac.LabelSelector().WithMatchLabels(map[string]string{kubeDNSAppLabel: kubeDNSAppValue})),
			namespacePeer(LabelKubernetesName, openShiftDNSNamespace),
		).
		WithPorts(
			policyPort(corev1.ProtocolUDP, 53),
			policyPort(corev1.ProtocolTCP, 53),
			policyPort(corev1.ProtocolUDP, 5353),
			policyPort(corev1.ProtocolTCP, 5353),
		))
}

// policyTypes decides the enforced directions: the user's list when given
// (in the canonical order Ingress, Egress, duplicates ignored), else Ingress,
// plus Egress when egress rules exist, which is also what the API server
// would default.
func policyTypes(p *ogxv1beta1.NetworkPolicySpec) (ingress, egress bool) {
	if len(p.PolicyTypes) == 0 {
		return true, len(p.Egress) > 0
	}
	for _, t := range p.PolicyTypes {
		switch t {
		case networkingv1.PolicyTypeIngress:
			ingress = true
		case networkingv1.PolicyTypeEgress:
			egress = true
		}
	}
	return ingress, egress
}

func policyPort(proto corev1.Protocol, port int32) *networkingv1ac.NetworkPolicyPortApplyConfiguration {
	return networkingv1ac.NetworkPolicyPort().WithProtocol(proto).WithPort(intstr.FromInt32(port))
}

func namespacePeer(key, value string) *networkingv1ac.NetworkPolicyPeerApplyConfiguration {
	return networkingv1ac.NetworkPolicyPeer().
		WithNamespaceSelector(metav1ac.LabelSelector().WithMatchLabels(map[string]string{key: value}))
}
