package v1beta1

import (
	"k8s.io/apimachinery/pkg/api/resource"
)

// Effective defaults used by the controller when a field or its parent is
// absent. The schema defaults only apply when the parent object is present
// (network.port becomes 8321 only if spec.network exists), so every reader
// goes through these helpers instead of reading the fields directly.
const (
	DefaultServerPort  int32 = 8321
	DefaultMetricsPort int32 = 9464
	DefaultReplicas    int32 = 1
	DefaultMountPath         = "/.ogx"
	DefaultStorageSize       = "10Gi"
	// DefaultHPACPUTarget is the CPU target of an HPA for which no target is
	// given.
	DefaultHPACPUTarget int32 = 80
)

// Annotation keys a user sets on an OGXServer to adopt a legacy
// LlamaStackDistribution's objects.
const (
	AnnotationAdoptStorage    = "ogx.io/adopt-storage"
	AnnotationAdoptNetworking = "ogx.io/adopt-networking"
)

// AnnotationRecheckImage asks for the server's image tag to be resolved to
// its digest again now instead of when the re-check interval has passed
// (docs/config-generation.md, Digest pinning). Any new value is one
// request; status.resolvedDistribution.lastHandledRecheck echoes the value
// answered, so a request is never answered twice, also across restarts.
const AnnotationRecheckImage = "ogx.io/recheck-image"

// WatchLabel must be set to "true" on every Secret and ConfigMap an OGXServer
// references: the controller's caches only hold labelled objects.
const WatchLabel = "ogx.io/watch"

// ConfigMode says where the server's config.yaml comes from.
type ConfigMode string

// The three config modes (docs/config-generation.md, Config modes).
const (
	// ConfigModeOverride uses spec.overrideConfig verbatim.
	ConfigModeOverride ConfigMode = "override"
	// ConfigModeGenerated generates config.yaml from the declarative fields.
	ConfigModeGenerated ConfigMode = "generated"
	// ConfigModeInactive leaves the image's built-in config in place.
	ConfigModeInactive ConfigMode = "inactive"
)

// ConfigMode derives the config mode: override when overrideConfig is set,
// else generated when providers, resources, storage, a non-empty disabledAPIs
// or server TLS is set (TLS is switched on through config.yaml), else
// inactive.
func (s *OGXServerSpec) ConfigMode() ConfigMode {
	switch {
	case s.OverrideConfig != nil:
		return ConfigModeOverride
	case s.Providers != nil, s.Resources != nil, s.Storage != nil, len(s.DisabledAPIs) > 0, s.ServerTLS() != nil:
		return ConfigModeGenerated
	}
	return ConfigModeInactive
}

// ServerTLS returns spec.network.tls, or nil.
func (s *OGXServerSpec) ServerTLS() *ServerTLSSpec {
	if s.Network == nil {
		return nil
	}
	return s.Network.TLS
}

// Port is the effective server port.
func (s *OGXServerSpec) Port() int32 {
	if s.Network != nil && s.Network.Port != 0 {
		return s.Network.Port
	}
	return DefaultServerPort
}

// MonitoringEnabled reports whether metrics are on (the default).
func (s *OGXServerSpec) MonitoringEnabled() bool {
	return s.Monitoring == nil || s.Monitoring.Enabled == nil || *s.Monitoring.Enabled
}

// MetricsPort is the effective metrics port.
func (s *OGXServerSpec) MetricsPort() int32 {
	if s.Monitoring != nil && s.Monitoring.MetricsPort != nil {
		return *s.Monitoring.MetricsPort
	}
	return DefaultMetricsPort
}

// NetworkPolicyEnabled reports whether a NetworkPolicy is managed (the
// default).
func (s *OGXServerSpec) NetworkPolicyEnabled() bool {
	if s.Network == nil || s.Network.Policy == nil || s.Network.Policy.Enabled == nil {
		return true
	}
	return *s.Network.Policy.Enabled
}

// ExternalAccessEnabled reports whether an Ingress is managed.
func (s *OGXServerSpec) ExternalAccessEnabled() bool {
	return s.Network != nil && s.Network.ExternalAccess != nil && s.Network.ExternalAccess.Enabled
}

// Replicas is the effective workload.replicas.
func (s *OGXServerSpec) Replicas() int32 {
	if s.Workload != nil && s.Workload.Replicas != nil {
		return *s.Workload.Replicas
	}
	return DefaultReplicas
}

// Autoscaling returns spec.workload.autoscaling, or nil.
func (s *OGXServerSpec) Autoscaling() *AutoscalingSpec {
	if s.Workload == nil {
		return nil
	}
	return s.Workload.Autoscaling
}

// StorageSpec returns spec.workload.storage, or nil when the server has no
// PVC.
func (s *OGXServerSpec) StorageSpec() *PVCStorageSpec {
	if s.Workload == nil {
		return nil
	}
	return s.Workload.Storage
}

// MountPath is the effective mount path of the server's storage.
func (s *OGXServerSpec) MountPath() string {
	if st := s.StorageSpec(); st != nil && st.MountPath != "" {
		return st.MountPath
	}
	return DefaultMountPath
}

// StorageSize is the effective PVC size.
func (s *OGXServerSpec) StorageSize() resource.Quantity {
	if st := s.StorageSpec(); st != nil && st.Size != nil {
		return st.Size.DeepCopy()
	}
	return resource.MustParse(DefaultStorageSize)
}

// MultiPod reports whether the server may run more than one pod: more than
// one replica, or autoscaling up to more than one.
func (s *OGXServerSpec) MultiPod() bool {
	if a := s.Autoscaling(); a != nil && a.MaxReplicas > 1 {
		return true
	}
	return s.Replicas() > 1
}

// HPAMinReplicas is the effective HPA minimum: max(1, replicas,
// minReplicas).
func (s *OGXServerSpec) HPAMinReplicas() int32 {
	m := max(int32(1), s.Replicas())
	if a := s.Autoscaling(); a != nil && a.MinReplicas != nil {
		m = max(m, *a.MinReplicas)
	}
	return m
}

// DistributionName returns spec.distribution.name, or "" when absent.
func (s *OGXServerSpec) DistributionName() string {
	if s.Distribution.Name == nil {
		return ""
	}
	return *s.Distribution.Name
}

// DistributionImage returns spec.distribution.image, or "" when absent.
func (s *OGXServerSpec) DistributionImage() string {
	if s.Distribution.Image == nil {
		return ""
	}
	return *s.Distribution.Image
}
