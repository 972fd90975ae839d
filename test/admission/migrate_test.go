package admission

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	llsdv1alpha1 "github.com/ogx-k8s/ogx-controller/pkg/apis/llamastack/v1alpha1"
	"github.com/ogx-k8s/ogx-controller/pkg/migrate"
)

// TestMigrateOutputIsAdmitted converts legacy objects of several shapes and
// creates the results through the real API server with the webhook
// registered: schema, CEL and every admission check must accept them.
func TestMigrateOutputIsAdmitted(t *testing.T) {
	e := newEnv(t)
	e.register(t)
	size := resource.MustParse("5Gi")
	two := intstr.FromInt32(2)
	legacies := []*llsdv1alpha1.LlamaStackDistribution{
		{ObjectMeta: metav1.ObjectMeta{Name: "minimal"}, Spec: llsdv1alpha1.LlamaStackDistributionSpec{Replicas: 1,
			Server: llsdv1alpha1.ServerSpec{Distribution: llsdv1alpha1.DistributionType{Name: "starter"}}}},
		{ObjectMeta: metav1.ObjectMeta{Name: strings.Repeat("l", 60)}, Spec: llsdv1alpha1.LlamaStackDistributionSpec{Replicas: 3,
			Network: &llsdv1alpha1.NetworkSpec{ExposeRoute: true, AllowedFrom: &llsdv1alpha1.AllowedFromSpec{Namespaces: []string{"*", "web"}, Labels: []string{"team"}}},
			Server: llsdv1alpha1.ServerSpec{
				Distribution:        llsdv1alpha1.DistributionType{Image: "quay.io/x/llama:1"},
				ContainerSpec:       llsdv1alpha1.ContainerSpec{Port: 9000, Env: []corev1.EnvVar{{Name: "A", Value: "1"}}},
				PodDisruptionBudget: &llsdv1alpha1.PodDisruptionBudgetSpec{MinAvailable: &two, MaxUnavailable: &two},
				Autoscaling:         &llsdv1alpha1.AutoscalingSpec{MinReplicas: ptr(int32(0)), MaxReplicas: 4, TargetCPUUtilizationPercentage: ptr(int32(150))},
				Storage:             &llsdv1alpha1.StorageSpec{Size: &size},
				UserConfig:          &llsdv1alpha1.UserConfigSpec{ConfigMapName: "cfg"},
				TLSConfig:           &llsdv1alpha1.TLSConfig{CABundle: &llsdv1alpha1.CABundleConfig{ConfigMapName: "ca"}},
			}}},
	}
	for _, l := range legacies {
		l.Namespace = e.ns
		res, err := migrate.Convert(l, migrate.Options{})
		if err != nil {
			t.Errorf("converting %s: %v", l.Name, err)
			continue
		}
		if _, err := e.servers.Create(t.Context(), res.Server, metav1.CreateOptions{}); err != nil {
			t.Errorf("creating the migrated %s: %v", res.Server.Name, err)
		}
	}
}
