package v1beta1

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Phase summarises an OGXServer's state in one word; the conditions carry the
// detail.
// +kubebuilder:validation:Enum=Pending;Initializing;Ready;Failed;Terminating
type Phase string

// The phases, in the order an OGXServer normally moves through them.
const (
	PhasePending      Phase = "Pending"
	PhaseInitializing Phase = "Initializing"
	PhaseReady        Phase = "Ready"
	PhaseFailed       Phase = "Failed"
	PhaseTerminating  Phase = "Terminating"
)

// Starting reports whether p is a phase of a server that is not yet
// serving: Pending or Initializing. Status writes coalesce, Events wait
// for the phase's end and child creates log at -v=2 while it holds.
func (p Phase) Starting() bool { return p == PhasePending || p == PhaseInitializing }

// OGXServerStatus is what ogx-controller observed. It follows the kstatus
// conventions (Ready, Reconciling, Stalled and a top-level
// observedGeneration), so `kubectl wait --for=condition=Ready` works.
type OGXServerStatus struct {
	// ObservedGeneration is the metadata.generation this status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Phase is a one-word summary: Pending, Initializing, Ready, Failed or
	// Terminating.
	// +optional
	Phase Phase `json:"phase,omitempty"`
	// Conditions are the detailed observations, in a fixed order.
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// AvailableReplicas is the Deployment's available replica count.
	// +optional
	AvailableReplicas int32 `json:"availableReplicas,omitempty"`
	// Replicas is the Deployment's current replica count, as the Deployment
	// reports it in status.replicas: the scale subresource's status.replicas,
	// which a HorizontalPodAutoscaler targeting the OGXServer reads.
	// +optional
	Replicas int32 `json:"replicas,omitempty"`
	// Selector is the Deployment's label selector of the server's pods, in
	// its serialized form (app=ogx,app.kubernetes.io/instance=<name>): the
	// scale subresource's status.selector, by which a HorizontalPodAutoscaler
	// finds the pods whose metrics it reads.
	// +optional
	Selector string `json:"selector,omitempty"`
	// ServiceURL is the in-cluster URL of the server's Service.
	// +optional
	ServiceURL string `json:"serviceURL,omitempty"`
	// ExternalURL is the URL of the Ingress; empty until known, absent when
	// external access is off.
	// +optional
	ExternalURL *string `json:"externalURL,omitempty"`
	// Version holds the operator's and the running server's versions.
	// +optional
	Version VersionInfo `json:"version,omitempty"`
	// DistributionConfig describes the distributions and the providers the
	// running server reports.
	// +optional
	DistributionConfig DistributionConfig `json:"distributionConfig,omitempty"`
	// ResolvedDistribution is what the pods actually run and where their
	// config came from.
	// +optional
	ResolvedDistribution *ResolvedDistribution `json:"resolvedDistribution,omitempty"`
	// ConfigGeneration describes the generated config.yaml; absent unless
	// config generation is active.
	// +optional
	ConfigGeneration *ConfigGenerationStatus `json:"configGeneration,omitempty"`
}

// VersionInfo records versions.
type VersionInfo struct {
	// OperatorVersion is the build version of ogx-controller.
	// +optional
	OperatorVersion string `json:"operatorVersion,omitempty"`
	// ServerVersion is the version the server reports at /v1/version.
	// +optional
	ServerVersion string `json:"serverVersion,omitempty"`
	// LastUpdated is when either version last changed.
	// +optional
	LastUpdated metav1.Time `json:"lastUpdated,omitempty"`
}

// DistributionConfig describes distributions and providers.
type DistributionConfig struct {
	// ActiveDistribution is spec.distribution.name, or "custom" when an image
	// is given.
	// +optional
	ActiveDistribution string `json:"activeDistribution,omitempty"`
	// AvailableDistributions maps registry names to their images.
	// +optional
	AvailableDistributions map[string]string `json:"availableDistributions,omitempty"`
	// Providers are the providers the running server reports, sorted by api
	// and provider_id.
	// +optional
	Providers []ProviderInfo `json:"providers,omitempty"`
}

// ProviderInfo is one provider as the server reports it.
type ProviderInfo struct {
	// API is the API the provider serves.
	API string `json:"api"`
	// ProviderID is the provider's ID.
	ProviderID string `json:"provider_id"`
	// ProviderType is the provider's type, for example remote::vllm.
	ProviderType string `json:"provider_type"`
	// Config is the provider's configuration as the server reports it.
	Config apiextensionsv1.JSON `json:"config"`
	// Health is the provider's health as the server reports it.
	Health ProviderHealthStatus `json:"health"`
}

// ProviderHealthStatus is a provider's reported health.
type ProviderHealthStatus struct {
	// Status is the health status text.
	Status string `json:"status"`
	// Message explains the status.
	Message string `json:"message"`
}

// ResolvedDistribution records what the pods run.
type ResolvedDistribution struct {
	// Image is the image reference the pods run, with its digest when known.
	// +optional
	Image string `json:"image,omitempty"`
	// ConfigSource is where config.yaml came from: configmap, oci-label,
	// override or builtin.
	// +optional
	ConfigSource string `json:"configSource,omitempty"`
	// ConfigHash is sha256:<hex> of the base or override config bytes; empty
	// for builtin.
	// +optional
	ConfigHash string `json:"configHash,omitempty"`
	// LastHandledRecheck is the value of the ogx.io/recheck-image annotation
	// whose re-check of the image's digest was last carried out.
	// +optional
	LastHandledRecheck string `json:"lastHandledRecheck,omitempty"`
}

// ConfigGenerationStatus describes the generated config.yaml.
type ConfigGenerationStatus struct {
	// ObservedGeneration is the generation that produced the current config.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// ConfigMapName is the generated ConfigMap, <name>-config-<hash>.
	// +optional
	ConfigMapName string `json:"configMapName,omitempty"`
	// GeneratedAt is when configMapName last changed.
	// +optional
	GeneratedAt metav1.Time `json:"generatedAt,omitempty"`
	// ProviderCount is the number of providers in the merged config.
	// +optional
	ProviderCount int `json:"providerCount,omitempty"`
	// ResourceCount is the number of resources.models entries.
	// +optional
	ResourceCount int `json:"resourceCount,omitempty"`
	// ConfigVersion is the base config's version (2 when not numeric).
	// +optional
	ConfigVersion int `json:"configVersion,omitempty"`
}
