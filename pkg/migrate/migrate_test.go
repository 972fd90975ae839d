package migrate

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	llsdv1alpha1 "github.com/ogx-k8s/ogx-controller/pkg/apis/llamastack/v1alpha1"
	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

func legacy(mutate func(*llsdv1alpha1.LlamaStackDistribution)) *llsdv1alpha1.LlamaStackDistribution {
	l := &llsdv1alpha1.LlamaStackDistribution{
		ObjectMeta: metav1.ObjectMeta{Name: "llsd", Namespace: "team"},
		Spec: llsdv1alpha1.LlamaStackDistributionSpec{
			Replicas: 1,
			Server:   llsdv1alpha1.ServerSpec{Distribution: llsdv1alpha1.DistributionType{Name: "starter"}},
		},
	}
	if mutate != nil {
		mutate(l)
	}
	return l
}

func TestConvertEveryField(t *testing.T) {
	size := resource.MustParse("20Gi")
	one := intstr.FromInt32(1)
	env := []corev1.EnvVar{{Name: "A", Value: "1"}}
	vols := []corev1.Volume{{Name: "extra", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
	mounts := []corev1.VolumeMount{{Name: "extra", MountPath: "/extra"}}
	tsc := []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: corev1.ScheduleAnyway}}
	res := corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")}}
	l := legacy(func(l *llsdv1alpha1.LlamaStackDistribution) {
		l.Spec.Replicas = 3
		l.Labels = map[string]string{"team": "search"}
		l.Annotations = map[string]string{"example.com/owner": "ops", corev1.LastAppliedConfigAnnotation: "{}"}
		l.Spec.Network = &llsdv1alpha1.NetworkSpec{ExposeRoute: true, AllowedFrom: &llsdv1alpha1.AllowedFromSpec{
			Namespaces: []string{"web", "*"}, Labels: []string{"team"}}}
		l.Spec.Server = llsdv1alpha1.ServerSpec{
			Distribution:  llsdv1alpha1.DistributionType{Image: "quay.io/x/y:1"},
			ContainerSpec: llsdv1alpha1.ContainerSpec{Name: "custom", Port: 9000, Resources: res, Env: env, Command: []string{"run"}, Args: []string{"--x"}},
			Workers:       ptr.To(int32(4)),
			PodOverrides: &llsdv1alpha1.PodOverrides{ServiceAccountName: "sa", TerminationGracePeriodSeconds: ptr.To(int64(30)),
				Volumes: vols, VolumeMounts: mounts},
			PodDisruptionBudget:       &llsdv1alpha1.PodDisruptionBudgetSpec{MaxUnavailable: &one},
			TopologySpreadConstraints: tsc,
			Autoscaling:               &llsdv1alpha1.AutoscalingSpec{MinReplicas: ptr.To(int32(2)), MaxReplicas: 5, TargetCPUUtilizationPercentage: ptr.To(int32(70))},
			Storage:                   &llsdv1alpha1.StorageSpec{Size: &size},
			UserConfig:                &llsdv1alpha1.UserConfigSpec{ConfigMapName: "cfg"},
			TLSConfig:                 &llsdv1alpha1.TLSConfig{CABundle: &llsdv1alpha1.CABundleConfig{ConfigMapName: "ca", ConfigMapKeys: []string{"a.crt", "b.crt"}}},
		}
	})
	got, err := Convert(l, Options{})
	if err != nil {
		t.Fatal(err)
	}
	img := "quay.io/x/y:1"
	want := &ogxv1beta1.OGXServer{
		TypeMeta: metav1.TypeMeta{APIVersion: "ogx.io/v1beta1", Kind: "OGXServer"},
		ObjectMeta: metav1.ObjectMeta{Name: "llsd-ogx", Namespace: "team", Labels: map[string]string{"team": "search"},
			Annotations: map[string]string{"ogx.io/adopt-storage": "llsd", "ogx.io/adopt-networking": "llsd"}},
		Spec: ogxv1beta1.OGXServerSpec{
			Distribution: ogxv1beta1.DistributionSpec{Image: &img},
			Network: &ogxv1beta1.NetworkSpec{Port: 9000, ExternalAccess: &ogxv1beta1.ExternalAccessSpec{Enabled: true},
				Policy: &ogxv1beta1.NetworkPolicySpec{Ingress: []networkingv1.NetworkPolicyIngressRule{{From: []networkingv1.NetworkPolicyPeer{
					{NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": "web"}}},
					{NamespaceSelector: &metav1.LabelSelector{}},
					{NamespaceSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "team", Operator: metav1.LabelSelectorOpExists}}}},
				}}}}},
			TLS: &ogxv1beta1.OutboundTLSSpec{Trust: &ogxv1beta1.TrustSpec{CACertificates: []ogxv1beta1.ConfigMapKeyRef{
				{Name: "ca", Key: "a.crt"}, {Name: "ca", Key: "b.crt"}}}},
			Workload: &ogxv1beta1.WorkloadSpec{
				Replicas: ptr.To(int32(3)), Workers: ptr.To(int32(4)), Resources: &res,
				Autoscaling:               &ogxv1beta1.AutoscalingSpec{MinReplicas: ptr.To(int32(2)), MaxReplicas: 5, TargetCPUUtilizationPercentage: ptr.To(int32(70))},
				Storage:                   &ogxv1beta1.PVCStorageSpec{Size: &size, MountPath: "/.llama"},
				PodDisruptionBudget:       &ogxv1beta1.PodDisruptionBudgetSpec{MaxUnavailable: &one},
				TopologySpreadConstraints: tsc,
				Overrides: &ogxv1beta1.WorkloadOverrides{ServiceAccountName: "sa", Env: env, Command: []string{"run"}, Args: []string{"--x"},
					Volumes: vols, VolumeMounts: mounts},
			},
			OverrideConfig: &ogxv1beta1.ConfigMapKeyRef{Name: "cfg", Key: "config.yaml"},
		},
	}
	if diff := cmp.Diff(want, got.Server); diff != "" {
		t.Errorf("Convert (-want +got):\n%s", diff)
	}
	for _, w := range []string{"containerSpec.name", "terminationGracePeriodSeconds", "ConfigMap cfg", "ConfigMap ca", "metadata.annotations[example.com/owner]"} {
		if !strings.Contains(strings.Join(got.Warnings, "\n"), w) {
			t.Errorf("no warning mentions %q: %v", w, got.Warnings)
		}
	}
	if strings.Contains(strings.Join(got.Warnings, "\n"), corev1.LastAppliedConfigAnnotation) {
		t.Errorf("kubectl's last-applied annotation is not the user's: %v", got.Warnings)
	}
}

