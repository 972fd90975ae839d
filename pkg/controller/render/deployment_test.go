package render

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/utils/ptr"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

// fullSpec switches on every feature that changes the Deployment.
func fullSpec(s *ogxv1beta1.OGXServerSpec) {
	s.Providers = &ogxv1beta1.ProvidersSpec{}
	s.RegistryRefreshIntervalSeconds = ptr.To(int32(300))
	s.Network = &ogxv1beta1.NetworkSpec{
		Port: 8443,
		TLS:  &ogxv1beta1.ServerTLSSpec{SecretName: "demo-tls"},
	}
	s.TLS = &ogxv1beta1.OutboundTLSSpec{
		Trust: &ogxv1beta1.TrustSpec{CACertificates: []ogxv1beta1.ConfigMapKeyRef{{Name: "corp-ca", Key: "ca.pem"}}},
		Identity: &ogxv1beta1.ClientIdentitySpec{
			Cert: ogxv1beta1.ConfigMapKeyRef{Name: "client-cert", Key: "cert.pem"},
			Key:  ogxv1beta1.SecretKeyRef{Name: "client-key", Key: "key.pem"},
		},
	}
	s.Monitoring = &ogxv1beta1.MonitoringSpec{MetricsPort: ptr.To(int32(9090))}
	size := resource.MustParse("20Gi")
	s.Workload = &ogxv1beta1.WorkloadSpec{
		Replicas: ptr.To(int32(3)),
		Workers:  ptr.To(int32(2)),
		Resources: &corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("4Gi")},
			Limits:   corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("1")},
			Claims:   []corev1.ResourceClaim{{Name: "gpu"}},
		},
		ResourceClaims: []corev1.PodResourceClaim{{Name: "gpu", ResourceClaimTemplateName: ptr.To("gpu-template")}},
		Storage:        &ogxv1beta1.PVCStorageSpec{Size: &size, MountPath: "/data"},
		Overrides: &ogxv1beta1.WorkloadOverrides{
			ServiceAccountName: "custom-sa",
			Command:            []string{"python"},
			Args:               []string{"-m", "ogx.server"},
			Env: []corev1.EnvVar{
				{Name: "LOG_LEVEL", Value: "debug"},
				{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}},
			},
			Volumes: []corev1.Volume{
				{Name: "models", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "models", ReadOnly: true}}},
				{Name: "scratch", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumMemory}}},
			},
			VolumeMounts: []corev1.VolumeMount{
				{Name: "models", MountPath: "/models", ReadOnly: true},
				{Name: "scratch", MountPath: "/scratch"},
			},
		},
	}
}

func fullInputs(in *Inputs) {
	in.RuntimeConfig = RuntimeConfig{
		Mode:          ogxv1beta1.ConfigModeGenerated,
		ConfigMapName: GeneratedConfigName(testName, "d7fedf0dc718ab56"),
		Key:           GeneratedConfigKey,
		Hash:          "d7fedf0dc718ab56",
		SQLiteBackend: true,
	}
	in.CABundleHash = "1111111111111111"
	in.SecretEnv = []ogxv1beta1.SecretEnvVar{
		{Name: "OGX_VLLM_API_TOKEN", Ref: ogxv1beta1.SecretKeyRef{Name: "vllm", Key: "token"}},
		{Name: "OGX_STORAGE_KV_PASSWORD", Ref: ogxv1beta1.SecretKeyRef{Name: "redis", Key: "password"}},
	}
	in.SecretHash = "2222222222222222"
	in.ServerTLSHash = "3333333333333333"
	in.IdentityHash = "4444444444444444"
	in.PVCName = PVCName(testName)
}

func mustDeployment(t *testing.T, s *ogxv1beta1.OGXServer, in *Inputs) *corev1ac.PodSpecApplyConfiguration {
	t.Helper()
	d, err := Deployment(s, in)
	if err != nil {
		t.Fatalf("Deployment: %v", err)
	}
	return d.Spec.Template.Spec
}

func TestDeploymentGolden(t *testing.T) {
	cases := []struct {
		file string
		s    *ogxv1beta1.OGXServer
		in   *Inputs
	}{
		{"deployment-default.json", server(), inputs()},
		{"deployment-full.json", server(fullSpec), inputs(fullInputs)},
		{"deployment-autoscaling.json", server(func(s *ogxv1beta1.OGXServerSpec) {
			workload(s).Autoscaling = &ogxv1beta1.AutoscalingSpec{MaxReplicas: 4}
			s.OverrideConfig = &ogxv1beta1.ConfigMapKeyRef{Name: "my-config", Key: "run.yaml"}
		}), inputs(func(in *Inputs) {
			in.RuntimeConfig = RuntimeConfig{Mode: ogxv1beta1.ConfigModeOverride, ConfigMapName: "my-config", Key: "run.yaml", Hash: "5555555555555555"}
		})},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			d, err := Deployment(c.s, c.in)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, c.file, d)
		})
	}
}

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

