package status

// Tests of the status fields besides conditions (fields.go and
// configGeneration): the service and external URLs, the image and the
// generated config's record. The fixtures are in status_compute_test.go.

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/controllertest"
	"github.com/ogx-k8s/ogx-controller/pkg/resolve"
)

func TestStatusComputeFields(t *testing.T) {
	scRun(t, []scCase{
		{
			name: "server TLS and a custom port: https service URL; custom image",
			in: scInputs(scWithSpec(func(s *ogxv1beta1.OGXServerSpec) {
				s.Network = &ogxv1beta1.NetworkSpec{Port: 9443, TLS: &ogxv1beta1.ServerTLSSpec{SecretName: "tls"}}
				s.Distribution = ogxv1beta1.DistributionSpec{Image: ptr.To("quay.io/example/ogx:1.0")}
			}), func(in *statusInputs) {
				in.image = "quay.io/example/ogx:1.0"
				in.configSource, in.configHash = "oci-label", "sha256:"+strings.Repeat("ab", 32)
				in.generated = &resolve.GeneratedConfig{Hash: "0123456789abcdef", ProviderCount: 3, ResourceCount: 2, ConfigVersion: 2}
			}),
			want: statusResult{requeueAfter: 5 * time.Minute, status: func() ogxv1beta1.OGXServerStatus {
				st := scStatus(ogxv1beta1.PhaseReady, 1,
					scCond(ogxv1beta1.ConditionConfigGenerated, metav1.ConditionTrue, "ConfigGenerationSucceeded", "Generated config.yaml with 3 providers and 2 resources", scNow),
					scDeployReady(scNow), scServiceReady(scNow), scHealthDisabled(scNow),
					scReadyAvailable("1/1 replicas available", scNow))
				st.ServiceURL = "https://demo-service.team-a.svc.cluster.local:9443"
				st.DistributionConfig.ActiveDistribution = ogxv1beta1.ActiveDistributionCustom
				st.ResolvedDistribution = &ogxv1beta1.ResolvedDistribution{Image: "quay.io/example/ogx:1.0", ConfigSource: "oci-label",
					ConfigHash: "sha256:" + strings.Repeat("ab", 32)}
				st.ConfigGeneration = &ogxv1beta1.ConfigGenerationStatus{ObservedGeneration: scGen, ConfigMapName: "demo-config-0123456789abcdef",
					GeneratedAt: scNow, ProviderCount: 3, ResourceCount: 2, ConfigVersion: 2}
				return st
			}()},
		},
		{
			name: "generated config unchanged: generatedAt and its generation stay",
			in: scInputs(scWithSpec(func(s *ogxv1beta1.OGXServerSpec) { s.DisabledAPIs = []ogxv1beta1.DisabledAPI{"batches"} }),
				scWithStatus(func() ogxv1beta1.OGXServerStatus {
					st := scReadyStatus()
					st.ConfigGeneration = &ogxv1beta1.ConfigGenerationStatus{ObservedGeneration: 1, ConfigMapName: "demo-config-0123456789abcdef",
						GeneratedAt: scT0, ProviderCount: 1, ResourceCount: 0, ConfigVersion: 2}
					st.Conditions[0] = scCond(ogxv1beta1.ConditionConfigGenerated, metav1.ConditionTrue, "ConfigGenerationSucceeded", "Generated config.yaml with 1 providers and 0 resources", scT0)
					return st
				}()), func(in *statusInputs) {
					in.generated = &resolve.GeneratedConfig{Hash: "0123456789abcdef", ProviderCount: 4, ResourceCount: 1, ConfigVersion: 2}
				}),
			want: statusResult{requeueAfter: 5 * time.Minute, status: func() ogxv1beta1.OGXServerStatus {
				st := scReadyStatus()
				st.ConfigGeneration = &ogxv1beta1.ConfigGenerationStatus{ObservedGeneration: 1, ConfigMapName: "demo-config-0123456789abcdef",
					GeneratedAt: scT0, ProviderCount: 4, ResourceCount: 1, ConfigVersion: 2}
				st.Conditions[0] = scCond(ogxv1beta1.ConditionConfigGenerated, metav1.ConditionTrue, "ConfigGenerationSucceeded", "Generated config.yaml with 4 providers and 1 resources", scT0)
				return st
			}()},
		},
		{
			name: "config generation failed: ConfigGenerated False, configGeneration unchanged, Failed",
			in: scInputs(scWithSpec(func(s *ogxv1beta1.OGXServerSpec) { s.DisabledAPIs = []ogxv1beta1.DisabledAPI{"batches"} }),
				scWithStatus(func() ogxv1beta1.OGXServerStatus {
					st := scReadyStatus()
					st.ConfigGeneration = &ogxv1beta1.ConfigGenerationStatus{ObservedGeneration: 1, ConfigMapName: "demo-config-0123456789abcdef", GeneratedAt: scT0}
					return st
				}()), func(in *statusInputs) {
					in.outcomes["configmap"] = base.Outcome{Generation: scGen, Class: base.OutcomeUserError, Reason: ogxv1beta1.ReasonBaseConfigUnavailable, Message: "set spec.baseConfig"}
				}),
			want: statusResult{requeueAfter: time.Minute, status: func() ogxv1beta1.OGXServerStatus {
				st := scReadyStatus()
				st.Phase = ogxv1beta1.PhaseFailed
				st.Conditions[4] = scCond(ogxv1beta1.ConditionReady, metav1.ConditionFalse, ogxv1beta1.ReasonBaseConfigUnavailable, "set spec.baseConfig", scNow)
				st.Conditions = append(st.Conditions, scCond(ogxv1beta1.ConditionStalled, metav1.ConditionTrue, ogxv1beta1.ReasonBaseConfigUnavailable, "set spec.baseConfig", scNow))
				st.ConfigGeneration = &ogxv1beta1.ConfigGenerationStatus{ObservedGeneration: 1, ConfigMapName: "demo-config-0123456789abcdef", GeneratedAt: scT0}
				st.Conditions[0] = scCond(ogxv1beta1.ConditionConfigGenerated, metav1.ConditionFalse, ogxv1beta1.ReasonBaseConfigUnavailable, "set spec.baseConfig", scT0)
				return st
			}()},
		},
	})

	t.Run("externalURL", func(t *testing.T) {
		ingress := func(tlsHosts []string, lb ...networkingv1.IngressLoadBalancerIngress) *networkingv1.Ingress {
			ing := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: "demo-ingress", Namespace: controllertest.Namespace}}
			if tlsHosts != nil {
				ing.Spec.TLS = []networkingv1.IngressTLS{{Hosts: tlsHosts, SecretName: "tls"}}
			}
			ing.Status.LoadBalancer.Ingress = lb
			return ing
		}
		for _, tc := range []struct {
			name    string
			access  *ogxv1beta1.ExternalAccessSpec
			ingress *networkingv1.Ingress
			want    *string
		}{
			{name: "off", ingress: ingress(nil, networkingv1.IngressLoadBalancerIngress{IP: "10.0.0.1"}), want: nil},
			{name: "disabled explicitly", access: &ogxv1beta1.ExternalAccessSpec{Hostname: "ogx.example.com"}, want: nil},
			{name: "on, no Ingress yet", access: &ogxv1beta1.ExternalAccessSpec{Enabled: true}, want: ptr.To("")},
			{name: "on, no address yet", access: &ogxv1beta1.ExternalAccessSpec{Enabled: true}, ingress: ingress(nil), want: ptr.To("")},
			{name: "first load-balancer entry decides: its IP when it has no hostname", access: &ogxv1beta1.ExternalAccessSpec{Enabled: true},
				ingress: ingress(nil, networkingv1.IngressLoadBalancerIngress{IP: "10.0.0.1"}, networkingv1.IngressLoadBalancerIngress{Hostname: "lb.example.net"}),
				want:    ptr.To("http://10.0.0.1")},
			{name: "load balancer hostname", access: &ogxv1beta1.ExternalAccessSpec{Enabled: true},
				ingress: ingress(nil, networkingv1.IngressLoadBalancerIngress{Hostname: "lb.example.net", IP: "10.0.0.1"}),
				want:    ptr.To("http://lb.example.net")},
			{name: "configured hostname with a TLS entry covering it", access: &ogxv1beta1.ExternalAccessSpec{Enabled: true, Hostname: "ogx.example.com"},
				ingress: ingress([]string{"other.example.com", "ogx.example.com"}, networkingv1.IngressLoadBalancerIngress{IP: "10.0.0.1"}),
				want:    ptr.To("https://ogx.example.com")},
			{name: "configured hostname, TLS for another host", access: &ogxv1beta1.ExternalAccessSpec{Enabled: true, Hostname: "ogx.example.com"},
				ingress: ingress([]string{"other.example.com"}), want: ptr.To("http://ogx.example.com")},
		} {
			t.Run(tc.name, func(t *testing.T) {
				in := scInputs(func(in *statusInputs) {
					if tc.access != nil {
						in.server.Spec.Network = &ogxv1beta1.NetworkSpec{ExternalAccess: tc.access}
					}
					in.ingress = tc.ingress
				})
				if diff := cmp.Diff(tc.want, computeStatus(in).status.ExternalURL); diff != "" {
					t.Errorf("externalURL (-want +got):\n%s", diff)
				}
			})
		}
	})

}

