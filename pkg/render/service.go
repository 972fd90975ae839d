package render

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

// Service port names.
const (
	PortNameHTTP    = "http"
	PortNameMetrics = "metrics"
)

// separateMetricsPort reports whether the metrics endpoint has a port of its
// own: monitoring on and M ≠ P. With M = P the server serves /metrics on the
// API port and a second port entry would duplicate a list key.
func separateMetricsPort(spec *ogxv1beta1.OGXServerSpec) bool {
	return spec.MonitoringEnabled() && spec.MetricsPort() != spec.Port()
}

// Service renders N-service (docs/children.md, Service).
func Service(s *ogxv1beta1.OGXServer, _ *Inputs) *corev1ac.ServiceApplyConfiguration {
	port := func(name string, p int32) *corev1ac.ServicePortApplyConfiguration {
		return corev1ac.ServicePort().WithName(name).WithProtocol(corev1.ProtocolTCP).WithPort(p).WithTargetPort(intstr.FromInt32(p))
	}
	ports := []*corev1ac.ServicePortApplyConfiguration{port(PortNameHTTP, s.Spec.Port())}
	if separateMetricsPort(&s.Spec) {
		ports = append(ports, port(PortNameMetrics, s.Spec.MetricsPort()))
	}
	return corev1ac.Service(ServiceName(s.Name), s.Namespace).
		WithLabels(InstanceChildLabels(s.Name)).
		WithOwnerReferences(ownerRefs(s)...).
		WithSpec(corev1ac.ServiceSpec().
			WithType(corev1.ServiceTypeClusterIP).
			WithSelector(SelectorLabels(s.Name)).
			WithPorts(ports...))
}
