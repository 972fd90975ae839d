package render

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

const (
	ruleA = `{"ports":[{"protocol":"TCP","port":8321}],"from":[
		{"podSelector":{}},
		{"namespaceSelector":{"matchLabels":{"kubernetes.io/metadata.name":"ogx-system"}}},
		{"namespaceSelector":{"matchLabels":{"network.openshift.io/policy-group":"ingress"}}}]}`
	ruleB = `{"ports":[{"protocol":"TCP","port":9464}],"from":[
		{"namespaceSelector":{"matchLabels":{"network.openshift.io/policy-group":"monitoring"}}}]}`
	dnsRule = `{"ports":[{"protocol":"UDP","port":53},{"protocol":"TCP","port":53},{"protocol":"UDP","port":5353},{"protocol":"TCP","port":5353}],"to":[
		{"podSelector":{"matchLabels":{"k8s-app":"kube-dns"}},"namespaceSelector":{"matchLabels":{"kubernetes.io/metadata.name":"kube-system"}}},
		{"namespaceSelector":{"matchLabels":{"kubernetes.io/metadata.name":"openshift-dns"}}}]}`
	podSelector = `{"matchLabels":{"app":"ogx","app.kubernetes.io/instance":"demo"}}`
)

// userIngress admits port 8080 (no protocol) from a labelled namespace.
func userIngress() []networkingv1.NetworkPolicyIngressRule {
	return []networkingv1.NetworkPolicyIngressRule{{
		Ports: []networkingv1.NetworkPolicyPort{{Port: ptr.To(intstr.FromInt32(8080))}},
		From: []networkingv1.NetworkPolicyPeer{{NamespaceSelector: &metav1.LabelSelector{
			MatchLabels: map[string]string{"team": "a"}}}},
	}}
}

const userIngressJSON = `{"ports":[{"protocol":"TCP","port":8080}],"from":[{"namespaceSelector":{"matchLabels":{"team":"a"}}}]}`

// userEgress allows HTTPS to a CIDR (no protocol) and UDP 123.
func userEgress() []networkingv1.NetworkPolicyEgressRule {
	return []networkingv1.NetworkPolicyEgressRule{{
		Ports: []networkingv1.NetworkPolicyPort{
			{Port: ptr.To(intstr.FromInt32(443))},
			{Protocol: ptr.To(corev1.ProtocolUDP), Port: ptr.To(intstr.FromInt32(123))},
		},
		To: []networkingv1.NetworkPolicyPeer{{IPBlock: &networkingv1.IPBlock{CIDR: "10.0.0.0/8", Except: []string{"10.1.0.0/16"}}}},
	}}
}

const userEgressJSON = `{"ports":[{"protocol":"TCP","port":443},{"protocol":"UDP","port":123}],"to":[{"ipBlock":{"cidr":"10.0.0.0/8","except":["10.1.0.0/16"]}}]}`

func TestNetworkPolicyGolden(t *testing.T) {
	cases := []struct {
		file string
		s    *ogxv1beta1.OGXServer
	}{
		{"networkpolicy-default.json", server()},
		{"networkpolicy-full.json", server(func(s *ogxv1beta1.OGXServerSpec) {
			network(s).Port = 8443
			s.Monitoring = &ogxv1beta1.MonitoringSpec{MetricsPort: ptr.To(int32(9090))}
			policy(s).Ingress = userIngress()
			policy(s).Egress = userEgress()
		})},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			golden(t, c.file, NetworkPolicy(c.s, inputs()))
		})
	}
}

