package render

import (
	"encoding/json"
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

func TestDeploymentPodLevel(t *testing.T) {
	ps := mustDeployment(t, server(), inputs())
	if got := *ps.ServiceAccountName; got != "demo-sa" {
		t.Errorf("serviceAccountName = %q, want demo-sa", got)
	}
	equalJSON(t, "pod securityContext", ps.SecurityContext, `{"runAsNonRoot":true,"fsGroup":1001,"seccompProfile":{"type":"RuntimeDefault"}}`)
	// With --server-any-uid the image's user decides, root included.
	anyUID := mustDeployment(t, server(), inputs(func(in *Inputs) { in.ServerAnyUID = true }))
	equalJSON(t, "pod securityContext with any UID", anyUID.SecurityContext, `{"fsGroup":1001,"seccompProfile":{"type":"RuntimeDefault"}}`)
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
