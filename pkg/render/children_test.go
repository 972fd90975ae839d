package render

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/contenthash"
)

const ownerJSON = `[{"apiVersion":"ogx.io/v1beta1","kind":"OGXServer","name":"demo","uid":"` + testUID + `","controller":true,"blockOwnerDeletion":true}]`

func TestOwnerReference(t *testing.T) {
	equalJSON(t, "owner reference", []any{OwnerReference(server())}, ownerJSON)

	noUID := server()
	noUID.UID = ""
	if refs := ServiceAccount(noUID, nil).OwnerReferences; refs != nil {
		t.Errorf("an OGXServer without UID must give no owner reference, got %s", asJSON(t, refs))
	}
}

func TestServiceAccount(t *testing.T) {
	equalJSON(t, "ServiceAccount", ServiceAccount(server(), inputs()), `{
		"kind":"ServiceAccount","apiVersion":"v1",
		"metadata":{"name":"demo-sa","namespace":"team-a",
			"labels":{"app.kubernetes.io/managed-by":"ogx-operator","app.kubernetes.io/part-of":"ogx","ogx.io/watch":"true"},
			"ownerReferences":`+ownerJSON+`}}`)
}

func TestRoleBinding(t *testing.T) {
	// The subject stays N-sa with a custom service account, as upstream.
	s := server(func(s *ogxv1beta1.OGXServerSpec) { overridesOf(s).ServiceAccountName = "custom" })
	equalJSON(t, "RoleBinding", RoleBinding(s, inputs()), `{
		"kind":"RoleBinding","apiVersion":"rbac.authorization.k8s.io/v1",
		"metadata":{"name":"demo-rb","namespace":"team-a",
			"labels":{"app.kubernetes.io/managed-by":"ogx-operator","app.kubernetes.io/part-of":"ogx","ogx.io/watch":"true"},
			"ownerReferences":`+ownerJSON+`},
		"subjects":[{"kind":"ServiceAccount","name":"demo-sa","namespace":"team-a"}],
		"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"system:openshift:scc:anyuid"}}`)
}

func TestService(t *testing.T) {
	const http = `{"name":"http","protocol":"TCP","port":8321,"targetPort":8321}`
	cases := []struct {
		name  string
		s     *ogxv1beta1.OGXServer
		ports string
	}{
		{"with separate metrics port", server(), `[` + http + `,{"name":"metrics","protocol":"TCP","port":9464,"targetPort":9464}]`},
		{"metrics on the API port", server(func(s *ogxv1beta1.OGXServerSpec) {
			s.Monitoring = &ogxv1beta1.MonitoringSpec{MetricsPort: ptr.To(int32(8321))}
		}), `[` + http + `]`},
		{"monitoring off", server(func(s *ogxv1beta1.OGXServerSpec) {
			s.Monitoring = &ogxv1beta1.MonitoringSpec{Enabled: ptr.To(false)}
		}), `[` + http + `]`},
		{"custom ports", server(func(s *ogxv1beta1.OGXServerSpec) {
			network(s).Port = 8000
			s.Monitoring = &ogxv1beta1.MonitoringSpec{MetricsPort: ptr.To(int32(9000))}
		}), `[{"name":"http","protocol":"TCP","port":8000,"targetPort":8000},{"name":"metrics","protocol":"TCP","port":9000,"targetPort":9000}]`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			svc := Service(c.s, inputs())
			equalJSON(t, "Service", svc, `{"kind":"Service","apiVersion":"v1",
				"metadata":{"name":"demo-service","namespace":"team-a",
					"labels":{"app.kubernetes.io/managed-by":"ogx-operator","app.kubernetes.io/part-of":"ogx","ogx.io/watch":"true","app.kubernetes.io/instance":"demo"},
					"ownerReferences":`+ownerJSON+`},
				"spec":{"ports":`+c.ports+`,"selector":{"app":"ogx","app.kubernetes.io/instance":"demo"},"type":"ClusterIP"}}`)
		})
	}
}

