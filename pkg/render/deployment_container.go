package render

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

// workers is W: workload.workers when > 0, else 1. workersSet reports whether
// the user gave it, which also turns on the default limits.
func workers(spec *ogxv1beta1.OGXServerSpec) (w int32, workersSet bool) {
	if spec.Workload != nil && spec.Workload.Workers != nil && *spec.Workload.Workers > 0 {
		return *spec.Workload.Workers, true
	}
	return 1, false
}

func container(s *ogxv1beta1.OGXServer, in *Inputs) *corev1ac.ContainerApplyConfiguration {
	spec := &s.Spec
	ov := overrides(spec)
	p := spec.Port()

	c := corev1ac.Container().WithName(ContainerName).WithImage(in.Image).
		WithCommand(ov.Command...).
		WithArgs(ov.Args...).
		WithPorts(corev1ac.ContainerPort().WithContainerPort(p).WithProtocol(corev1.ProtocolTCP))
	if separateMetricsPort(spec) {
		c.WithPorts(corev1ac.ContainerPort().WithName(PortNameMetrics).
			WithContainerPort(spec.MetricsPort()).WithProtocol(corev1.ProtocolTCP))
	}

	scheme := corev1.URISchemeHTTP
	if spec.ServerTLS() != nil {
		scheme = corev1.URISchemeHTTPS
	}
	health := func() *corev1ac.HTTPGetActionApplyConfiguration {
		return corev1ac.HTTPGetAction().WithPath(HealthPath).WithPort(intstr.FromInt32(p)).WithScheme(scheme)
	}
	// The startup probe tolerates slow starts (model registration); the
	// readiness probe then takes the pod out of the Service while it cannot
	// answer. There is deliberately no liveness probe: a busy server must not
	// be restarted.
	c.WithStartupProbe(corev1ac.Probe().WithHTTPGet(health()).
		WithInitialDelaySeconds(15).WithPeriodSeconds(10).WithTimeoutSeconds(30).
		WithFailureThreshold(3).WithSuccessThreshold(1))
	c.WithReadinessProbe(corev1ac.Probe().WithHTTPGet(health()).
		WithPeriodSeconds(10).WithTimeoutSeconds(5).
		WithFailureThreshold(3).WithSuccessThreshold(1))

	c.WithSecurityContext(corev1ac.SecurityContext().
		WithAllowPrivilegeEscalation(false).
		WithCapabilities(corev1ac.Capabilities().WithDrop("ALL")))

	res := containerResources(spec)
	c.WithResources(viaJSON[corev1ac.ResourceRequirementsApplyConfiguration](&res))
	c.WithEnv(env(spec, in)...)
	c.WithVolumeMounts(volumeMounts(spec, in)...)
	return c
}

// containerResources is a deep copy of workload.resources with the defaults
// of docs/children.md, Container: W cores and 1Gi requested, and, only when
// workers is given, limits equal to the requests.
func containerResources(spec *ogxv1beta1.OGXServerSpec) corev1.ResourceRequirements {
	var r corev1.ResourceRequirements
	if spec.Workload != nil && spec.Workload.Resources != nil {
		r = *spec.Workload.Resources.DeepCopy()
	}
	w, workersSet := workers(spec)
	if r.Requests == nil {
		r.Requests = corev1.ResourceList{}
	}
	fill := func(list corev1.ResourceList, name corev1.ResourceName, q resource.Quantity) {
		if cur, ok := list[name]; !ok || cur.IsZero() {
			list[name] = q
		}
	}
	fill(r.Requests, corev1.ResourceCPU, *resource.NewQuantity(int64(w), resource.DecimalSI))
	fill(r.Requests, corev1.ResourceMemory, resource.MustParse("1Gi"))
	if workersSet {
		if r.Limits == nil {
			r.Limits = corev1.ResourceList{}
		}
		fill(r.Limits, corev1.ResourceCPU, r.Requests[corev1.ResourceCPU])
		fill(r.Limits, corev1.ResourceMemory, r.Requests[corev1.ResourceMemory])
	}
	return r
}
