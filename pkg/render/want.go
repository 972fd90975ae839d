package render

import (
	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

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

// WantRoleBinding reports whether N-rb is written: the OpenShift security API
// is served. An existing one is left alone otherwise.
func WantRoleBinding(in *Inputs) bool {
	return in != nil && in.OpenShiftSecurityServed
}

// WantMonitoring reports whether the ServiceMonitor and the PrometheusRule
// exist: monitoring on and the monitoring API served.
func WantMonitoring(s *ogxv1beta1.OGXServer, in *Inputs) bool {
	return s.Spec.MonitoringEnabled() && in != nil && in.MonitoringServed
}