func TestPVC(t *testing.T) {
	size := resource.MustParse("20Gi")
	cases := []struct {
		name string
		s    *ogxv1beta1.OGXServer
		size string
	}{
		{"default size", server(func(s *ogxv1beta1.OGXServerSpec) { workload(s).Storage = &ogxv1beta1.PVCStorageSpec{} }), "10Gi"},
		{"given size", server(func(s *ogxv1beta1.OGXServerSpec) { workload(s).Storage = &ogxv1beta1.PVCStorageSpec{Size: &size} }), "20Gi"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// No owner reference: the PVC outlives the OGXServer.
			equalJSON(t, "PVC", PVC(c.s, inputs()), `{"kind":"PersistentVolumeClaim","apiVersion":"v1",
				"metadata":{"name":"demo-pvc","namespace":"team-a",
					"labels":{"app.kubernetes.io/managed-by":"ogx-operator","app.kubernetes.io/part-of":"ogx","ogx.io/watch":"true","app.kubernetes.io/instance":"demo"}},
				"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"`+c.size+`"}}}}`)
		})
	}
}

const scalingLabels = `{"app.kubernetes.io/managed-by":"ogx-operator","app.kubernetes.io/part-of":"ogx","ogx.io/watch":"true","app":"ogx","app.kubernetes.io/instance":"demo"}`

func TestHPA(t *testing.T) {
	cpu := func(p int) string {
		return `{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":` + itoa(p) + `}}}`
	}
	mem := func(p int) string {
		return `{"type":"Resource","resource":{"name":"memory","target":{"type":"Utilization","averageUtilization":` + itoa(p) + `}}}`
	}
	cases := []struct {
		name     string
		replicas *int32
		a        ogxv1beta1.AutoscalingSpec
		min      int
		metrics  string
	}{
		{"defaults: min 1, CPU 80", nil, ogxv1beta1.AutoscalingSpec{MaxReplicas: 5}, 1, `[` + cpu(80) + `]`},
		{"replicas 0 still min 1", ptr.To(int32(0)), ogxv1beta1.AutoscalingSpec{MaxReplicas: 5}, 1, `[` + cpu(80) + `]`},
		{"replicas raise the minimum", ptr.To(int32(3)), ogxv1beta1.AutoscalingSpec{MinReplicas: ptr.To(int32(2)), MaxReplicas: 5}, 3, `[` + cpu(80) + `]`},
		{"minReplicas above replicas", ptr.To(int32(2)), ogxv1beta1.AutoscalingSpec{MinReplicas: ptr.To(int32(4)), MaxReplicas: 5}, 4, `[` + cpu(80) + `]`},
		{"CPU target", nil, ogxv1beta1.AutoscalingSpec{MaxReplicas: 5, TargetCPUUtilizationPercentage: ptr.To(int32(60))}, 1, `[` + cpu(60) + `]`},
		{"memory target only", nil, ogxv1beta1.AutoscalingSpec{MaxReplicas: 5, TargetMemoryUtilizationPercentage: ptr.To(int32(70))}, 1, `[` + mem(70) + `]`},
		{"both targets, CPU first", nil, ogxv1beta1.AutoscalingSpec{MaxReplicas: 5,
			TargetCPUUtilizationPercentage: ptr.To(int32(50)), TargetMemoryUtilizationPercentage: ptr.To(int32(75))}, 1, `[` + cpu(50) + `,` + mem(75) + `]`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := server(func(s *ogxv1beta1.OGXServerSpec) {
				workload(s).Replicas = c.replicas
				workload(s).Autoscaling = &c.a
			})
			if !WantHPA(s) {
				t.Fatal("WantHPA = false")
			}
			equalJSON(t, "HPA", HPA(s, inputs()), `{"kind":"HorizontalPodAutoscaler","apiVersion":"autoscaling/v2",
				"metadata":{"name":"demo-hpa","namespace":"team-a","labels":`+scalingLabels+`,"ownerReferences":`+ownerJSON+`},
				"spec":{"scaleTargetRef":{"kind":"Deployment","name":"demo","apiVersion":"apps/v1"},
					"minReplicas":`+itoa(c.min)+`,"maxReplicas":5,"metrics":`+c.metrics+`}}`)
		})
	}
	if WantHPA(server()) || HPA(server(), inputs()) != nil {
		t.Error("no HPA without autoscaling")
	}
}