func TestDeploymentVolumesAndMounts(t *testing.T) {
	t.Run("all five managed volumes then user volumes", func(t *testing.T) {
		ps := mustDeployment(t, server(fullSpec), inputs(fullInputs))
		equalJSON(t, "volumes", ps.Volumes, `[
			{"name":"ogx-storage","persistentVolumeClaim":{"claimName":"demo-pvc"}},
			{"name":"ca-bundle","configMap":{"name":"demo-ca-bundle","items":[{"key":"ca-bundle.crt","path":"ca-bundle.crt"}]}},
			{"name":"user-config","configMap":{"name":"demo-config-d7fedf0dc718ab56","items":[{"key":"config.yaml","path":"config.yaml"}]}},
			{"name":"server-tls","secret":{"secretName":"demo-tls","items":[{"key":"tls.crt","path":"tls.crt"},{"key":"tls.key","path":"tls.key"}],"defaultMode":288}},
			{"name":"client-identity","projected":{"sources":[
				{"configMap":{"name":"client-cert","items":[{"key":"cert.pem","path":"tls.crt"}]}},
				{"secret":{"name":"client-key","items":[{"key":"key.pem","path":"tls.key"}]}}],"defaultMode":288}},
			{"name":"models","persistentVolumeClaim":{"claimName":"models","readOnly":true}},
			{"name":"scratch","emptyDir":{"medium":"Memory"}}
		]`)
		equalJSON(t, "mounts", ps.Containers[0].VolumeMounts, `[
			{"name":"ogx-storage","mountPath":"/data"},
			{"name":"user-config","mountPath":"/etc/ogx/","readOnly":true},
			{"name":"ca-bundle","mountPath":"/etc/ssl/certs/ca-bundle","readOnly":true},
			{"name":"server-tls","mountPath":"/etc/ogx-tls/server","readOnly":true},
			{"name":"client-identity","mountPath":"/etc/ogx-tls/client","readOnly":true},
			{"name":"models","mountPath":"/models","readOnly":true},
			{"name":"scratch","mountPath":"/scratch"}
		]`)
	})
	t.Run("no storage: emptyDir only", func(t *testing.T) {
		ps := mustDeployment(t, server(), inputs())
		equalJSON(t, "volumes", ps.Volumes, `[{"name":"ogx-storage","emptyDir":{}}]`)
		equalJSON(t, "mounts", ps.Containers[0].VolumeMounts, `[{"name":"ogx-storage","mountPath":"/.ogx"}]`)
	})
	t.Run("adopted PVC name and override key", func(t *testing.T) {
		s := server(func(s *ogxv1beta1.OGXServerSpec) {
			workload(s).Storage = &ogxv1beta1.PVCStorageSpec{}
			s.OverrideConfig = &ogxv1beta1.ConfigMapKeyRef{Name: "cfg", Key: "run.yaml"}
		})
		in := inputs(func(in *Inputs) {
			in.PVCName = "legacy-pvc"
			in.RuntimeConfig = RuntimeConfig{Mode: ogxv1beta1.ConfigModeOverride, ConfigMapName: "cfg", Key: "run.yaml", Hash: "h"}
		})
		ps := mustDeployment(t, s, in)
		equalJSON(t, "volumes", ps.Volumes, `[
			{"name":"ogx-storage","persistentVolumeClaim":{"claimName":"legacy-pvc"}},
			{"name":"user-config","configMap":{"name":"cfg","items":[{"key":"run.yaml","path":"config.yaml"}]}}
		]`)
	})
	t.Run("user volume defaults inside atomic lists", func(t *testing.T) {
		s := server(func(s *ogxv1beta1.OGXServerSpec) {
			overridesOf(s).Volumes = []corev1.Volume{{Name: "info", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
				Sources: []corev1.VolumeProjection{
					{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{{Path: "name", FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}}}},
					{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Audience: "vault", Path: "token"}},
				},
			}}}}
		})
		ps := mustDeployment(t, s, inputs())
		equalJSON(t, "user volume", ps.Volumes[1], `{"name":"info","projected":{"sources":[
			{"downwardAPI":{"items":[{"path":"name","fieldRef":{"apiVersion":"v1","fieldPath":"metadata.name"}}]}},
			{"serviceAccountToken":{"audience":"vault","expirationSeconds":3600,"path":"token"}}]}}`)
	})
}

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

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

