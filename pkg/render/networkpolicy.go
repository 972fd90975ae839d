package render

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	networkingv1ac "k8s.io/client-go/applyconfigurations/networking/v1"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

// The peers the NetworkPolicy names besides the user's: the cluster DNS
// servers (kube-dns/CoreDNS on Kubernetes, the openshift-dns namespace on
// OpenShift) and OpenShift's router and monitoring namespaces, selected by
// their policy group.
const (
	kubeSystemNamespace       = "kube-system"
	kubeDNSAppLabel           = "k8s-app"
	kubeDNSAppValue           = "kube-dns"
	openShiftDNSNamespace     = "openshift-dns"
	labelOpenShiftPolicyGroup = "network.openshift.io/policy-group"
	policyGroupIngress        = "ingress"
	policyGroupMonitoring     = "monitoring"
)

// NetworkPolicy renders N-network-policy (docs/children.md, NetworkPolicy).
// The default rules come first whatever the user adds, and the DNS egress rule
// keeps enforced egress from breaking name resolution. Rules of a direction
// that is not enforced are not rendered: the API server would store them
// without effect.
func NetworkPolicy(s *ogxv1beta1.OGXServer, in *Inputs) *networkingv1ac.NetworkPolicyApplyConfiguration {
	in = orZero(in)
	spec := &s.Spec
	var user ogxv1beta1.NetworkPolicySpec
	if spec.Network != nil && spec.Network.Policy != nil {
		user = *spec.Network.Policy.DeepCopy()
	}
	np := networkingv1ac.NetworkPolicySpec().
		WithPodSelector(metav1ac.LabelSelector().WithMatchLabels(SelectorLabels(s.Name)))
	ingressOn, egressOn := policyTypes(&user)
	if ingressOn {
		np.WithPolicyTypes(networkingv1.PolicyTypeIngress).WithIngress(ingressRules(spec, &user, in.OperatorNamespace)...)
	}
	if egressOn {
		np.WithPolicyTypes(networkingv1.PolicyTypeEgress).WithEgress(egressRules(&user)...)
	}
	return networkingv1ac.NetworkPolicy(NetworkPolicyName(s.Name), s.Namespace).
		WithLabels(ChildLabels()).
		WithOwnerReferences(ownerRefs(s)...).
		WithSpec(np)
}

// ingressRules are the enforced ingress rules: the server port from pods of
// its namespace, the operator's namespace (the status probe) and the OpenShift
// router; the metrics port from OpenShift monitoring when monitoring is on;
// then the user's rules, their ports defaulted as the lists are atomic.
func ingressRules(spec *ogxv1beta1.OGXServerSpec, user *ogxv1beta1.NetworkPolicySpec, operatorNamespace string) []*networkingv1ac.NetworkPolicyIngressRuleApplyConfiguration {
	rules := []*networkingv1ac.NetworkPolicyIngressRuleApplyConfiguration{networkingv1ac.NetworkPolicyIngressRule().
		WithPorts(policyPort(corev1.ProtocolTCP, spec.Port())).
		WithFrom(
			networkingv1ac.NetworkPolicyPeer().WithPodSelector(metav1ac.LabelSelector()),
			namespacePeer(corev1.LabelMetadataName, operatorNamespace),
			namespacePeer(labelOpenShiftPolicyGroup, policyGroupIngress),
		)}
	if spec.MonitoringEnabled() {
		rules = append(rules, networkingv1ac.NetworkPolicyIngressRule().
			WithPorts(policyPort(corev1.ProtocolTCP, spec.MetricsPort())).
			WithFrom(namespacePeer(labelOpenShiftPolicyGroup, policyGroupMonitoring)))
	}
	for i := range user.Ingress {
		defaultPolicyPorts(user.Ingress[i].Ports)
		rules = append(rules, viaJSON[networkingv1ac.NetworkPolicyIngressRuleApplyConfiguration](&user.Ingress[i]))
	}
	return rules
}

// egressRules are the user's egress rules followed by the DNS rule.
func egressRules(user *ogxv1beta1.NetworkPolicySpec) []*networkingv1ac.NetworkPolicyEgressRuleApplyConfiguration {
	var rules []*networkingv1ac.NetworkPolicyEgressRuleApplyConfiguration
	for i := range user.Egress {
		defaultPolicyPorts(user.Egress[i].Ports)
		rules = append(rules, viaJSON[networkingv1ac.NetworkPolicyEgressRuleApplyConfiguration](&user.Egress[i]))
	}
	return append(rules, networkingv1ac.NetworkPolicyEgressRule().
		WithTo(
			networkingv1ac.NetworkPolicyPeer().
				WithNamespaceSelector(metav1ac.LabelSelector().WithMatchLabels(map[string]string{corev1.LabelMetadataName: kubeSystemNamespace})).
				WithPodSelector(metav1ac.LabelSelector().WithMatchLabels(map[string]string{kubeDNSAppLabel: kubeDNSAppValue})),
			namespacePeer(corev1.LabelMetadataName, openShiftDNSNamespace),
		).
		WithPorts(
			policyPort(corev1.ProtocolUDP, 53),
			policyPort(corev1.ProtocolTCP, 53),
			policyPort(corev1.ProtocolUDP, 5353),
			policyPort(corev1.ProtocolTCP, 5353),
		))
}

// policyTypes decides the enforced directions: the user's list when given
// (duplicates ignored), else Ingress, plus Egress when egress rules exist,
// which is also what the API server would default.
func policyTypes(p *ogxv1beta1.NetworkPolicySpec) (ingress, egress bool) {
	if len(p.PolicyTypes) == 0 {
		return true, len(p.Egress) > 0
	}
	return slices.Contains(p.PolicyTypes, networkingv1.PolicyTypeIngress),
		slices.Contains(p.PolicyTypes, networkingv1.PolicyTypeEgress)
}

func policyPort(proto corev1.Protocol, port int32) *networkingv1ac.NetworkPolicyPortApplyConfiguration {
	return networkingv1ac.NetworkPolicyPort().WithProtocol(proto).WithPort(intstr.FromInt32(port))
}

func namespacePeer(key, value string) *networkingv1ac.NetworkPolicyPeerApplyConfiguration {
	return networkingv1ac.NetworkPolicyPeer().
		WithNamespaceSelector(metav1ac.LabelSelector().WithMatchLabels(map[string]string{key: value}))
}