func TestPDB(t *testing.T) {
	cases := []struct {
		name string
		s    *ogxv1beta1.OGXServer
		want bool
		spec string
	}{
		{"single pod: none", server(), false, ""},
		{"multi-pod default maxUnavailable 1", server(func(s *ogxv1beta1.OGXServerSpec) { workload(s).Replicas = ptr.To(int32(2)) }), true, `"maxUnavailable":1`},
		{"autoscaling to 3 is multi-pod", server(func(s *ogxv1beta1.OGXServerSpec) {
			workload(s).Autoscaling = &ogxv1beta1.AutoscalingSpec{MaxReplicas: 3}
		}), true, `"maxUnavailable":1`},
		{"user minAvailable 0 kept on a single pod", server(func(s *ogxv1beta1.OGXServerSpec) {
			workload(s).PodDisruptionBudget = &ogxv1beta1.PodDisruptionBudgetSpec{MinAvailable: ptr.To(intstr.FromInt32(0))}
		}), true, `"minAvailable":0`},
		{"user maxUnavailable percentage", server(func(s *ogxv1beta1.OGXServerSpec) {
			workload(s).Replicas = ptr.To(int32(4))
			workload(s).PodDisruptionBudget = &ogxv1beta1.PodDisruptionBudgetSpec{MaxUnavailable: ptr.To(intstr.FromString("50%"))}
		}), true, `"maxUnavailable":"50%"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := WantPDB(c.s); got != c.want {
				t.Fatalf("WantPDB = %v, want %v", got, c.want)
			}
			if !c.want {
				return
			}
			equalJSON(t, "PDB", PDB(c.s, inputs()), `{"kind":"PodDisruptionBudget","apiVersion":"policy/v1",
				"metadata":{"name":"demo-pdb","namespace":"team-a","labels":`+scalingLabels+`,"ownerReferences":`+ownerJSON+`},
				"spec":{`+c.spec+`,"selector":{"matchLabels":{"app":"ogx","app.kubernetes.io/instance":"demo"}}}}`)
		})
	}
}

func TestIngress(t *testing.T) {
	const backend = `"http":{"paths":[{"path":"/","pathType":"Prefix","backend":{"service":{"name":"demo-service","port":{"number":8321}}}}]}`
	cases := []struct {
		name string
		s    *ogxv1beta1.OGXServer
		spec string
	}{
		{"no hostname, no TLS", server(func(s *ogxv1beta1.OGXServerSpec) {
			network(s).ExternalAccess = &ogxv1beta1.ExternalAccessSpec{Enabled: true}
		}), `{"rules":[{` + backend + `}]}`},
		{"hostname", server(func(s *ogxv1beta1.OGXServerSpec) {
			network(s).ExternalAccess = &ogxv1beta1.ExternalAccessSpec{Enabled: true, Hostname: "ogx.example.com"}
		}), `{"rules":[{"host":"ogx.example.com",` + backend + `}]}`},
		{"hostname and TLS", server(func(s *ogxv1beta1.OGXServerSpec) {
			network(s).ExternalAccess = &ogxv1beta1.ExternalAccessSpec{Enabled: true, Hostname: "ogx.example.com"}
			network(s).TLS = &ogxv1beta1.ServerTLSSpec{SecretName: "demo-tls"}
		}), `{"tls":[{"hosts":["ogx.example.com"],"secretName":"demo-tls"}],"rules":[{"host":"ogx.example.com",` + backend + `}]}`},
		{"TLS without hostname", server(func(s *ogxv1beta1.OGXServerSpec) {
			network(s).ExternalAccess = &ogxv1beta1.ExternalAccessSpec{Enabled: true}
			network(s).TLS = &ogxv1beta1.ServerTLSSpec{SecretName: "demo-tls"}
		}), `{"tls":[{"secretName":"demo-tls"}],"rules":[{` + backend + `}]}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !WantIngress(c.s) {
				t.Fatal("WantIngress = false")
			}
			equalJSON(t, "Ingress", Ingress(c.s, inputs()), `{"kind":"Ingress","apiVersion":"networking.k8s.io/v1",
				"metadata":{"name":"demo-ingress","namespace":"team-a",
					"labels":{"app.kubernetes.io/managed-by":"ogx-operator","app.kubernetes.io/instance":"demo"},
					"ownerReferences":`+ownerJSON+`},
				"spec":`+c.spec+`}`)
		})
	}
	if WantIngress(server()) || WantIngress(server(func(s *ogxv1beta1.OGXServerSpec) {
		network(s).ExternalAccess = &ogxv1beta1.ExternalAccessSpec{Hostname: "x"}
	})) {
		t.Error("WantIngress without externalAccess.enabled")
	}
}

