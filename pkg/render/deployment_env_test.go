package render

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/utils/ptr"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

type envPair struct{ Name, Value, From string }

func envPairs(env []corev1ac.EnvVarApplyConfiguration) []envPair {
	var out []envPair
	for _, e := range env {
		p := envPair{Name: *e.Name}
		if e.Value != nil {
			p.Value = *e.Value
		}
		if e.ValueFrom != nil {
			switch {
			case e.ValueFrom.SecretKeyRef != nil:
				p.From = "secret:" + *e.ValueFrom.SecretKeyRef.Name + "/" + *e.ValueFrom.SecretKeyRef.Key
			case e.ValueFrom.FieldRef != nil:
				p.From = "field:" + *e.ValueFrom.FieldRef.APIVersion + ":" + *e.ValueFrom.FieldRef.FieldPath
			}
		}
		out = append(out, p)
	}
	return out
}

func TestDeploymentEnv(t *testing.T) {
	monitoringOff := func(s *ogxv1beta1.OGXServerSpec) {
		s.Monitoring = &ogxv1beta1.MonitoringSpec{Enabled: ptr.To(false)}
	}
	cases := []struct {
		name string
		s    *ogxv1beta1.OGXServer
		in   *Inputs
		want []envPair
	}{
		{
			name: "defaults",
			s:    server(),
			in:   inputs(),
			want: []envPair{
				{Name: "HF_HOME", Value: "/.ogx"},
				{Name: "OGX_WORKERS", Value: "1"},
				{Name: "OGX_PORT", Value: "8321"},
				{Name: "OGX_METRICS_ENDPOINT_ENABLED", Value: "1"},
				{Name: "OGX_METRICS_HOST", Value: "0.0.0.0"},
				{Name: "OGX_METRICS_PORT", Value: "9464"},
			},
		},
		{
			name: "every row present",
			s:    server(fullSpec),
			in:   inputs(fullInputs),
			want: []envPair{
				{Name: "HF_HOME", Value: "/data"},
				{Name: "SSL_CERT_FILE", Value: "/etc/ssl/certs/ca-bundle/ca-bundle.crt"},
				{Name: "OGX_WORKERS", Value: "2"},
				{Name: "OGX_PORT", Value: "8443"},
				{Name: "RUN_CONFIG_PATH", Value: "/etc/ogx/config.yaml"},
				{Name: "OGX_CONFIG", Value: "/etc/ogx/config.yaml"},
				{Name: "OGX_REGISTRY_REFRESH_INTERVAL_SECONDS", Value: "300"},
				{Name: "OGX_METRICS_ENDPOINT_ENABLED", Value: "1"},
				{Name: "OGX_METRICS_HOST", Value: "0.0.0.0"},
				{Name: "OGX_METRICS_PORT", Value: "9090"},
				{Name: "OGX_TLS_CERTFILE", Value: "/etc/ogx-tls/server/tls.crt"},
				{Name: "OGX_TLS_KEYFILE", Value: "/etc/ogx-tls/server/tls.key"},
				{Name: "OGX_TLS_CLIENT_CERT", Value: "/etc/ogx-tls/client/tls.crt"},
				{Name: "OGX_TLS_CLIENT_KEY", Value: "/etc/ogx-tls/client/tls.key"},
				{Name: "SQLITE_STORE_DIR", Value: "/data"},
				{Name: "OGX_STORAGE_KV_PASSWORD", From: "secret:redis/password"},
				{Name: "OGX_VLLM_API_TOKEN", From: "secret:vllm/token"},
				{Name: "LOG_LEVEL", Value: "debug"},
				{Name: "POD_NAME", From: "field:v1:metadata.name"},
			},
		},
		{
			name: "overrides replace managed and secret names, last repeat wins",
			s: server(fullSpec, func(s *ogxv1beta1.OGXServerSpec) {
				overridesOf(s).Env = []corev1.EnvVar{
					{Name: "OGX_PORT", Value: "9999"},
					{Name: "EXTRA", Value: "first"},
					{Name: "HF_HOME", Value: "/hf"},
					{Name: "OGX_VLLM_API_TOKEN", Value: "literal"},
					{Name: "EXTRA", Value: "second"},
				}
			}),
			in: inputs(fullInputs),
			want: []envPair{
				{Name: "SSL_CERT_FILE", Value: "/etc/ssl/certs/ca-bundle/ca-bundle.crt"},
				{Name: "OGX_WORKERS", Value: "2"},
				{Name: "RUN_CONFIG_PATH", Value: "/etc/ogx/config.yaml"},
				{Name: "OGX_CONFIG", Value: "/etc/ogx/config.yaml"},
				{Name: "OGX_REGISTRY_REFRESH_INTERVAL_SECONDS", Value: "300"},
				{Name: "OGX_METRICS_ENDPOINT_ENABLED", Value: "1"},
				{Name: "OGX_METRICS_HOST", Value: "0.0.0.0"},
				{Name: "OGX_METRICS_PORT", Value: "9090"},
				{Name: "OGX_TLS_CERTFILE", Value: "/etc/ogx-tls/server/tls.crt"},
				{Name: "OGX_TLS_KEYFILE", Value: "/etc/ogx-tls/server/tls.key"},
				{Name: "OGX_TLS_CLIENT_CERT", Value: "/etc/ogx-tls/client/tls.crt"},
				{Name: "OGX_TLS_CLIENT_KEY", Value: "/etc/ogx-tls/client/tls.key"},
				{Name: "SQLITE_STORE_DIR", Value: "/data"},
				{Name: "OGX_STORAGE_KV_PASSWORD", From: "secret:redis/password"},
				{Name: "OGX_PORT", Value: "9999"},
				{Name: "HF_HOME", Value: "/hf"},
				{Name: "OGX_VLLM_API_TOKEN", Value: "literal"},
				{Name: "EXTRA", Value: "second"},
			},
		},
		{
			name: "override mode: config env but no sqlite dir and no secret env",
			s: server(monitoringOff, func(s *ogxv1beta1.OGXServerSpec) {
				s.OverrideConfig = &ogxv1beta1.ConfigMapKeyRef{Name: "cfg", Key: "run.yaml"}
			}),
			in: inputs(func(in *Inputs) {
				in.RuntimeConfig = RuntimeConfig{Mode: ogxv1beta1.ConfigModeOverride, ConfigMapName: "cfg", Key: "run.yaml", Hash: "abc", SQLiteBackend: true}
				in.SecretEnv = []ogxv1beta1.SecretEnvVar{{Name: "OGX_X_API_KEY", Ref: ogxv1beta1.SecretKeyRef{Name: "x", Key: "k"}}}
			}),
			want: []envPair{
				{Name: "HF_HOME", Value: "/.ogx"},
				{Name: "OGX_WORKERS", Value: "1"},
				{Name: "OGX_PORT", Value: "8321"},
				{Name: "RUN_CONFIG_PATH", Value: "/etc/ogx/config.yaml"},
				{Name: "OGX_CONFIG", Value: "/etc/ogx/config.yaml"},
			},
		},
		{
			name: "generated without sqlite backend",
			s:    server(monitoringOff),
			in: inputs(func(in *Inputs) {
				in.RuntimeConfig = RuntimeConfig{Mode: ogxv1beta1.ConfigModeGenerated, ConfigMapName: "demo-config-x", Key: "config.yaml", Hash: "x"}
			}),
			want: []envPair{
				{Name: "HF_HOME", Value: "/.ogx"},
				{Name: "OGX_WORKERS", Value: "1"},
				{Name: "OGX_PORT", Value: "8321"},
				{Name: "RUN_CONFIG_PATH", Value: "/etc/ogx/config.yaml"},
				{Name: "OGX_CONFIG", Value: "/etc/ogx/config.yaml"},
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ps := mustDeployment(t, c.s, c.in)
			if d := cmp.Diff(c.want, envPairs(ps.Containers[0].Env)); d != "" {
				t.Errorf("env (-want +got):\n%s", d)
			}
		})
	}
}