func TestNetworkPolicy(t *testing.T) {
	cases := []struct {
		name string
		s    *ogxv1beta1.OGXServer
		want string
	}{
		{"defaults only", server(),
			`{"podSelector":` + podSelector + `,"ingress":[` + ruleA + `,` + ruleB + `],"policyTypes":["Ingress"]}`},
		{"user ingress appended after the defaults", server(func(s *ogxv1beta1.OGXServerSpec) {
			policy(s).Ingress = userIngress()
		}), `{"podSelector":` + podSelector + `,"ingress":[` + ruleA + `,` + ruleB + `,` + userIngressJSON + `],"policyTypes":["Ingress"]}`},
		{"monitoring off: no rule B", server(func(s *ogxv1beta1.OGXServerSpec) {
			s.Monitoring = &ogxv1beta1.MonitoringSpec{Enabled: ptr.To(false)}
		}), `{"podSelector":` + podSelector + `,"ingress":[` + ruleA + `],"policyTypes":["Ingress"]}`},
		{"egress rules without policyTypes: Egress enforced, DNS rule last", server(func(s *ogxv1beta1.OGXServerSpec) {
			policy(s).Egress = userEgress()
		}), `{"podSelector":` + podSelector + `,"ingress":[` + ruleA + `,` + ruleB + `],"egress":[` + userEgressJSON + `,` + dnsRule + `],"policyTypes":["Ingress","Egress"]}`},
		{"policyTypes [Egress]: no ingress rules, DNS only", server(func(s *ogxv1beta1.OGXServerSpec) {
			policy(s).PolicyTypes = []networkingv1.PolicyType{networkingv1.PolicyTypeEgress}
			policy(s).Ingress = userIngress()
		}), `{"podSelector":` + podSelector + `,"egress":[` + dnsRule + `],"policyTypes":["Egress"]}`},
		{"policyTypes [Ingress]: egress rules dropped", server(func(s *ogxv1beta1.OGXServerSpec) {
			policy(s).PolicyTypes = []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}
			policy(s).Egress = userEgress()
		}), `{"podSelector":` + podSelector + `,"ingress":[` + ruleA + `,` + ruleB + `],"policyTypes":["Ingress"]}`},
		{"policyTypes given in reverse order are rendered Ingress, Egress", server(func(s *ogxv1beta1.OGXServerSpec) {
			policy(s).PolicyTypes = []networkingv1.PolicyType{networkingv1.PolicyTypeEgress, networkingv1.PolicyTypeIngress}
		}), `{"podSelector":` + podSelector + `,"ingress":[` + ruleA + `,` + ruleB + `],"egress":[` + dnsRule + `],"policyTypes":["Ingress","Egress"]}`},
		{"custom server and metrics ports", server(func(s *ogxv1beta1.OGXServerSpec) {
			network(s).Port = 9000
			s.Monitoring = &ogxv1beta1.MonitoringSpec{MetricsPort: ptr.To(int32(9100))}
		}), `{"podSelector":` + podSelector + `,"ingress":[
			{"ports":[{"protocol":"TCP","port":9000}],"from":[{"podSelector":{}},
				{"namespaceSelector":{"matchLabels":{"kubernetes.io/metadata.name":"ogx-system"}}},
				{"namespaceSelector":{"matchLabels":{"network.openshift.io/policy-group":"ingress"}}}]},
			{"ports":[{"protocol":"TCP","port":9100}],"from":[{"namespaceSelector":{"matchLabels":{"network.openshift.io/policy-group":"monitoring"}}}]}],
			"policyTypes":["Ingress"]}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var before *ogxv1beta1.NetworkSpec
			if c.s.Spec.Network != nil {
				before = c.s.Spec.Network.DeepCopy()
			}
			np := NetworkPolicy(c.s, inputs())
			equalJSON(t, "spec", np.Spec, c.want)
			equalJSON(t, "labels", np.Labels, `{"app.kubernetes.io/managed-by":"ogx-operator","app.kubernetes.io/part-of":"ogx","ogx.io/watch":"true"}`)
			if *np.Name != "demo-network-policy" || *np.Namespace != testNS || len(np.OwnerReferences) != 1 {
				t.Errorf("metadata = %s", asJSON(t, np.ObjectMetaApplyConfiguration))
			}
			if d := cmp.Diff(before, c.s.Spec.Network); d != "" {
				t.Errorf("render modified the spec (protocol defaulting must work on a copy):\n%s", d)
			}
		})
	}
}
