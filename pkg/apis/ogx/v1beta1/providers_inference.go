package v1beta1

// InferenceProviders are the inference providers.
type InferenceProviders struct {
	// Remote providers are reached over the network.
	// +optional
	Remote *RemoteInferenceProviders `json:"remote,omitempty"`
	// Inline providers run inside the server.
	// +optional
	Inline *InlineCustomProviders `json:"inline,omitempty"`
}

// RemoteInferenceProviders are the remote inference kinds.
type RemoteInferenceProviders struct {
	// Vllm servers (default provider ID remote-vllm).
	// +optional
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	Vllm []VLLMProvider `json:"vllm,omitempty"`
	// OpenAI endpoints (default provider ID remote-openai).
	// +optional
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	OpenAI []OpenAIProvider `json:"openai,omitempty"`
	// Azure OpenAI endpoints (default provider ID remote-azure).
	// +optional
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	Azure []AzureProvider `json:"azure,omitempty"`
	// Bedrock regions (default provider ID remote-bedrock).
	// +optional
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	Bedrock []BedrockProvider `json:"bedrock,omitempty"`
	// Vertex AI projects (default provider ID remote-vertexai).
	// +optional
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	VertexAI []VertexAIProvider `json:"vertexai,omitempty"`
	// watsonx.ai endpoints (default provider ID remote-watsonx).
	// +optional
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	Watsonx []WatsonxProvider `json:"watsonx,omitempty"`
	// Custom providers of any other type.
	// +optional
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	Custom []CustomProvider `json:"custom,omitempty"`
}

// RemoteInferenceCommon holds the fields every typed remote inference kind
// shares.
type RemoteInferenceCommon struct {
	// AllowedModels limits the models the provider exposes.
	// +optional
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:items:MinLength=1
	AllowedModels []string `json:"allowedModels,omitempty"`
	// RefreshModels makes the server refresh the provider's model list
	// periodically.
	// +optional
	RefreshModels *bool `json:"refreshModels,omitempty"`
	// Network configures TLS, proxy, timeouts and headers towards the
	// provider.
	// +optional
	Network *RemoteNetworkConfig `json:"network,omitempty"`
}

// RemoteNetworkConfig shapes the connection to a remote provider.
type RemoteNetworkConfig struct {
	// TLS configures certificate verification and protocol.
	// +optional
	TLS *RemoteTLSConfig `json:"tls,omitempty"`
	// Proxy routes the connection through a proxy.
	// +optional
	Proxy *ProxyConfig `json:"proxy,omitempty"`
	// Timeout sets connection and read timeouts.
	// +optional
	Timeout *TimeoutConfig `json:"timeout,omitempty"`
	// Headers are added to every request.
	// +optional
	// +kubebuilder:validation:MinProperties=1
	Headers map[string]string `json:"headers,omitempty"`
}

// RemoteTLSConfig configures TLS towards a provider.
type RemoteTLSConfig struct {
	// Verify turns certificate verification on or off.
	// +optional
	Verify *bool `json:"verify,omitempty"`
	// MinVersion is the lowest TLS version accepted.
	// +optional
	// +kubebuilder:validation:Enum=TLSv1.2;TLSv1.3
	MinVersion string `json:"minVersion,omitempty"`
	// Ciphers restricts the cipher suites.
	// +optional
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:items:MinLength=1
	Ciphers []string `json:"ciphers,omitempty"`
}

// ProxyConfig routes provider traffic through a proxy.
//
// +kubebuilder:validation:XValidation:rule="!has(self.url) || self.url.size() > 0",message="url must not be empty if specified"
// +kubebuilder:validation:XValidation:rule="!has(self.http) || self.http.size() > 0",message="http must not be empty if specified"
// +kubebuilder:validation:XValidation:rule="!has(self.https) || self.https.size() > 0",message="https must not be empty if specified"
// +kubebuilder:validation:XValidation:rule="!has(self.cacert) || self.cacert.size() > 0",message="cacert must not be empty if specified"
type ProxyConfig struct {
	// URL is the proxy for all traffic.
	// +optional
	URL string `json:"url,omitempty"`
	// HTTP is the proxy for plain HTTP traffic.
	// +optional
	HTTP string `json:"http,omitempty"`
	// HTTPS is the proxy for HTTPS traffic.
	// +optional
	HTTPS string `json:"https,omitempty"`
	// CACert is the path of the proxy's CA certificate.
	// +optional
	CACert string `json:"cacert,omitempty"`
	// NoProxy lists hosts reached directly.
	// +optional
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:items:MinLength=1
	NoProxy []string `json:"noProxy,omitempty"`
}