func TestDeploymentReplicasAndStrategy(t *testing.T) {
	cases := []struct {
		name     string
		s        *ogxv1beta1.OGXServer
		replicas *int32
		recreate bool
	}{
		{"default one replica", server(), ptr.To(int32(1)), false},
		{"zero replicas kept", server(func(s *ogxv1beta1.OGXServerSpec) { workload(s).Replicas = ptr.To(int32(0)) }), ptr.To(int32(0)), false},
		{"omitted with autoscaling", server(func(s *ogxv1beta1.OGXServerSpec) {
			workload(s).Replicas = ptr.To(int32(2))
			workload(s).Autoscaling = &ogxv1beta1.AutoscalingSpec{MaxReplicas: 5}
		}), nil, false},
		{"Recreate with storage", server(func(s *ogxv1beta1.OGXServerSpec) {
			workload(s).Storage = &ogxv1beta1.PVCStorageSpec{}
		}), ptr.To(int32(1)), true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, err := Deployment(c.s, inputs())
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(c.replicas, d.Spec.Replicas); d != "" {
				t.Errorf("replicas (-want +got):\n%s", d)
			}
			if c.recreate {
				equalJSON(t, "strategy", d.Spec.Strategy, `{"type":"Recreate"}`)
			} else if d.Spec.Strategy != nil {
				t.Errorf("strategy must not be set, got %s", asJSON(t, d.Spec.Strategy))
			}
			equalJSON(t, "selector", d.Spec.Selector, `{"matchLabels":{"app":"ogx","app.kubernetes.io/instance":"demo"}}`)
			equalJSON(t, "labels", d.Labels, `{"app.kubernetes.io/managed-by":"ogx-operator","app.kubernetes.io/part-of":"ogx","ogx.io/watch":"true"}`)
			equalJSON(t, "template labels", d.Spec.Template.Labels, `{"app":"ogx","app.kubernetes.io/instance":"demo"}`)
		})
	}
}

