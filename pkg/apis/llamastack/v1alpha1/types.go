package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// LlamaStackDistribution is the legacy llama-stack operator's server object.
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=llsd
// +kubebuilder:selectablefield:JSONPath=`.spec.server.userConfig.configMapName`
// +kubebuilder:selectablefield:JSONPath=`.spec.server.userConfig.configMapNamespace`
// +kubebuilder:selectablefield:JSONPath=`.spec.server.tlsConfig.caBundle.configMapName`
// +kubebuilder:selectablefield:JSONPath=`.spec.server.tlsConfig.caBundle.configMapNamespace`
// +kubebuilder:printcolumn:name="Phase",type="string",JSONPath=".status.phase"
// +kubebuilder:printcolumn:name="Operator Version",type="string",JSONPath=".status.version.operatorVersion"
// +kubebuilder:printcolumn:name="Server Version",type="string",JSONPath=".status.version.llamaStackServerVersion"
// +kubebuilder:printcolumn:name="Available",type="integer",JSONPath=".status.availableReplicas"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp"
type LlamaStackDistribution struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired legacy server.
	// +required
	Spec LlamaStackDistributionSpec `json:"spec"`
	// Status is what the legacy operator observed.
	// +optional
	Status LlamaStackDistributionStatus `json:"status,omitempty"`
}

// LlamaStackDistributionList is a list of LlamaStackDistribution objects.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
type LlamaStackDistributionList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// Items are the objects of the list.
	Items []LlamaStackDistribution `json:"items"`
}

// LlamaStackDistributionSpec is the legacy desired state.
type LlamaStackDistributionSpec struct {
	// Replicas is the Deployment's replica count.
	// +optional
	// +kubebuilder:default:=1
	Replicas int32 `json:"replicas,omitempty"`
	// Server describes the server container and pod.
	// +required
	Server ServerSpec `json:"server"`
	// Network configures exposure and allowed clients.
	// +optional
	Network *NetworkSpec `json:"network,omitempty"`
}

// NetworkSpec is the legacy network configuration.
type NetworkSpec struct {
	// ExposeRoute creates an Ingress (a Route on OpenShift).
	// +optional
	// +kubebuilder:default:=false
	ExposeRoute bool `json:"exposeRoute,omitempty"`
	// AllowedFrom lists who may reach the server.
	// +optional
	AllowedFrom *AllowedFromSpec `json:"allowedFrom,omitempty"`
}

// AllowedFromSpec lists the namespaces allowed to reach the server.
type AllowedFromSpec struct {
	// Namespaces are namespace names; "*" allows all namespaces.
	// +optional
	Namespaces []string `json:"namespaces,omitempty"`
	// Labels are namespace label keys; a namespace with any of them is
	// allowed.
	// +optional
	Labels []string `json:"labels,omitempty"`
}

// ServerSpec is the legacy server description.
type ServerSpec struct {
	// Distribution selects the image.
	// +required
	Distribution DistributionType `json:"distribution"`
	// ContainerSpec shapes the server container.
	// +optional
	ContainerSpec ContainerSpec `json:"containerSpec,omitempty"`
	// Workers is the number of uvicorn workers.
	// +optional
	// +kubebuilder:validation:Minimum=1
	Workers *int32 `json:"workers,omitempty"`
	// PodOverrides are pod-level knobs.
	// +optional
	PodOverrides *PodOverrides `json:"podOverrides,omitempty"`
	// PodDisruptionBudget configures a PodDisruptionBudget.
	// +optional
	PodDisruptionBudget *PodDisruptionBudgetSpec `json:"podDisruptionBudget,omitempty"`
	// TopologySpreadConstraints spread the pods.
	// +optional
	TopologySpreadConstraints []corev1.TopologySpreadConstraint `json:"topologySpreadConstraints,omitempty"`
	// Autoscaling configures a HorizontalPodAutoscaler.
	// +optional
	Autoscaling *AutoscalingSpec `json:"autoscaling,omitempty"`
	// Storage gives the server a PersistentVolumeClaim.
	// +optional
	Storage *StorageSpec `json:"storage,omitempty"`
	// UserConfig mounts a ConfigMap whose key config.yaml is the server's
	// config.
	// +optional
	UserConfig *UserConfigSpec `json:"userConfig,omitempty"`
	// TLSConfig configures trusted CAs.
	// +optional
	TLSConfig *TLSConfig `json:"tlsConfig,omitempty"`
}

// DistributionType selects the legacy image; name and image are exclusive.
//
// +kubebuilder:validation:XValidation:rule="!(has(self.name) && has(self.image))",message="Only one of name or image can be specified"
type DistributionType struct {
	// Name is a distribution name.
	// +optional
	Name string `json:"name,omitempty"`
	// Image is an image reference.
	// +optional
	Image string `json:"image,omitempty"`
}

// ContainerSpec shapes the legacy server container.
type ContainerSpec struct {
	// Name is the container's name.
	// +optional
	// +kubebuilder:default:="llama-stack"
	Name string `json:"name,omitempty"`
	// Port is the server port; 0 means 8321.
	// +optional
	Port int32 `json:"port,omitempty"`
	// Resources are the container's resources.
	// +optional
	Resources corev1.ResourceRequirements `json:"resources,omitempty"`
	// Env are extra environment variables.
	// +optional
	Env []corev1.EnvVar `json:"env,omitempty"`
	// Command replaces the entrypoint.
	// +optional
	Command []string `json:"command,omitempty"`
	// Args replaces the arguments.
	// +optional
	Args []string `json:"args,omitempty"`
}