// TimeoutConfig sets timeouts, in seconds.
type TimeoutConfig struct {
	// Connect is the connection timeout.
	// +optional
	// +kubebuilder:validation:Minimum=1
	Connect *int `json:"connect,omitempty"`
	// Read is the read timeout.
	// +optional
	// +kubebuilder:validation:Minimum=1
	Read *int `json:"read,omitempty"`
}

// VLLMProvider is a vLLM server.
//
// +kubebuilder:validation:XValidation:rule="!has(self.id) || self.id.size() > 0",message="id must not be empty if specified"
type VLLMProvider struct {
	// ID is the provider ID; remote-vllm when unset.
	// +optional
	ID string `json:"id,omitempty"`
	// Endpoint is the server's URL.
	// +required
	// +kubebuilder:validation:MinLength=1
	Endpoint string `json:"endpoint"`
	// APIToken authenticates to the server.
	// +optional
	APIToken *SecretKeyRef `json:"apiToken,omitempty"`
	// MaxTokens caps the tokens generated per request.
	// +optional
	// +kubebuilder:validation:Minimum=1
	MaxTokens *int `json:"maxTokens,omitempty"`

	RemoteInferenceCommon `json:",inline"`
}

// OpenAIProvider is an OpenAI-compatible endpoint.
//
// +kubebuilder:validation:XValidation:rule="!has(self.id) || self.id.size() > 0",message="id must not be empty if specified"
// +kubebuilder:validation:XValidation:rule="!has(self.endpoint) || self.endpoint.size() > 0",message="endpoint must not be empty if specified"
type OpenAIProvider struct {
	// ID is the provider ID; remote-openai when unset.
	// +optional
	ID string `json:"id,omitempty"`
	// APIKey authenticates to the endpoint.
	// +required
	APIKey SecretKeyRef `json:"apiKey"`
	// Endpoint overrides the default OpenAI URL.
	// +optional
	Endpoint string `json:"endpoint,omitempty"`

	RemoteInferenceCommon `json:",inline"`
}

// AzureProvider is an Azure OpenAI endpoint.
//
// +kubebuilder:validation:XValidation:rule="!has(self.id) || self.id.size() > 0",message="id must not be empty if specified"
// +kubebuilder:validation:XValidation:rule="!has(self.apiVersion) || self.apiVersion.size() > 0",message="apiVersion must not be empty if specified"
// +kubebuilder:validation:XValidation:rule="!has(self.apiType) || self.apiType.size() > 0",message="apiType must not be empty if specified"
type AzureProvider struct {
	// ID is the provider ID; remote-azure when unset.
	// +optional
	ID string `json:"id,omitempty"`
	// Endpoint is the Azure resource URL.
	// +required
	// +kubebuilder:validation:MinLength=1
	Endpoint string `json:"endpoint"`
	// APIKey authenticates to the endpoint.
	// +required
	APIKey SecretKeyRef `json:"apiKey"`
	// APIVersion is the Azure API version.
	// +optional
	APIVersion string `json:"apiVersion,omitempty"`
	// APIType is the Azure API type.
	// +optional
	APIType string `json:"apiType,omitempty"`

	RemoteInferenceCommon `json:",inline"`
}

