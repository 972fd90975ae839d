package render

import (
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	autoscalingv2ac "k8s.io/client-go/applyconfigurations/autoscaling/v2"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	networkingv1ac "k8s.io/client-go/applyconfigurations/networking/v1"
	policyv1ac "k8s.io/client-go/applyconfigurations/policy/v1"
	rbacv1ac "k8s.io/client-go/applyconfigurations/rbac/v1"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

// OGXServerKind is the kind named in owner references.
const OGXServerKind = "OGXServer"

// OwnerReference is the controller owner reference every child except the
// PVC carries, for garbage collection and the ownership guard. apiVersion and
// kind are fixed because TypeMeta is empty on objects from informer caches.
func OwnerReference(s *ogxv1beta1.OGXServer) *metav1ac.OwnerReferenceApplyConfiguration {
	return metav1ac.OwnerReference().
		WithAPIVersion(ogxv1beta1.SchemeGroupVersion.String()).
		WithKind(OGXServerKind).
		WithName(s.Name).
		WithUID(s.UID).
		WithController(true).
		WithBlockOwnerDeletion(true)
}

// ownerRefs is the owner reference as a variadic list, or nothing when the
// OGXServer has no UID, which only offline `render` input can lack
// (docs/cli.md, Output).
func ownerRefs(s *ogxv1beta1.OGXServer) []*metav1ac.OwnerReferenceApplyConfiguration {
	if s.UID == "" {
		return nil
	}
	return []*metav1ac.OwnerReferenceApplyConfiguration{OwnerReference(s)}
}

// Presence of the optional children (docs/children.md, Names and presence):
// the controllers delete an owned child whose Want function turns false (but
// never the PVC or the RoleBinding), and `render` prints exactly these.

// WantHPA reports whether N-hpa exists: autoscaling on.
func WantHPA(s *ogxv1beta1.OGXServer) bool {
	return s.Spec.Autoscaling() != nil
}

// WantPDB reports whether N-pdb exists: a podDisruptionBudget is given, or
// the server is multi-pod.
func WantPDB(s *ogxv1beta1.OGXServer) bool {
	if w := s.Spec.Workload; w != nil && w.PodDisruptionBudget != nil {
		return true
	}
	return s.Spec.MultiPod()
}

// WantIngress reports whether N-ingress exists: external access enabled.
func WantIngress(s *ogxv1beta1.OGXServer) bool {
	return s.Spec.ExternalAccessEnabled()
}

// WantNetworkPolicy reports whether N-network-policy exists: unless
// spec.network.policy.enabled is false.
func WantNetworkPolicy(s *ogxv1beta1.OGXServer) bool {
	return s.Spec.NetworkPolicyEnabled()
}

// WantPVC reports whether N-pvc is wanted: storage on and no adopted PVC in
// effect (PVCName empty or N-pvc).
func WantPVC(s *ogxv1beta1.OGXServer, in *Inputs) bool {
	if s.Spec.StorageSpec() == nil {
		return false
	}
	return in == nil || in.PVCName == "" || in.PVCName == PVCName(s.Name)
}

// WantRoleBinding reports whether N-rb is written: the administrator let
// servers run as any UID (Inputs.ServerAnyUID) and the OpenShift security
// API is served. An existing one is left alone otherwise: it goes with its
// OGXServer through garbage collection, or is deleted by hand.
func WantRoleBinding(in *Inputs) bool {
	return in != nil && in.ServerAnyUID && in.OpenShiftSecurityServed
}

// WantMonitoring reports whether the ServiceMonitor and the PrometheusRule
// exist: monitoring on and the monitoring API served.
func WantMonitoring(s *ogxv1beta1.OGXServer, in *Inputs) bool {
	return s.Spec.MonitoringEnabled() && in != nil && in.MonitoringServed
}

// AnyUIDClusterRole is the OpenShift ClusterRole that grants use of the
// anyuid SecurityContextConstraints; the server image may run as a fixed UID.
const AnyUIDClusterRole = "system:openshift:scc:anyuid"

// ServiceAccount renders N-sa (docs/children.md, ServiceAccount and
// RoleBinding). It is rendered even when overrides.serviceAccountName points
// the pods elsewhere, as upstream did, so a switch back to the default account
// never waits for its creation.
func ServiceAccount(s *ogxv1beta1.OGXServer, _ *Inputs) *corev1ac.ServiceAccountApplyConfiguration {
	return corev1ac.ServiceAccount(ServiceAccountName(s.Name), s.Namespace).
		WithLabels(ChildLabels()).
		WithOwnerReferences(ownerRefs(s)...)
}

// RoleBinding renders N-rb. The subject is always N-sa, even with
// overrides.serviceAccountName: a user-chosen account gets its SCC from the
// user, as upstream.
func RoleBinding(s *ogxv1beta1.OGXServer, _ *Inputs) *rbacv1ac.RoleBindingApplyConfiguration {
	return rbacv1ac.RoleBinding(RoleBindingName(s.Name), s.Namespace).
		WithLabels(ChildLabels()).
		WithOwnerReferences(ownerRefs(s)...).
		WithRoleRef(rbacv1ac.RoleRef().
			WithAPIGroup("rbac.authorization.k8s.io").
			WithKind("ClusterRole").
			WithName(AnyUIDClusterRole)).
		WithSubjects(rbacv1ac.Subject().
			WithKind("ServiceAccount").
			WithName(ServiceAccountName(s.Name)).
			WithNamespace(s.Namespace))
}

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

// PVC renders N-pvc (docs/children.md, PersistentVolumeClaim), which the
// controller only ever creates. It has no owner reference: user data must
// survive deletion of the OGXServer, and a recreated OGXServer of the same
// name reuses the claim.
func PVC(s *ogxv1beta1.OGXServer, _ *Inputs) *corev1ac.PersistentVolumeClaimApplyConfiguration {
	return corev1ac.PersistentVolumeClaim(PVCName(s.Name), s.Namespace).
		WithLabels(InstanceChildLabels(s.Name)).
		WithSpec(corev1ac.PersistentVolumeClaimSpec().
			WithAccessModes(corev1.ReadWriteOnce).
			WithResources(corev1ac.VolumeResourceRequirements().
				WithRequests(corev1.ResourceList{corev1.ResourceStorage: s.Spec.StorageSize()})))
}

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

// PDB renders N-pdb (docs/children.md, PodDisruptionBudget). Without a user
// budget, maxUnavailable 1 keeps all but one pod of a multi-pod server through
// a node drain.
func PDB(s *ogxv1beta1.OGXServer, _ *Inputs) *policyv1ac.PodDisruptionBudgetApplyConfiguration {
	spec := policyv1ac.PodDisruptionBudgetSpec().
		WithSelector(metav1ac.LabelSelector().WithMatchLabels(SelectorLabels(s.Name)))
	var user *ogxv1beta1.PodDisruptionBudgetSpec
	if w := s.Spec.Workload; w != nil {
		user = w.PodDisruptionBudget
	}
	switch {
	case user != nil && user.MinAvailable != nil:
		spec.WithMinAvailable(*user.MinAvailable)
	case user != nil && user.MaxUnavailable != nil:
		spec.WithMaxUnavailable(*user.MaxUnavailable)
	default:
		spec.WithMaxUnavailable(intstr.FromInt32(1))
	}
	return policyv1ac.PodDisruptionBudget(PDBName(s.Name), s.Namespace).
		WithLabels(ScalingLabels(s.Name)).
		WithOwnerReferences(ownerRefs(s)...).
		WithSpec(spec)
}

// Ingress renders N-ingress (docs/children.md, Ingress). Annotations and
// ingressClassName are deliberately not rendered: they belong to the user
// (for example a backend-protocol annotation for a TLS backend) and survive
// the applies because ogx-controller never owns them.
func Ingress(s *ogxv1beta1.OGXServer, _ *Inputs) *networkingv1ac.IngressApplyConfiguration {
	var host string
	if n := s.Spec.Network; n != nil && n.ExternalAccess != nil {
		host = n.ExternalAccess.Hostname
	}
	rule := networkingv1ac.IngressRule()
	if host != "" {
		rule.WithHost(host)
	}
	rule.WithHTTP(networkingv1ac.HTTPIngressRuleValue().WithPaths(
		networkingv1ac.HTTPIngressPath().
			WithPath("/").
			WithPathType(networkingv1.PathTypePrefix).
			WithBackend(networkingv1ac.IngressBackend().WithService(
				networkingv1ac.IngressServiceBackend().
					WithName(ServiceName(s.Name)).
					WithPort(networkingv1ac.ServiceBackendPort().WithNumber(s.Spec.Port()))))))
	spec := networkingv1ac.IngressSpec().WithRules(rule)
	if t := s.Spec.ServerTLS(); t != nil {
		tls := networkingv1ac.IngressTLS()
		if host != "" {
			tls.WithHosts(host)
		}
		spec.WithTLS(tls.WithSecretName(t.SecretName))
	}
	return networkingv1ac.Ingress(IngressName(s.Name), s.Namespace).
		WithLabels(IngressLabels(s.Name)).
		WithOwnerReferences(ownerRefs(s)...).
		WithSpec(spec)
}

// CABundleConfigMap renders N-ca-bundle (docs/children.md, CA bundle
// ConfigMap). It is not immutable: the bundle changes in place, and the
// content hash on the pod template rolls the pods.
func CABundleConfigMap(s *ogxv1beta1.OGXServer, data string) *corev1ac.ConfigMapApplyConfiguration {
	return corev1ac.ConfigMap(CABundleName(s.Name), s.Namespace).
		WithLabels(CABundleLabels(s.Name)).
		WithOwnerReferences(ownerRefs(s)...).
		WithData(map[string]string{CABundleKey: data})
}

// GeneratedConfigMap renders the generated config ConfigMap name
// (GeneratedConfigName; docs/config-generation.md, Generated ConfigMap). It is
// immutable: the name is the content hash, so a new config is a new object
// and ReplicaSets still mounting an old one keep it until retention.
func GeneratedConfigMap(s *ogxv1beta1.OGXServer, name, configYAML string) *corev1ac.ConfigMapApplyConfiguration {
	return corev1ac.ConfigMap(name, s.Namespace).
		WithLabels(GeneratedConfigLabels(s.Name)).
		WithOwnerReferences(ownerRefs(s)...).
		WithImmutable(true).
		WithData(map[string]string{GeneratedConfigKey: configYAML})
}