func TestDeploymentTopology(t *testing.T) {
	const defaults = `[
		{"maxSkew":1,"topologyKey":"topology.kubernetes.io/region","whenUnsatisfiable":"ScheduleAnyway","labelSelector":{"matchLabels":{"app.kubernetes.io/instance":"demo"}}},
		{"maxSkew":1,"topologyKey":"topology.kubernetes.io/zone","whenUnsatisfiable":"ScheduleAnyway","labelSelector":{"matchLabels":{"app.kubernetes.io/instance":"demo"}}},
		{"maxSkew":1,"topologyKey":"kubernetes.io/hostname","whenUnsatisfiable":"ScheduleAnyway","labelSelector":{"matchLabels":{"app.kubernetes.io/instance":"demo"}}}]`
	const affinity = `{"podAntiAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":100,"podAffinityTerm":{
		"labelSelector":{"matchLabels":{"app.kubernetes.io/instance":"demo"}},"topologyKey":"kubernetes.io/hostname"}}]}}`
	user := []corev1.TopologySpreadConstraint{{
		MaxSkew: 2, TopologyKey: "zone", WhenUnsatisfiable: corev1.DoNotSchedule,
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "ogx"}},
	}}
	const userJSON = `[{"maxSkew":2,"topologyKey":"zone","whenUnsatisfiable":"DoNotSchedule","labelSelector":{"matchLabels":{"app":"ogx"}}}]`
	cases := []struct {
		name               string
		s                  *ogxv1beta1.OGXServer
		topology, affinity string
	}{
		{"single pod: neither", server(), "null", "null"},
		{"replicas > 1: defaults", server(func(s *ogxv1beta1.OGXServerSpec) { workload(s).Replicas = ptr.To(int32(2)) }), defaults, affinity},
		{"autoscaling up to 2: defaults", server(func(s *ogxv1beta1.OGXServerSpec) {
			workload(s).Autoscaling = &ogxv1beta1.AutoscalingSpec{MaxReplicas: 2}
		}), defaults, affinity},
		{"autoscaling up to 1: single pod", server(func(s *ogxv1beta1.OGXServerSpec) {
			workload(s).Autoscaling = &ogxv1beta1.AutoscalingSpec{MaxReplicas: 1}
		}), "null", "null"},
		{"user constraints replace defaults, affinity stays", server(func(s *ogxv1beta1.OGXServerSpec) {
			workload(s).Replicas = ptr.To(int32(3))
			workload(s).TopologySpreadConstraints = user
		}), userJSON, affinity},
		{"user constraints on a single pod", server(func(s *ogxv1beta1.OGXServerSpec) {
			workload(s).TopologySpreadConstraints = user
		}), userJSON, "null"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ps := mustDeployment(t, c.s, inputs())
			equalJSON(t, "topologySpreadConstraints", ps.TopologySpreadConstraints, c.topology)
			equalJSON(t, "affinity", ps.Affinity, c.affinity)
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

func TestDeploymentPodLevel(t *testing.T) {
	ps := mustDeployment(t, server(), inputs())
	if got := *ps.ServiceAccountName; got != "demo-sa" {
		t.Errorf("serviceAccountName = %q, want demo-sa", got)
	}
	equalJSON(t, "pod securityContext", ps.SecurityContext, `{"fsGroup":1001,"seccompProfile":{"type":"RuntimeDefault"}}`)
	ctr := ps.Containers[0]
	if *ctr.Name != "ogx" || *ctr.Image != testImage || ctr.Command != nil || ctr.Args != nil || ctr.ImagePullPolicy != nil {
		t.Errorf("container = %s", asJSON(t, ctr))
	}
	ps = mustDeployment(t, server(fullSpec), inputs(fullInputs))
	if got := *ps.ServiceAccountName; got != "custom-sa" {
		t.Errorf("serviceAccountName = %q, want custom-sa", got)
	}
	equalJSON(t, "command", ps.Containers[0].Command, `["python"]`)
	equalJSON(t, "args", ps.Containers[0].Args, `["-m","ogx.server"]`)
}

func TestDeploymentAnnotations(t *testing.T) {
	withIdentity := func(s *ogxv1beta1.OGXServerSpec) {
		s.TLS = &ogxv1beta1.OutboundTLSSpec{Identity: &ogxv1beta1.ClientIdentitySpec{
			Cert: ogxv1beta1.ConfigMapKeyRef{Name: "c", Key: "k"}, Key: ogxv1beta1.SecretKeyRef{Name: "s", Key: "k"}}}
	}
	cases := []struct {
		name string
		s    *ogxv1beta1.OGXServer
		in   *Inputs
		want string
	}{
		{"none", server(), inputs(), "null"},
		{"all five", server(fullSpec), inputs(fullInputs), `{
			"configmap.hash/user-config":"d7fedf0dc718ab56","configmap.hash/ca-bundle":"1111111111111111",
			"secret.hash/referenced":"2222222222222222","secret.hash/tls":"3333333333333333","secret.hash/identity":"4444444444444444"}`},
		{"hashes without their condition are dropped", server(), inputs(func(in *Inputs) {
			in.RuntimeConfig.Hash = "stale"
			in.SecretHash = "stale"
			in.ServerTLSHash = "stale"
			in.IdentityHash = "stale"
		}), "null"},
		{"secret hash only in generated mode", server(func(s *ogxv1beta1.OGXServerSpec) {
			s.OverrideConfig = &ogxv1beta1.ConfigMapKeyRef{Name: "cfg", Key: "k"}
		}), inputs(func(in *Inputs) {
			in.RuntimeConfig = RuntimeConfig{Mode: ogxv1beta1.ConfigModeOverride, ConfigMapName: "cfg", Key: "k", Hash: "aaaa"}
			in.SecretEnv = []ogxv1beta1.SecretEnvVar{{Name: "OGX_A", Ref: ogxv1beta1.SecretKeyRef{Name: "a", Key: "b"}}}
			in.SecretHash = "bbbb"
		}), `{"configmap.hash/user-config":"aaaa"}`},
		{"identity with unknown hash (render without the objects) omitted", server(withIdentity), inputs(), "null"},
		{"identity", server(withIdentity), inputs(func(in *Inputs) { in.IdentityHash = "cccc" }), `{"secret.hash/identity":"cccc"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, err := Deployment(c.s, c.in)
			if err != nil {
				t.Fatal(err)
			}
			equalJSON(t, "annotations", d.Spec.Template.Annotations, c.want)
		})
	}
}

func TestDeploymentErrors(t *testing.T) {
	vol := func(name string) corev1.Volume {
		return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}
	}
	cases := []struct {
		name  string
		s     *ogxv1beta1.OGXServer
		field string
		msg   string
	}{
		{"reserved name of an absent managed volume", server(func(s *ogxv1beta1.OGXServerSpec) {
			overridesOf(s).Volumes = []corev1.Volume{vol("data"), vol("server-tls")}
		}), "workload.overrides.volumes[1]", `name "server-tls" is reserved by ogx-controller`},
		{"reserved storage name", server(func(s *ogxv1beta1.OGXServerSpec) {
			overridesOf(s).Volumes = []corev1.Volume{vol("ogx-storage")}
		}), "workload.overrides.volumes[0]", `name "ogx-storage" is reserved by ogx-controller`},
		{"duplicate user volume", server(func(s *ogxv1beta1.OGXServerSpec) {
			overridesOf(s).Volumes = []corev1.Volume{vol("a"), vol("b"), vol("a")}
		}), "workload.overrides.volumes[2]", `duplicate volume name "a" (also workload.overrides.volumes[0])`},
		{"duplicate user mountPath", server(func(s *ogxv1beta1.OGXServerSpec) {
			overridesOf(s).VolumeMounts = []corev1.VolumeMount{{Name: "a", MountPath: "/x"}, {Name: "b", MountPath: "/x"}}
		}), "workload.overrides.volumeMounts[1]", `duplicate mountPath "/x" (also workload.overrides.volumeMounts[0])`},
		{"mountPath of the storage mount", server(func(s *ogxv1beta1.OGXServerSpec) {
			overridesOf(s).VolumeMounts = []corev1.VolumeMount{{Name: "a", MountPath: "/.ogx"}}
		}), "workload.overrides.volumeMounts[0]", `duplicate mountPath "/.ogx" (used by the ogx-storage volume of ogx-controller)`},
		{"mountPath of a present managed mount", server(func(s *ogxv1beta1.OGXServerSpec) {
			network(s).TLS = &ogxv1beta1.ServerTLSSpec{SecretName: "t"}
			overridesOf(s).VolumeMounts = []corev1.VolumeMount{{Name: "a", MountPath: "/etc/ogx-tls/server"}}
		}), "workload.overrides.volumeMounts[0]", `duplicate mountPath "/etc/ogx-tls/server" (used by the server-tls volume of ogx-controller)`},
		{"duplicate spread key", server(func(s *ogxv1beta1.OGXServerSpec) {
			workload(s).TopologySpreadConstraints = []corev1.TopologySpreadConstraint{
				{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: corev1.DoNotSchedule},
				{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: corev1.ScheduleAnyway},
				{MaxSkew: 2, TopologyKey: "zone", WhenUnsatisfiable: corev1.DoNotSchedule},
			}
		}), "workload.topologySpreadConstraints[2]",
			`duplicate key (topologyKey "zone", whenUnsatisfiable "DoNotSchedule") (also workload.topologySpreadConstraints[0])`},
		{"storage mountPath on a managed path", server(func(s *ogxv1beta1.OGXServerSpec) {
			workload(s).Storage = &ogxv1beta1.PVCStorageSpec{MountPath: "/etc/ogx/"}
			s.Providers = &ogxv1beta1.ProvidersSpec{}
		}), "workload.storage.mountPath", `mountPath "/etc/ogx/" is used by the user-config volume of ogx-controller`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := inputs(func(in *Inputs) {
				if c.s.Spec.Providers != nil {
					in.RuntimeConfig = RuntimeConfig{Mode: ogxv1beta1.ConfigModeGenerated, ConfigMapName: "c", Key: "config.yaml", Hash: "h"}
				}
			})
			d, err := Deployment(c.s, in)
			if d != nil {
				t.Error("no object must be returned with an error")
			}
			var ise *InvalidSpecError
			if !errors.As(err, &ise) {
				t.Fatalf("err = %v, want *InvalidSpecError", err)
			}
			if ise.Field != c.field || ise.Message != c.msg {
				t.Errorf("got %q / %q\nwant %q / %q", ise.Field, ise.Message, c.field, c.msg)
			}
			if want := c.field + ": " + c.msg; err.Error() != want {
				t.Errorf("Error() = %q, want %q", err.Error(), want)
			}
		})
	}
	t.Run("mountPath of an absent managed mount is allowed", func(t *testing.T) {
		s := server(func(s *ogxv1beta1.OGXServerSpec) {
			overridesOf(s).Volumes = []corev1.Volume{vol("certs")}
			overridesOf(s).VolumeMounts = []corev1.VolumeMount{{Name: "certs", MountPath: "/etc/ogx-tls/server"}}
		})
		if _, err := Deployment(s, inputs()); err != nil {
			t.Fatal(err)
		}
	})
}