// BedrockProvider is AWS Bedrock in one region.
//
// +kubebuilder:validation:XValidation:rule="!has(self.id) || self.id.size() > 0",message="id must not be empty if specified"
// +kubebuilder:validation:XValidation:rule="!has(self.awsRoleArn) || self.awsRoleArn.size() > 0",message="awsRoleArn must not be empty if specified"
// +kubebuilder:validation:XValidation:rule="!has(self.awsWebIdentityTokenFile) || self.awsWebIdentityTokenFile.size() > 0",message="awsWebIdentityTokenFile must not be empty if specified"
// +kubebuilder:validation:XValidation:rule="!has(self.awsRoleSessionName) || self.awsRoleSessionName.size() > 0",message="awsRoleSessionName must not be empty if specified"
// +kubebuilder:validation:XValidation:rule="!has(self.profileName) || self.profileName.size() > 0",message="profileName must not be empty if specified"
// +kubebuilder:validation:XValidation:rule="!has(self.retryMode) || self.retryMode.size() > 0",message="retryMode must not be empty if specified"
type BedrockProvider struct {
	// ID is the provider ID; remote-bedrock when unset.
	// +optional
	ID string `json:"id,omitempty"`
	// Region is the AWS region.
	// +required
	// +kubebuilder:validation:MinLength=1
	Region string `json:"region"`
	// APIKey is a Bedrock API key.
	// +optional
	APIKey *SecretKeyRef `json:"apiKey,omitempty"`
	// AWSAccessKeyID is an AWS access key ID.
	// +optional
	AWSAccessKeyID *SecretKeyRef `json:"awsAccessKeyId,omitempty"`
	// AWSSecretAccessKey is an AWS secret access key.
	// +optional
	AWSSecretAccessKey *SecretKeyRef `json:"awsSecretAccessKey,omitempty"`
	// AWSSessionToken is an AWS session token.
	// +optional
	AWSSessionToken *SecretKeyRef `json:"awsSessionToken,omitempty"`
	// AWSRoleArn is a role to assume.
	// +optional
	AWSRoleArn string `json:"awsRoleArn,omitempty"`
	// AWSWebIdentityTokenFile is the path of a web identity token.
	// +optional
	AWSWebIdentityTokenFile string `json:"awsWebIdentityTokenFile,omitempty"`
	// AWSRoleSessionName names the assumed-role session.
	// +optional
	AWSRoleSessionName string `json:"awsRoleSessionName,omitempty"`
	// ProfileName is an AWS profile.
	// +optional
	ProfileName string `json:"profileName,omitempty"`
	// RetryMode is the AWS SDK retry mode.
	// +optional
	RetryMode string `json:"retryMode,omitempty"`
	// TotalMaxAttempts caps retries.
	// +optional
	// +kubebuilder:validation:Minimum=1
	TotalMaxAttempts *int `json:"totalMaxAttempts,omitempty"`
	// ConnectTimeout is the connection timeout, in seconds.
	// +optional
	// +kubebuilder:validation:Minimum=1
	ConnectTimeout *int `json:"connectTimeout,omitempty"`
	// ReadTimeout is the read timeout, in seconds.
	// +optional
	// +kubebuilder:validation:Minimum=1
	ReadTimeout *int `json:"readTimeout,omitempty"`
	// SessionTTL is the session lifetime, in seconds.
	// +optional
	// +kubebuilder:validation:Minimum=1
	SessionTTL *int `json:"sessionTTL,omitempty"`

	RemoteInferenceCommon `json:",inline"`
}

// VertexAIProvider is Google Vertex AI.
//
// +kubebuilder:validation:XValidation:rule="!has(self.id) || self.id.size() > 0",message="id must not be empty if specified"
// +kubebuilder:validation:XValidation:rule="!has(self.location) || self.location.size() > 0",message="location must not be empty if specified"
type VertexAIProvider struct {
	// ID is the provider ID; remote-vertexai when unset.
	// +optional
	ID string `json:"id,omitempty"`
	// Project is the Google Cloud project.
	// +required
	// +kubebuilder:validation:MinLength=1
	Project string `json:"project"`
	// Location is the Google Cloud location.
	// +optional
	Location string `json:"location,omitempty"`

	RemoteInferenceCommon `json:",inline"`
}

// WatsonxProvider is IBM watsonx.ai.
//
// +kubebuilder:validation:XValidation:rule="!has(self.id) || self.id.size() > 0",message="id must not be empty if specified"
// +kubebuilder:validation:XValidation:rule="!has(self.endpoint) || self.endpoint.size() > 0",message="endpoint must not be empty if specified"
// +kubebuilder:validation:XValidation:rule="!has(self.projectId) || self.projectId.size() > 0",message="projectId must not be empty if specified"
type WatsonxProvider struct {
	// ID is the provider ID; remote-watsonx when unset.
	// +optional
	ID string `json:"id,omitempty"`
	// APIKey authenticates to watsonx.ai.
	// +required
	APIKey SecretKeyRef `json:"apiKey"`
	// Endpoint overrides the default watsonx.ai URL.
	// +optional
	Endpoint string `json:"endpoint,omitempty"`
	// ProjectID is the watsonx.ai project.
	// +optional
	ProjectID string `json:"projectId,omitempty"`
	// Timeout is the request timeout, in seconds.
	// +optional
	// +kubebuilder:validation:Minimum=1
	Timeout *int `json:"timeout,omitempty"`

	RemoteInferenceCommon `json:",inline"`
}
