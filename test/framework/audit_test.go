package framework

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

func TestNodeResources(t *testing.T) {
	def := nodeResources(0)
	if got := def.Pods().Value(); got != defaultPodsPerNode {
		t.Errorf("default pods = %d, want %d", got, defaultPodsPerNode)
	}
	if got := def.Cpu().Value(); got != 64 {
		t.Errorf("default cpu = %d, want 64", got)
	}
	big := nodeResources(2000)
	if got := big.Pods().Value(); got != 2000 {
		t.Errorf("pods = %d, want 2000", got)
	}
	if got := big.Cpu().Value(); got != 4000 {
		t.Errorf("cpu = %d, want 4000", got)
	}
	if got, want := big.Memory().Value(), int64(2000)*8<<30; got != want {
		t.Errorf("memory = %d, want %d", got, want)
	}
	if _, ok := big[corev1.ResourceEphemeralStorage]; ok {
		t.Errorf("unexpected ephemeral storage")
	}
}

func TestAuditPolicyForUsers(t *testing.T) {
	var policy struct {
		APIVersion string   `json:"apiVersion"`
		Kind       string   `json:"kind"`
		OmitStages []string `json:"omitStages"`
		Rules      []struct {
			Level string   `json:"level"`
			Users []string `json:"users"`
		} `json:"rules"`
	}
	if err := yaml.UnmarshalStrict(AuditPolicyForUsers("ogx-controller", "b"), &policy); err != nil {
		t.Fatalf("policy does not parse: %v", err)
	}
	if policy.Kind != "Policy" || policy.APIVersion != "audit.k8s.io/v1" || len(policy.Rules) != 2 ||
		policy.Rules[0].Level != "Metadata" || strings.Join(policy.Rules[0].Users, ",") != "ogx-controller,b" ||
		policy.Rules[1].Level != "None" || len(policy.Rules[1].Users) != 0 ||
		strings.Join(policy.OmitStages, ",") != "RequestReceived" {
		t.Errorf("unexpected policy %+v", policy)
	}
}

func TestValidUser(t *testing.T) {
	for _, bad := range []string{"", adminUser, "a,b", `a"b`, "a/b", "a\nb"} {
		if validUser(bad) == nil {
			t.Errorf("validUser(%q) = nil, want an error", bad)
		}
	}
	if err := validUser("ogx-controller"); err != nil {
		t.Errorf("validUser(ogx-controller) = %v", err)
	}
}
