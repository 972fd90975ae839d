package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// OGXServer runs one OGX (Open GenAI Stack) server: ogx-controller turns it
// into a Deployment, a Service, generated config and its other child
// objects, and reports what it sees in the status.
//
// +genclient
// +genclient:method=GetScale,verb=get,subresource=scale,result=k8s.io/api/autoscaling/v1.Scale
// +genclient:method=UpdateScale,verb=update,subresource=scale,input=k8s.io/api/autoscaling/v1.Scale,result=k8s.io/api/autoscaling/v1.Scale
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.workload.replicas,statuspath=.status.replicas,selectorpath=.status.selector
// +kubebuilder:resource:shortName=ogx,categories=ogx
// +kubebuilder:printcolumn:name="Phase",type="string",JSONPath=".status.phase"
// +kubebuilder:printcolumn:name="Ready",type="string",JSONPath=".status.conditions[?(@.type==\"Ready\")].status"
// +kubebuilder:printcolumn:name="Distribution",type="string",JSONPath=".status.resolvedDistribution.image",priority=1
// +kubebuilder:printcolumn:name="Config",type="string",JSONPath=".status.configGeneration.configMapName",priority=1
// +kubebuilder:printcolumn:name="Providers",type="integer",JSONPath=".status.configGeneration.providerCount"
// +kubebuilder:printcolumn:name="Operator Version",type="string",JSONPath=".status.version.operatorVersion",priority=1
// +kubebuilder:printcolumn:name="Server Version",type="string",JSONPath=".status.version.serverVersion",priority=1
// +kubebuilder:printcolumn:name="Available",type="integer",JSONPath=".status.availableReplicas"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp"
type OGXServer struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired server: which distribution to run, how it is
	// configured, exposed, secured and shaped.
	// +required
	Spec OGXServerSpec `json:"spec"`
	// Status is what ogx-controller last observed. It is written only when it
	// changes.
	// +optional
	Status OGXServerStatus `json:"status,omitempty"`
}

// OGXServerList is a list of OGXServer objects.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
type OGXServerList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// Items are the OGXServers of the list.
	Items []OGXServer `json:"items"`
}

