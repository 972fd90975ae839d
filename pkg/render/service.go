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

// Service renders N-service (docs/children.md, Service). It carries the
// instance label in addition to the upstream three so that the ServiceMonitor
// selects only this instance's Service.
func Service(s *ogxv1beta1.OGXServer, _ *Inputs) *corev1ac.ServiceApplyConfiguration {
	spec := &s.Spec
	p := spec.Port()
	ports := []*corev1ac.ServicePortApplyConfiguration{
		corev1ac.ServicePort().WithName(PortNameHTTP).WithProtocol(corev1.ProtocolTCP).
			WithPort(p).WithTargetPort(intstr.FromInt32(p)),
	}
	if separateMetricsPort(spec) {
		m := spec.MetricsPort()
		ports = append(ports, corev1ac.ServicePort().WithName(PortNameMetrics).WithProtocol(corev1.ProtocolTCP).
			WithPort(m).WithTargetPort(intstr.FromInt32(m)))
	}
	return corev1ac.Service(ServiceName(s.Name), s.Namespace).
		WithLabels(InstanceChildLabels(s.Name)).
		WithOwnerReferences(ownerRefs(s)...).
		WithSpec(corev1ac.ServiceSpec().
			WithType(corev1.ServiceTypeClusterIP).
			WithSelector(SelectorLabels(s.Name)).
			WithPorts(ports...))
}