// TestStatusScaleFields: status.replicas is the Deployment's own
// status.replicas (surge pods included, not spec.replicas), and
// status.selector the serialized selector of the server's pods, both absent
// while no Deployment is cached: what the scale subresource reports.
func TestStatusScaleFields(t *testing.T) {
	type scale struct {
		Replicas, Available int32
		Selector            string
	}
	surging := scDeployment(1, 1)
	surging.Status.Replicas = 2
	for _, tc := range []struct {
		name string
		in   statusInputs
		want scale
	}{
		{name: "no Deployment yet", in: scInputs(func(in *statusInputs) { in.deployment = nil }), want: scale{}},
		{name: "rolled out", in: scInputs(), want: scale{Replicas: 1, Available: 1, Selector: "app=ogx,app.kubernetes.io/instance=demo"}},
		{name: "a surge pod: the Deployment's status count, not its spec", in: scInputs(func(in *statusInputs) { in.deployment = surging }),
			want: scale{Replicas: 2, Available: 1, Selector: "app=ogx,app.kubernetes.io/instance=demo"}},
		{name: "another server's name", in: scInputs(func(in *statusInputs) { in.server.Name = "other" }),
			want: scale{Replicas: 1, Available: 1, Selector: "app=ogx,app.kubernetes.io/instance=other"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var st ogxv1beta1.OGXServerStatus
			setEndpoints(tc.in, &st)
			got := scale{Replicas: st.Replicas, Available: st.AvailableReplicas, Selector: st.Selector}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("scale fields (-want +got):\n%s", diff)
			}
		})
	}
}
