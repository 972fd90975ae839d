package render

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

func TestDeploymentProbesAndPorts(t *testing.T) {
	cases := []struct {
		name      string
		s         *ogxv1beta1.OGXServer
		scheme    string
		port      int
		wantPorts string
	}{
		{"defaults", server(), "HTTP", 8321,
			`[{"containerPort":8321,"protocol":"TCP"},{"name":"metrics","containerPort":9464,"protocol":"TCP"}]`},
		{"server TLS switches to HTTPS", server(func(s *ogxv1beta1.OGXServerSpec) {
			network(s).TLS = &ogxv1beta1.ServerTLSSpec{SecretName: "tls"}
		}), "HTTPS", 8321,
			`[{"containerPort":8321,"protocol":"TCP"},{"name":"metrics","containerPort":9464,"protocol":"TCP"}]`},
		{"metrics on the API port", server(func(s *ogxv1beta1.OGXServerSpec) {
			network(s).Port = 9000
			s.Monitoring = &ogxv1beta1.MonitoringSpec{MetricsPort: ptr.To(int32(9000))}
		}), "HTTP", 9000, `[{"containerPort":9000,"protocol":"TCP"}]`},
		{"monitoring off", server(func(s *ogxv1beta1.OGXServerSpec) {
			s.Monitoring = &ogxv1beta1.MonitoringSpec{Enabled: ptr.To(false)}
		}), "HTTP", 8321, `[{"containerPort":8321,"protocol":"TCP"}]`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctr := mustDeployment(t, c.s, inputs()).Containers[0]
			equalJSON(t, "ports", ctr.Ports, c.wantPorts)
			get := `{"path":"/v1/health","port":` + itoa(c.port) + `,"scheme":"` + c.scheme + `"}`
			equalJSON(t, "startupProbe", ctr.StartupProbe, `{"httpGet":`+get+
				`,"initialDelaySeconds":15,"timeoutSeconds":30,"periodSeconds":10,"successThreshold":1,"failureThreshold":3}`)
			equalJSON(t, "readinessProbe", ctr.ReadinessProbe, `{"httpGet":`+get+
				`,"timeoutSeconds":5,"periodSeconds":10,"successThreshold":1,"failureThreshold":3}`)
			if ctr.LivenessProbe != nil {
				t.Error("livenessProbe must not be set")
			}
			equalJSON(t, "securityContext", ctr.SecurityContext, `{"capabilities":{"drop":["ALL"]},"allowPrivilegeEscalation":false}`)
		})
	}
}

func TestDeploymentResources(t *testing.T) {
	cases := []struct {
		name string
		w    *ogxv1beta1.WorkloadSpec
		want string
	}{
		{"defaults without workers", nil, `{"requests":{"cpu":"1","memory":"1Gi"}}`},
		{"workers set: cpu and limits follow", &ogxv1beta1.WorkloadSpec{Workers: ptr.To(int32(4))},
			`{"limits":{"cpu":"4","memory":"1Gi"},"requests":{"cpu":"4","memory":"1Gi"}}`},
		{"user values kept, zero replaced, claims kept", &ogxv1beta1.WorkloadSpec{
			Workers: ptr.To(int32(2)),
			Resources: &corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("0"), corev1.ResourceMemory: resource.MustParse("8Gi")},
				Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("3")},
				Claims:   []corev1.ResourceClaim{{Name: "gpu", Request: "one"}},
			},
		}, `{"limits":{"cpu":"3","memory":"8Gi"},"requests":{"cpu":"2","memory":"8Gi"},"claims":[{"name":"gpu","request":"one"}]}`},
		{"limits untouched without workers", &ogxv1beta1.WorkloadSpec{
			Resources: &corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("2Gi")}},
		}, `{"limits":{"memory":"2Gi"},"requests":{"cpu":"1","memory":"1Gi"}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := server(func(s *ogxv1beta1.OGXServerSpec) { s.Workload = c.w })
			var before *ogxv1beta1.WorkloadSpec
			if c.w != nil {
				before = c.w.DeepCopy()
			}
			ps := mustDeployment(t, s, inputs())
			equalJSON(t, "resources", ps.Containers[0].Resources, c.want)
			if d := cmp.Diff(before, s.Spec.Workload); d != "" {
				t.Errorf("render modified the spec:\n%s", d)
			}
		})
	}
	t.Run("resourceClaims copied", func(t *testing.T) {
		ps := mustDeployment(t, server(fullSpec), inputs(fullInputs))
		equalJSON(t, "resourceClaims", ps.ResourceClaims, `[{"name":"gpu","resourceClaimTemplateName":"gpu-template"}]`)
	})
}