// OGXServerSpec is the desired state of an OGXServer.
//
// overrideConfig supplies a complete config.yaml, so it excludes every field
// that feeds config generation.
//
// +kubebuilder:validation:XValidation:rule="!has(self.overrideConfig) || !has(self.providers)",message="overrideConfig and providers are mutually exclusive"
// +kubebuilder:validation:XValidation:rule="!has(self.overrideConfig) || !has(self.resources)",message="overrideConfig and resources are mutually exclusive"
// +kubebuilder:validation:XValidation:rule="!has(self.overrideConfig) || !has(self.storage)",message="overrideConfig and storage are mutually exclusive"
// +kubebuilder:validation:XValidation:rule="!has(self.overrideConfig) || !has(self.disabledAPIs)",message="overrideConfig and disabledAPIs are mutually exclusive"
// +kubebuilder:validation:XValidation:rule="!has(self.overrideConfig) || !has(self.baseConfig)",message="overrideConfig and baseConfig are mutually exclusive"
// +kubebuilder:validation:XValidation:rule="!has(self.providers) || !has(self.disabledAPIs) || !self.disabledAPIs.exists(d, d == 'inference') || !has(self.providers.inference)",message="inference cannot be both in providers and disabledAPIs"
// +kubebuilder:validation:XValidation:rule="!has(self.providers) || !has(self.disabledAPIs) || !self.disabledAPIs.exists(d, d == 'vector_io') || !has(self.providers.vectorIo)",message="vector_io cannot be both in providers and disabledAPIs"
// +kubebuilder:validation:XValidation:rule="!has(self.providers) || !has(self.disabledAPIs) || !self.disabledAPIs.exists(d, d == 'tool_runtime') || !has(self.providers.toolRuntime)",message="tool_runtime cannot be both in providers and disabledAPIs"
// +kubebuilder:validation:XValidation:rule="!has(self.providers) || !has(self.disabledAPIs) || !self.disabledAPIs.exists(d, d == 'files') || !has(self.providers.files)",message="files cannot be both in providers and disabledAPIs"
// +kubebuilder:validation:XValidation:rule="!has(self.providers) || !has(self.disabledAPIs) || !self.disabledAPIs.exists(d, d == 'batches') || !has(self.providers.batches)",message="batches cannot be both in providers and disabledAPIs"
// +kubebuilder:validation:XValidation:rule="!has(self.providers) || !has(self.disabledAPIs) || !self.disabledAPIs.exists(d, d == 'responses') || !has(self.providers.responses)",message="responses cannot be both in providers and disabledAPIs"
// +kubebuilder:validation:XValidation:rule="!has(self.providers) || !has(self.disabledAPIs) || !self.disabledAPIs.exists(d, d == 'file_processors') || !has(self.providers.fileProcessors)",message="file_processors cannot be both in providers and disabledAPIs"
type OGXServerSpec struct {
	// Distribution selects the server image: a registry name or an image
	// reference, exactly one of them.
	// +required
	Distribution DistributionSpec `json:"distribution"`

	// Providers declares the server's providers per API. Setting it switches
	// config.yaml generation on.
	// +optional
	Providers *ProvidersSpec `json:"providers,omitempty"`

	// Resources declares the models registered when the server starts.
	// +optional
	Resources *ResourcesSpec `json:"resources,omitempty"`

	// Storage configures the backends the server keeps its own state in.
	// +optional
	Storage *StateStorageSpec `json:"storage,omitempty"`

	// DisabledAPIs lists APIs removed from the generated config.yaml. An API
	// listed here may not also be configured under providers.
	// +optional
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=7
	DisabledAPIs []DisabledAPI `json:"disabledAPIs,omitempty"`

	// RegistryRefreshIntervalSeconds sets how often the server refreshes its
	// model registry (env OGX_REGISTRY_REFRESH_INTERVAL_SECONDS).
	// +optional
	// +kubebuilder:validation:Minimum=1
	RegistryRefreshIntervalSeconds *int32 `json:"registryRefreshIntervalSeconds,omitempty"`

	// Network sets the server port, server-side TLS, external access and the
	// managed NetworkPolicy.
	// +optional
	Network *NetworkSpec `json:"network,omitempty"`

	// TLS configures outbound (client-side) TLS: trusted CAs and a client
	// identity for mutual TLS towards providers.
	// +optional
	TLS *OutboundTLSSpec `json:"tls,omitempty"`

	// Workload shapes the Deployment and its pods, storage, autoscaling and
	// disruption budget.
	// +optional
	Workload *WorkloadSpec `json:"workload,omitempty"`

	// Monitoring controls the metrics endpoint and the monitoring objects.
	// +optional
	Monitoring *MonitoringSpec `json:"monitoring,omitempty"`

	// BaseConfig is a ConfigMap key holding the config.yaml that generation
	// starts from. It wins over the base config carried in the image's OCI
	// labels.
	// +optional
	BaseConfig *ConfigMapKeyRef `json:"baseConfig,omitempty"`

	// OverrideConfig is a ConfigMap key holding a complete config.yaml that the
	// server uses verbatim; no generation takes place.
	// +optional
	OverrideConfig *ConfigMapKeyRef `json:"overrideConfig,omitempty"`
}

// DisabledAPI is the config.yaml spelling of an API that can be disabled.
// +kubebuilder:validation:Enum=batches;file_processors;inference;responses;tool_runtime;vector_io;files
type DisabledAPI string

// DistributionSpec selects the server image.
//
// Presence, not emptiness, is what the CEL rules check; an empty name or image
// is rejected by the admission webhook instead. The fields are pointers so the
// webhook can tell `name: ""` from an absent name.
//
// +kubebuilder:validation:XValidation:rule="!(has(self.name) && has(self.image))",message="only one of name or image can be specified"
// +kubebuilder:validation:XValidation:rule="has(self.name) || has(self.image)",message="one of name or image must be specified"
type DistributionSpec struct {
	// Name is a distribution of the built-in registry (starter, remote-vllm,
	// meta-reference-gpu, postgres-demo), resolved to an image by ogx-controller.
	// +optional
	Name *string `json:"name,omitempty"`
	// Image is a container image reference used as is, bypassing the registry.
	// +optional
	Image *string `json:"image,omitempty"`
}

// SecretKeyRef names one key of a Secret in the OGXServer's namespace. The
// Secret must carry the label ogx.io/watch: "true". Its value reaches the
// server only as an environment variable taken from the Secret.
type SecretKeyRef struct {
	// Name is the Secret's name.
	// +required
	// +kubebuilder:validation:MinLength=1
	Name string `json:"name"`
	// Key is the key within the Secret.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-zA-Z0-9]([a-zA-Z0-9\-_.]*[a-zA-Z0-9])?$`
	Key string `json:"key"`
}