func TestConvertMinimalAndErrors(t *testing.T) {
	got, err := Convert(legacy(nil), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Server.Spec.Workload != nil || got.Server.Spec.Network != nil || len(got.Warnings) != 0 {
		t.Errorf("minimal conversion added %+v / %+v / %v", got.Server.Spec.Workload, got.Server.Spec.Network, got.Warnings)
	}
	if _, ok := got.Server.Annotations["ogx.io/adopt-storage"]; ok {
		t.Errorf("adopt-storage set without legacy storage")
	}
	long := strings.Repeat("a", 60)
	if got, err := Convert(legacy(func(l *llsdv1alpha1.LlamaStackDistribution) { l.Name = long }), Options{}); err != nil || len(got.Server.Name) > 46 {
		t.Errorf("long legacy name: %v, %q", err, got.Server.Name)
	}
	errCases := map[string]func(*llsdv1alpha1.LlamaStackDistribution){
		"same name":      func(l *llsdv1alpha1.LlamaStackDistribution) { l.Name = "x-ogx" },
		"unknown distro": func(l *llsdv1alpha1.LlamaStackDistribution) { l.Spec.Server.Distribution.Name = "ollama" },
		"config other ns": func(l *llsdv1alpha1.LlamaStackDistribution) {
			l.Spec.Server.UserConfig = &llsdv1alpha1.UserConfigSpec{ConfigMapName: "c", ConfigMapNamespace: "other"}
		},
		"ca other ns": func(l *llsdv1alpha1.LlamaStackDistribution) {
			l.Spec.Server.TLSConfig = &llsdv1alpha1.TLSConfig{CABundle: &llsdv1alpha1.CABundleConfig{ConfigMapName: "c", ConfigMapNamespace: "other"}}
		},
		"zero max replicas": func(l *llsdv1alpha1.LlamaStackDistribution) {
			l.Spec.Server.Autoscaling = &llsdv1alpha1.AutoscalingSpec{}
		},
	}
	for name, m := range errCases {
		t.Run(name, func(t *testing.T) {
			opts := Options{}
			if name == "same name" {
				opts.Name = "x-ogx"
			}
			if _, err := Convert(legacy(m), opts); err == nil {
				t.Errorf("Convert succeeded, want an error")
			}
		})
	}
}

// TestConvertCheckedAgainstTheCRD: output the API server would refuse for
// its schema (not the admission validator's business) is an error naming
// the field, not a manifest that fails at kubectl apply.
func TestConvertCheckedAgainstTheCRD(t *testing.T) {
	_, err := Convert(legacy(func(l *llsdv1alpha1.LlamaStackDistribution) {
		l.Spec.Server.ContainerSpec.Port = 99999
	}), Options{})
	var ve *ValidationError
	if !errors.As(err, &ve) || !strings.Contains(ve.Errs, "spec.network.port") || !strings.Contains(ve.Errs, "less than or equal to 65535") {
		t.Errorf("err = %v, want a ValidationError at spec.network.port", err)
	}
}
