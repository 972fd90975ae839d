package integration

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	llsdv1alpha1 "github.com/ogx-k8s/ogx-controller/pkg/apis/llamastack/v1alpha1"
	"github.com/ogx-k8s/ogx-controller/pkg/generated/clientset/versioned"
)

// fullLLSD sets every field of the legacy spec, including the ones with schema
// defaults, so the stored spec must equal it exactly.
func fullLLSD(name string) *llsdv1alpha1.LlamaStackDistribution {
	return &llsdv1alpha1.LlamaStackDistribution{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: llsdv1alpha1.LlamaStackDistributionSpec{
			Replicas: 2,
			Network: &llsdv1alpha1.NetworkSpec{
				ExposeRoute: true,
				AllowedFrom: &llsdv1alpha1.AllowedFromSpec{
					Namespaces: []string{"clients", "*"},
					Labels:     []string{"ogx.io/client"},
				},
			},
			Server: llsdv1alpha1.ServerSpec{
				Distribution: llsdv1alpha1.DistributionType{Name: "starter"},
				ContainerSpec: llsdv1alpha1.ContainerSpec{
					Name: "llama-stack",
					Port: 8321,
					Resources: corev1.ResourceRequirements{
						Requests: corev1.ResourceList{
							corev1.ResourceCPU:    resource.MustParse("500m"),
							corev1.ResourceMemory: resource.MustParse("1Gi"),
						},
						Limits: corev1.ResourceList{
							corev1.ResourceCPU:    resource.MustParse("2"),
							corev1.ResourceMemory: resource.MustParse("4Gi"),
						},
					},
					Env: []corev1.EnvVar{
						{Name: "INFERENCE_MODEL", Value: "llama3.2:1b"},
						{Name: "HF_TOKEN", ValueFrom: &corev1.EnvVarSource{
							SecretKeyRef: &corev1.SecretKeySelector{
								LocalObjectReference: corev1.LocalObjectReference{Name: "hf"},
								Key:                  "token",
							},
						}},
					},
					Command: []string{"python", "-m", "llama_stack.core.server.server"},
					Args:    []string{"--config", "/etc/llama-stack/config.yaml"},
				},
				Workers: ptr.To[int32](3),
				PodOverrides: &llsdv1alpha1.PodOverrides{
					ServiceAccountName:            "llama-stack",
					TerminationGracePeriodSeconds: ptr.To[int64](45),
					Volumes: []corev1.Volume{{
						Name: "extra",
						VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
							LocalObjectReference: corev1.LocalObjectReference{Name: "extra-files"},
						}},
					}},
					VolumeMounts: []corev1.VolumeMount{{Name: "extra", MountPath: "/extra", ReadOnly: true}},
				},
				PodDisruptionBudget: &llsdv1alpha1.PodDisruptionBudgetSpec{
					MinAvailable: ptr.To(intstr.FromInt32(1)),
				},
				TopologySpreadConstraints: []corev1.TopologySpreadConstraint{{
					MaxSkew:           1,
					TopologyKey:       "kubernetes.io/hostname",
					WhenUnsatisfiable: corev1.ScheduleAnyway,
					LabelSelector:     &metav1.LabelSelector{MatchLabels: map[string]string{"app": "llama-stack"}},
				}},
				Autoscaling: &llsdv1alpha1.AutoscalingSpec{
					MinReplicas:                       ptr.To[int32](2),
					MaxReplicas:                       6,
					TargetCPUUtilizationPercentage:    ptr.To[int32](70),
					TargetMemoryUtilizationPercentage: ptr.To[int32](85),
				},
				Storage: &llsdv1alpha1.StorageSpec{
					Size:      ptr.To(resource.MustParse("20Gi")),
					MountPath: "/.llama",
				},
				UserConfig: &llsdv1alpha1.UserConfigSpec{
					ConfigMapName:      "llama-config",
					ConfigMapNamespace: "shared-config",
				},
				TLSConfig: &llsdv1alpha1.TLSConfig{
					CABundle: &llsdv1alpha1.CABundleConfig{
						ConfigMapName:      "ca-bundle",
						ConfigMapNamespace: "shared-config",
						ConfigMapKeys:      []string{"ca-bundle.crt", "extra.pem"},
					},
				},
			},
		},
	}
}

