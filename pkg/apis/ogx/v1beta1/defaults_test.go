package v1beta1

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
)

func TestEffectiveDefaults(t *testing.T) {
	q := resource.MustParse("20Gi")
	tests := []struct {
		name                                string
		spec                                OGXServerSpec
		port, metricsPort, replicas, hpaMin int32
		mountPath, size                     string
		monitoring, policy, multiPod        bool
		mode                                ConfigMode
	}{
		{name: "empty spec", port: 8321, metricsPort: 9464, replicas: 1, hpaMin: 1, mountPath: "/.ogx", size: "10Gi",
			monitoring: true, policy: true, mode: ConfigModeInactive},
		{name: "everything set",
			spec: OGXServerSpec{
				Network:    &NetworkSpec{Port: 9000, Policy: &NetworkPolicySpec{Enabled: ptr(false)}, TLS: &ServerTLSSpec{SecretName: "t"}},
				Monitoring: &MonitoringSpec{Enabled: ptr(false), MetricsPort: ptr(int32(9999))},
				Workload: &WorkloadSpec{Replicas: ptr(int32(3)), Storage: &PVCStorageSpec{Size: &q, MountPath: "/data"},
					Autoscaling: &AutoscalingSpec{MinReplicas: ptr(int32(2)), MaxReplicas: 5}},
			},
			port: 9000, metricsPort: 9999, replicas: 3, hpaMin: 3, mountPath: "/data", size: "20Gi",
			monitoring: false, policy: false, multiPod: true, mode: ConfigModeGenerated},
		{name: "replicas 0, autoscaling to 1 is single-pod",
			spec: OGXServerSpec{Workload: &WorkloadSpec{Replicas: ptr(int32(0)), Autoscaling: &AutoscalingSpec{MaxReplicas: 1}},
				OverrideConfig: &ConfigMapKeyRef{Name: "c", Key: "k"}},
			port: 8321, metricsPort: 9464, replicas: 0, hpaMin: 1, mountPath: "/.ogx", size: "10Gi",
			monitoring: true, policy: true, mode: ConfigModeOverride},
		{name: "empty disabledAPIs does not generate; storage does",
			spec: OGXServerSpec{DisabledAPIs: []DisabledAPI{}, Storage: &StateStorageSpec{}},
			port: 8321, metricsPort: 9464, replicas: 1, hpaMin: 1, mountPath: "/.ogx", size: "10Gi",
			monitoring: true, policy: true, mode: ConfigModeGenerated},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := &tc.spec
			size := s.StorageSize()
			checks := []struct {
				what      string
				got, want any
			}{
				{"Port", s.Port(), tc.port}, {"MetricsPort", s.MetricsPort(), tc.metricsPort},
				{"Replicas", s.Replicas(), tc.replicas}, {"HPAMinReplicas", s.HPAMinReplicas(), tc.hpaMin},
				{"MountPath", s.MountPath(), tc.mountPath}, {"StorageSize", size.String(), tc.size},
				{"MonitoringEnabled", s.MonitoringEnabled(), tc.monitoring},
				{"NetworkPolicyEnabled", s.NetworkPolicyEnabled(), tc.policy},
				{"MultiPod", s.MultiPod(), tc.multiPod}, {"ConfigMode", s.ConfigMode(), tc.mode},
			}
			for _, c := range checks {
				if c.got != c.want {
					t.Errorf("%s = %v, want %v", c.what, c.got, c.want)
				}
			}
		})
	}
}

func TestRegistry(t *testing.T) {
	names := DistributionNames()
	want := []string{"meta-reference-gpu", "postgres-demo", "remote-vllm", "starter"}
	if len(names) != len(want) {
		t.Fatalf("names = %v", names)
	}
	for i := range want {
		if names[i] != want[i] {
			t.Fatalf("names = %v, want %v", names, want)
		}
	}
	if got := RelatedImageEnv("meta-reference-gpu"); got != "RELATED_IMAGE_META_REFERENCE_GPU" {
		t.Errorf("RelatedImageEnv = %s", got)
	}
}
