package render

import (
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	autoscalingv2ac "k8s.io/client-go/applyconfigurations/autoscaling/v2"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

// HPA renders N-hpa (docs/children.md, HorizontalPodAutoscaler), or nil
// without autoscaling. workload.replicas stays a floor of minReplicas. The
// metrics are always written, CPU 80 when no target is given, because the API
// server would otherwise default the atomic list and a converged object would
// look different.
func HPA(s *ogxv1beta1.OGXServer, _ *Inputs) *autoscalingv2ac.HorizontalPodAutoscalerApplyConfiguration {
	a := s.Spec.Autoscaling()
	if a == nil {
		return nil
	}
	var metrics []*autoscalingv2ac.MetricSpecApplyConfiguration
	if a.TargetCPUUtilizationPercentage != nil {
		metrics = append(metrics, utilizationMetric(corev1.ResourceCPU, *a.TargetCPUUtilizationPercentage))
	}
	if a.TargetMemoryUtilizationPercentage != nil {
		metrics = append(metrics, utilizationMetric(corev1.ResourceMemory, *a.TargetMemoryUtilizationPercentage))
	}
	if len(metrics) == 0 {
		metrics = append(metrics, utilizationMetric(corev1.ResourceCPU, ogxv1beta1.DefaultHPACPUTarget))
	}
	return autoscalingv2ac.HorizontalPodAutoscaler(HPAName(s.Name), s.Namespace).
		WithLabels(ScalingLabels(s.Name)).
		WithOwnerReferences(ownerRefs(s)...).
		WithSpec(autoscalingv2ac.HorizontalPodAutoscalerSpec().
			WithScaleTargetRef(autoscalingv2ac.CrossVersionObjectReference().
				WithAPIVersion("apps/v1").
				WithKind("Deployment").
				WithName(DeploymentName(s.Name))).
			WithMinReplicas(s.Spec.HPAMinReplicas()).
			WithMaxReplicas(a.MaxReplicas).
			WithMetrics(metrics...))
}

func utilizationMetric(r corev1.ResourceName, percent int32) *autoscalingv2ac.MetricSpecApplyConfiguration {
	return autoscalingv2ac.MetricSpec().
		WithType(autoscalingv2.ResourceMetricSourceType).
		WithResource(autoscalingv2ac.ResourceMetricSource().
			WithName(r).
			WithTarget(autoscalingv2ac.MetricTarget().
				WithType(autoscalingv2.UtilizationMetricType).
				WithAverageUtilization(percent)))
}
