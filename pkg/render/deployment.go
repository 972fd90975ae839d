package render

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

// podFSGroup makes mounted volumes (PVC, Secrets) group-accessible to the
// image's user, whatever UID it runs as.
const podFSGroup int64 = 1001

func orZero(in *Inputs) *Inputs {
	if in == nil {
		return &Inputs{}
	}
	return in
}

func overrides(spec *ogxv1beta1.OGXServerSpec) *ogxv1beta1.WorkloadOverrides {
	if spec.Workload == nil || spec.Workload.Overrides == nil {
		return &ogxv1beta1.WorkloadOverrides{}
	}
	return spec.Workload.Overrides
}

func configActive(in *Inputs) bool {
	return in.RuntimeConfig.Mode != "" && in.RuntimeConfig.Mode != ogxv1beta1.ConfigModeInactive
}

func identity(spec *ogxv1beta1.OGXServerSpec) *ogxv1beta1.ClientIdentitySpec {
	if spec.TLS == nil {
		return nil
	}
	return spec.TLS.Identity
}

// Deployment renders the Deployment N (docs/children.md, Deployment). The
// render-time user errors (see checkPodLists) are an *InvalidSpecError. The
// config-dependent parts follow in.RuntimeConfig.Mode, the mode actually
// resolved, so a Deployment is never pointed at a config that does not exist.
func Deployment(s *ogxv1beta1.OGXServer, in *Inputs) (*appsv1ac.DeploymentApplyConfiguration, error) {
	in = orZero(in)
	spec := &s.Spec
	if err := checkPodLists(spec, in); err != nil {
		return nil, err
	}

	ds := appsv1ac.DeploymentSpec().
		WithSelector(metav1ac.LabelSelector().WithMatchLabels(SelectorLabels(s.Name))).
		WithTemplate(corev1ac.PodTemplateSpec().
			WithLabels(SelectorLabels(s.Name)).
			WithAnnotations(templateAnnotations(spec, in)).
			WithSpec(podSpec(s, in)))
	// With autoscaling the HPA owns the count; writing replicas would fight it.
	if spec.Autoscaling() == nil {
		ds.WithReplicas(spec.Replicas())
	}
	// A ReadWriteOnce volume cannot be mounted by an old and a new pod on
	// different nodes at once, so storage means stop-then-start rollouts.
	if spec.StorageSpec() != nil {
		ds.WithStrategy(appsv1ac.DeploymentStrategy().WithType(appsv1.RecreateDeploymentStrategyType))
	}
	return appsv1ac.Deployment(DeploymentName(s.Name), s.Namespace).
		WithLabels(ChildLabels()).
		WithOwnerReferences(ownerRefs(s)...).
		WithSpec(ds), nil
}

// templateAnnotations are the rollout annotations whose condition holds and
// whose hash is known (docs/children.md, Rollout annotations); `render` leaves
// a hash empty when the objects it covers are not in its input.
func templateAnnotations(spec *ogxv1beta1.OGXServerSpec, in *Inputs) map[string]string {
	ann := map[string]string{}
	set := func(cond bool, key, value string) {
		if cond && value != "" {
			ann[key] = value
		}
	}
	set(configActive(in), AnnotationUserConfigHash, in.RuntimeConfig.Hash)
	set(true, AnnotationCABundleHash, in.CABundleHash)
	set(in.RuntimeConfig.Mode == ogxv1beta1.ConfigModeGenerated && len(in.SecretEnv) > 0, AnnotationSecretHash, in.SecretHash)
	set(spec.ServerTLS() != nil, AnnotationServerTLSHash, in.ServerTLSHash)
	set(identity(spec) != nil, AnnotationIdentityHash, in.IdentityHash)
	return ann
}

func podSpec(s *ogxv1beta1.OGXServer, in *Inputs) *corev1ac.PodSpecApplyConfiguration {
	spec := &s.Spec
	sa := ServiceAccountName(s.Name)
	if ov := overrides(spec); ov.ServiceAccountName != "" {
		sa = ov.ServiceAccountName
	}
	sc := corev1ac.PodSecurityContext().
		WithFSGroup(podFSGroup).
		WithSeccompProfile(corev1ac.SeccompProfile().WithType(corev1.SeccompProfileTypeRuntimeDefault))
	if !in.ServerAnyUID {
		sc.WithRunAsNonRoot(true)
	}
	ps := corev1ac.PodSpec().
		WithServiceAccountName(sa).
		WithSecurityContext(sc).
		WithVolumes(volumes(s, in)...).
		WithContainers(container(s, in))

	if w := spec.Workload; w != nil && len(w.TopologySpreadConstraints) > 0 {
		for i := range w.TopologySpreadConstraints {
			ps.WithTopologySpreadConstraints(viaJSON[corev1ac.TopologySpreadConstraintApplyConfiguration](&w.TopologySpreadConstraints[i]))
		}
	} else if spec.MultiPod() {
		for _, key := range []string{corev1.LabelTopologyRegion, corev1.LabelTopologyZone, corev1.LabelHostname} {
			ps.WithTopologySpreadConstraints(corev1ac.TopologySpreadConstraint().
				WithMaxSkew(1).
				WithTopologyKey(key).
				WithWhenUnsatisfiable(corev1.ScheduleAnyway).
				WithLabelSelector(metav1ac.LabelSelector().WithMatchLabels(instanceOnly(s.Name))))
		}
	}
	if spec.MultiPod() {
		ps.WithAffinity(corev1ac.Affinity().WithPodAntiAffinity(corev1ac.PodAntiAffinity().
			WithPreferredDuringSchedulingIgnoredDuringExecution(corev1ac.WeightedPodAffinityTerm().
				WithWeight(100).
				WithPodAffinityTerm(corev1ac.PodAffinityTerm().
					WithTopologyKey(corev1.LabelHostname).
					WithLabelSelector(metav1ac.LabelSelector().WithMatchLabels(instanceOnly(s.Name)))))))
	}
	if w := spec.Workload; w != nil {
		for i := range w.ResourceClaims {
			ps.WithResourceClaims(viaJSON[corev1ac.PodResourceClaimApplyConfiguration](&w.ResourceClaims[i]))
		}
	}
	return ps
}