// PodOverrides are legacy pod-level knobs.
type PodOverrides struct {
	// ServiceAccountName runs the pods as this ServiceAccount.
	// +optional
	ServiceAccountName string `json:"serviceAccountName,omitempty"`
	// TerminationGracePeriodSeconds is the pods' grace period.
	// +optional
	TerminationGracePeriodSeconds *int64 `json:"terminationGracePeriodSeconds,omitempty"`
	// Volumes are extra pod volumes.
	// +optional
	Volumes []corev1.Volume `json:"volumes,omitempty"`
	// VolumeMounts are extra container mounts.
	// +optional
	VolumeMounts []corev1.VolumeMount `json:"volumeMounts,omitempty"`
}

// PodDisruptionBudgetSpec is the legacy disruption budget.
type PodDisruptionBudgetSpec struct {
	// MinAvailable pods.
	// +optional
	MinAvailable *intstr.IntOrString `json:"minAvailable,omitempty"`
	// MaxUnavailable pods.
	// +optional
	MaxUnavailable *intstr.IntOrString `json:"maxUnavailable,omitempty"`
}

// AutoscalingSpec is the legacy autoscaler configuration.
type AutoscalingSpec struct {
	// MinReplicas is the lower bound.
	// +optional
	MinReplicas *int32 `json:"minReplicas,omitempty"`
	// MaxReplicas is the upper bound.
	// +required
	MaxReplicas int32 `json:"maxReplicas"`
	// TargetCPUUtilizationPercentage is the CPU target.
	// +optional
	TargetCPUUtilizationPercentage *int32 `json:"targetCPUUtilizationPercentage,omitempty"`
	// TargetMemoryUtilizationPercentage is the memory target.
	// +optional
	TargetMemoryUtilizationPercentage *int32 `json:"targetMemoryUtilizationPercentage,omitempty"`
}

// StorageSpec is the legacy persistent storage.
type StorageSpec struct {
	// Size is the PVC size; 10Gi when unset.
	// +optional
	Size *resource.Quantity `json:"size,omitempty"`
	// MountPath is the mount path; /.llama when unset.
	// +optional
	MountPath string `json:"mountPath,omitempty"`
}

// UserConfigSpec names the ConfigMap holding config.yaml.
type UserConfigSpec struct {
	// ConfigMapName is the ConfigMap.
	// +required
	ConfigMapName string `json:"configMapName"`
	// ConfigMapNamespace is its namespace; the object's own when empty.
	// +optional
	ConfigMapNamespace string `json:"configMapNamespace,omitempty"`
}

// TLSConfig is the legacy TLS configuration.
type TLSConfig struct {
	// CABundle names a ConfigMap of CA certificates.
	// +optional
	CABundle *CABundleConfig `json:"caBundle,omitempty"`
}

// CABundleConfig names a ConfigMap of CA certificates.
type CABundleConfig struct {
	// ConfigMapName is the ConfigMap.
	// +required
	ConfigMapName string `json:"configMapName"`
	// ConfigMapNamespace is its namespace; the object's own when empty.
	// +optional
	ConfigMapNamespace string `json:"configMapNamespace,omitempty"`
	// ConfigMapKeys are the keys holding certificates; ca-bundle.crt when
	// empty.
	// +optional
	// +kubebuilder:validation:MaxItems=50
	ConfigMapKeys []string `json:"configMapKeys,omitempty"`
}

// LlamaStackDistributionStatus is the legacy observed state.
type LlamaStackDistributionStatus struct {
	// Phase summarises the state.
	// +optional
	Phase DistributionPhase `json:"phase,omitempty"`
	// Version holds versions.
	// +optional
	Version VersionInfo `json:"version,omitempty"`
	// DistributionConfig describes distributions and providers.
	// +optional
	DistributionConfig DistributionConfig `json:"distributionConfig,omitempty"`
	// Conditions are detailed observations.
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// AvailableReplicas is the number of available replicas.
	// +optional
	AvailableReplicas int32 `json:"availableReplicas,omitempty"`
	// ServiceURL is the in-cluster URL.
	// +optional
	ServiceURL string `json:"serviceURL,omitempty"`
	// RouteURL is the external URL.
	// +optional
	RouteURL *string `json:"routeURL,omitempty"`
}

// DistributionPhase is the legacy phase.
// +kubebuilder:validation:Enum=Pending;Initializing;Ready;Failed;Terminating
type DistributionPhase string

// VersionInfo holds legacy versions.
type VersionInfo struct {
	// OperatorVersion is the legacy operator's version.
	// +optional
	OperatorVersion string `json:"operatorVersion,omitempty"`
	// LlamaStackServerVersion is the server's version.
	// +optional
	LlamaStackServerVersion string `json:"llamaStackServerVersion,omitempty"`
	// LastUpdated is when a version last changed.
	// +optional
	LastUpdated metav1.Time `json:"lastUpdated,omitempty"`
}

// DistributionConfig describes distributions and providers.
type DistributionConfig struct {
	// ActiveDistribution is the running distribution.
	// +optional
	ActiveDistribution string `json:"activeDistribution,omitempty"`
	// AvailableDistributions maps names to images.
	// +optional
	AvailableDistributions map[string]string `json:"availableDistributions,omitempty"`
	// Providers are the providers the server reports.
	// +optional
	Providers []ProviderInfo `json:"providers,omitempty"`
}

// ProviderInfo is one reported provider.
type ProviderInfo struct {
	// API served.
	API string `json:"api"`
	// ProviderID of the provider.
	ProviderID string `json:"provider_id"`
	// ProviderType of the provider.
	ProviderType string `json:"provider_type"`
	// Config as reported.
	Config apiextensionsv1.JSON `json:"config"`
	// Health as reported.
	Health ProviderHealthStatus `json:"health"`
}

// ProviderHealthStatus is a reported health.
type ProviderHealthStatus struct {
	// Status text.
	Status string `json:"status"`
	// Message explaining the status.
	Message string `json:"message"`
}