// TestLlamaStackDistributionRoundTrip stores a fully populated legacy object
// through the generated typed clientset and reads it back unchanged, then
// checks the legacy CRD's only CEL rule.
func TestLlamaStackDistributionRoundTrip(t *testing.T) {
	ns := cp.CreateNamespace(t, "llsd")
	ctx := t.Context()
	cs, err := versioned.NewForConfig(restConfig)
	if err != nil {
		t.Fatalf("creating clientset: %v", err)
	}
	api := cs.LlamastackV1alpha1().LlamaStackDistributions(ns)

	sent := fullLLSD("legacy")
	created, err := api.Create(ctx, sent.DeepCopy(), metav1.CreateOptions{FieldValidation: metav1.FieldValidationStrict})
	if err != nil {
		t.Fatalf("creating a fully populated LlamaStackDistribution: %s", describeAPIError(err))
	}
	if diff := cmp.Diff(sent.Spec, created.Spec); diff != "" {
		t.Errorf("spec returned by create differs from the one sent (-sent +returned):\n%s", diff)
	}
	got, err := api.Get(ctx, sent.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("getting LlamaStackDistribution %s/%s back: %s", ns, sent.Name, describeAPIError(err))
	}
	if diff := cmp.Diff(sent.Spec, got.Spec); diff != "" {
		t.Errorf("stored spec differs from the one sent (-sent +stored):\n%s", diff)
	}

	t.Run("defaults", func(t *testing.T) {
		minimal := &llsdv1alpha1.LlamaStackDistribution{
			ObjectMeta: metav1.ObjectMeta{Name: "minimal"},
			Spec: llsdv1alpha1.LlamaStackDistributionSpec{
				Network: &llsdv1alpha1.NetworkSpec{},
				Server:  llsdv1alpha1.ServerSpec{Distribution: llsdv1alpha1.DistributionType{Image: "quay.io/llamastack/distribution-starter:0.2.0"}},
			},
		}
		got, err := api.Create(ctx, minimal, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err != nil {
			t.Fatalf("dry-run creating a minimal LlamaStackDistribution: %s", describeAPIError(err))
		}
		if got.Spec.Replicas != 1 {
			t.Errorf("spec.replicas = %d, want the schema default 1", got.Spec.Replicas)
		}
		if got.Spec.Server.ContainerSpec.Name != "llama-stack" {
			t.Errorf("spec.server.containerSpec.name = %q, want the schema default llama-stack", got.Spec.Server.ContainerSpec.Name)
		}
	})

	t.Run("neither-name-nor-image-accepted", func(t *testing.T) {
		obj := fullLLSD("neither")
		obj.Spec.Server.Distribution = llsdv1alpha1.DistributionType{}
		if _, err := api.Create(ctx, obj, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}); err != nil {
			t.Errorf("a distribution with neither name nor image must be accepted (only 'both' is a CEL error): %s", describeAPIError(err))
		}
	})

	t.Run("name-and-image-rejected", func(t *testing.T) {
		obj := fullLLSD("both")
		obj.Spec.Server.Distribution = llsdv1alpha1.DistributionType{Name: "starter", Image: "quay.io/llamastack/distribution-starter:0.2.0"}
		_, err := api.Create(ctx, obj, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if !apierrors.IsInvalid(err) {
			t.Fatalf("name and image together: want 422 Invalid, got: %s", describeAPIError(err))
		}
		causes, _ := apiCauses(err)
		problems := matchCauses([]want{celErr("spec.server.distribution", "Only one of name or image can be specified")}, causes)
		if len(problems) > 0 {
			t.Errorf("name and image together: unexpected answer:\n\t%s\n\tfull API error: %s", strings.Join(problems, "\n\t"), describeAPIError(err))
		}
	})
}