func TestConfigMaps(t *testing.T) {
	equalJSON(t, "CA bundle", CABundleConfigMap(server(), "PEM"), `{"kind":"ConfigMap","apiVersion":"v1",
		"metadata":{"name":"demo-ca-bundle","namespace":"team-a",
			"labels":{"app.kubernetes.io/managed-by":"ogx-operator","app.kubernetes.io/instance":"demo","app.kubernetes.io/component":"ca-bundle","ogx.io/watch":"true"},
			"ownerReferences":`+ownerJSON+`},
		"data":{"ca-bundle.crt":"PEM"}}`)
	cfg := "version: \"2\"\n"
	name := GeneratedConfigName(testName, contenthash.H16([]byte(cfg)))
	equalJSON(t, "generated config", GeneratedConfigMap(server(), name, cfg), `{"kind":"ConfigMap","apiVersion":"v1",
		"metadata":{"name":"`+name+`","namespace":"team-a",
			"labels":{"app.kubernetes.io/managed-by":"ogx-operator","app.kubernetes.io/instance":"demo","ogx.io/generated-config":"true","ogx.io/watch":"true"},
			"ownerReferences":`+ownerJSON+`},
		"immutable":true,"data":{"config.yaml":"version: \"2\"\n"}}`)
}

func TestWant(t *testing.T) {
	storage := server(func(s *ogxv1beta1.OGXServerSpec) { workload(s).Storage = &ogxv1beta1.PVCStorageSpec{} })
	cases := []struct {
		name string
		got  bool
		want bool
	}{
		{"PVC without storage", WantPVC(server(), inputs()), false},
		{"PVC with storage", WantPVC(storage, inputs()), true},
		{"PVC with storage, PVCName N-pvc", WantPVC(storage, inputs(func(in *Inputs) { in.PVCName = "demo-pvc" })), true},
		{"PVC with an adopted claim", WantPVC(storage, inputs(func(in *Inputs) { in.PVCName = "legacy-pvc" })), false},
		{"NetworkPolicy default", WantNetworkPolicy(server()), true},
		{"NetworkPolicy disabled", WantNetworkPolicy(server(func(s *ogxv1beta1.OGXServerSpec) { policy(s).Enabled = ptr.To(false) })), false},
		{"RoleBinding without OpenShift", WantRoleBinding(inputs()), false},
		{"RoleBinding on OpenShift, any UID not allowed", WantRoleBinding(inputs(func(in *Inputs) { in.OpenShiftSecurityServed = true })), false},
		{"RoleBinding on OpenShift, any UID allowed", WantRoleBinding(inputs(func(in *Inputs) { in.OpenShiftSecurityServed, in.ServerAnyUID = true, true })), true},
		{"RoleBinding elsewhere, any UID allowed", WantRoleBinding(inputs(func(in *Inputs) { in.ServerAnyUID = true })), false},
		{"monitoring API not served", WantMonitoring(server(), inputs()), false},
		{"monitoring API served", WantMonitoring(server(), inputs(func(in *Inputs) { in.MonitoringServed = true })), true},
		{"monitoring off", WantMonitoring(server(func(s *ogxv1beta1.OGXServerSpec) {
			s.Monitoring = &ogxv1beta1.MonitoringSpec{Enabled: ptr.To(false)}
		}), inputs(func(in *Inputs) { in.MonitoringServed = true })), false},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s: got %v, want %v", c.name, c.got, c.want)
		}
	}
}