// ConfigMapKeyRef names one key of a ConfigMap in the OGXServer's namespace.
// The ConfigMap must carry the label ogx.io/watch: "true".
type ConfigMapKeyRef struct {
	// Name is the ConfigMap's name.
	// +required
	// +kubebuilder:validation:MinLength=1
	Name string `json:"name"`
	// Key is the key within the ConfigMap.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-zA-Z0-9]([a-zA-Z0-9\-_.]*[a-zA-Z0-9])?$`
	Key string `json:"key"`
}

// ResourcesSpec declares what the server registers at startup.
type ResourcesSpec struct {
	// Models are registered with inference providers.
	// +optional
	// +kubebuilder:validation:MinItems=1
	Models []ModelSpec `json:"models,omitempty"`
}

// ModelSpec registers one model.
//
// +kubebuilder:validation:XValidation:rule="!has(self.provider) || self.provider.size() > 0",message="provider must not be empty if specified"
// +kubebuilder:validation:XValidation:rule="!has(self.modelType) || self.modelType.size() > 0",message="modelType must not be empty if specified"
// +kubebuilder:validation:XValidation:rule="!has(self.quantization) || self.quantization.size() > 0",message="quantization must not be empty if specified"
type ModelSpec struct {
	// Name is the model identifier, for example "llama3.2-8b".
	// +required
	// +kubebuilder:validation:MinLength=1
	Name string `json:"name"`
	// Provider is the ID of the provider the model is registered with. When
	// spec.providers is set it must be one of the derived provider IDs; when
	// absent, the default inference provider is used.
	// +optional
	Provider string `json:"provider,omitempty"`
	// ContextLength is the model's context window, in tokens.
	// +optional
	ContextLength *int `json:"contextLength,omitempty"`
	// ModelType classifies the model, for example "llm" or "embedding".
	// +optional
	ModelType string `json:"modelType,omitempty"`
	// Quantization names the model's quantization method.
	// +optional
	Quantization string `json:"quantization,omitempty"`
}

// StateStorageSpec selects the server's own state backends.
type StateStorageSpec struct {
	// KV is the key-value store.
	// +optional
	KV *KVStorageSpec `json:"kv,omitempty"`
	// SQL is the relational store.
	// +optional
	SQL *SQLStorageSpec `json:"sql,omitempty"`
}

// KVStorageSpec is the key-value state backend.
//
// +kubebuilder:validation:XValidation:rule="self.type != 'redis' || has(self.endpoint)",message="endpoint is required when type is redis"
// +kubebuilder:validation:XValidation:rule="!has(self.endpoint) || self.type == 'redis'",message="endpoint is only valid when type is redis"
// +kubebuilder:validation:XValidation:rule="!has(self.password) || self.type == 'redis'",message="password is only valid when type is redis"
type KVStorageSpec struct {
	// Type is the backend: sqlite (in the server's storage) or redis.
	// +optional
	// +kubebuilder:validation:Enum=sqlite;redis
	// +kubebuilder:default:="sqlite"
	Type string `json:"type,omitempty"`
	// Endpoint is the Redis endpoint; required for redis, forbidden otherwise.
	// +optional
	Endpoint string `json:"endpoint,omitempty"`
	// Password is the Redis password (env OGX_STORAGE_KV_PASSWORD); redis only.
	// +optional
	Password *SecretKeyRef `json:"password,omitempty"`
}

// SQLStorageSpec is the relational state backend.
//
// +kubebuilder:validation:XValidation:rule="self.type != 'postgres' || has(self.connectionString)",message="connectionString is required when type is postgres"
// +kubebuilder:validation:XValidation:rule="!has(self.connectionString) || self.type == 'postgres'",message="connectionString is only valid when type is postgres"
type SQLStorageSpec struct {
	// Type is the backend: sqlite (in the server's storage) or postgres.
	// +optional
	// +kubebuilder:validation:Enum=sqlite;postgres
	// +kubebuilder:default:="sqlite"
	Type string `json:"type,omitempty"`
	// ConnectionString is the PostgreSQL connection string (env
	// OGX_STORAGE_SQL_CONNECTION_STRING); required for postgres, forbidden
	// otherwise.
	// +optional
	ConnectionString *SecretKeyRef `json:"connectionString,omitempty"`
}

// MonitoringSpec controls metrics.
type MonitoringSpec struct {
	// Enabled turns on the server's metrics endpoint and, where the cluster
	// serves the monitoring.coreos.com kinds, a ServiceMonitor and a
	// PrometheusRule. False deletes the ones ogx-controller owns.
	// +optional
	// +kubebuilder:default:=true
	Enabled *bool `json:"enabled,omitempty"`
	// MetricsPort is the container port of the metrics endpoint; 9464 when
	// unset.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	MetricsPort *int32 `json:"metricsPort,omitempty"`
}
