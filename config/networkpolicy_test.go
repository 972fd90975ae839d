package config_test

import (
	"bytes"
	"os"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/yaml"
)

// TestNetworkPolicyCoversTheListeners: the release's NetworkPolicy selects
// the controller pods and admits the webhook port from any source and the
// metrics port from named peers only; the health port has no rule (kubelet
// probes come from the node, which policies always allow). A listener added
// to the Deployment without a decision here fails the test.
func TestNetworkPolicyCoversTheListeners(t *testing.T) {
	data, err := os.ReadFile("../release/ogx-controller.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var dep *appsv1.Deployment
	var pol *networkingv1.NetworkPolicy
	for _, doc := range bytes.Split(data, []byte("\n---\n")) {
		var meta metav1.TypeMeta
		if err := yaml.Unmarshal(doc, &meta); err != nil {
			t.Fatal(err)
		}
		switch meta.Kind {
		case "Deployment":
			dep = &appsv1.Deployment{}
			err = yaml.UnmarshalStrict(doc, dep)
		case "NetworkPolicy":
			pol = &networkingv1.NetworkPolicy{}
			err = yaml.UnmarshalStrict(doc, pol)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if dep == nil || pol == nil {
		t.Fatalf("release: Deployment %v, NetworkPolicy %v", dep != nil, pol != nil)
	}
	sel, err := metav1.LabelSelectorAsSelector(&pol.Spec.PodSelector)
	if err != nil || sel.Empty() || !sel.Matches(labels.Set(dep.Spec.Template.Labels)) {
		t.Errorf("NetworkPolicy selector %v does not select the controller pods %v (%v)", sel, dep.Spec.Template.Labels, err)
	}
	if pol.Namespace != dep.Namespace {
		t.Errorf("NetworkPolicy in %q, controller in %q", pol.Namespace, dep.Namespace)
	}
	// from: nil means any source; empty means named peers are required.
	want := map[string]bool{"webhook": false, "metrics": true}
	for _, port := range dep.Spec.Template.Spec.Containers[0].Ports {
		var rules []networkingv1.NetworkPolicyIngressRule
		for _, r := range pol.Spec.Ingress {
			for _, p := range r.Ports {
				if p.Port != nil && p.Port.IntValue() == int(port.ContainerPort) {
					rules = append(rules, r)
				}
			}
		}
		restricted, listed := want[port.Name]
		switch {
		case !listed && port.Name == "health":
			if len(rules) != 0 {
				t.Errorf("health port %d has a rule; kubelet probes need none", port.ContainerPort)
			}
		case !listed:
			t.Errorf("container port %s (%d): no decision in this test or the NetworkPolicy", port.Name, port.ContainerPort)
		case len(rules) != 1:
			t.Errorf("port %s (%d) is in %d rules, want 1", port.Name, port.ContainerPort, len(rules))
		case restricted != (len(rules[0].From) > 0):
			t.Errorf("port %s (%d): peers %v, want restricted=%v", port.Name, port.ContainerPort, rules[0].From, restricted)
		}
	}
	if len(pol.Spec.PolicyTypes) != 1 || pol.Spec.PolicyTypes[0] != networkingv1.PolicyTypeIngress {
		t.Errorf("policyTypes %v, want [Ingress]", pol.Spec.PolicyTypes)
	}
}
