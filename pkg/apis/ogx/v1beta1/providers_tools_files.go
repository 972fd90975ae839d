package v1beta1

// RemoteCustomProviders is a remote side of an API that only has custom
// providers.
type RemoteCustomProviders struct {
	// Custom providers of any type.
	// +optional
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	Custom []CustomProvider `json:"custom,omitempty"`
}

// ToolRuntimeProviders are the tool runtime providers.
type ToolRuntimeProviders struct {
	// Remote providers are reached over the network.
	// +optional
	Remote *RemoteToolRuntimeProviders `json:"remote,omitempty"`
	// Inline providers run inside the server.
	// +optional
	Inline *InlineToolRuntimeProviders `json:"inline,omitempty"`
}

// RemoteToolRuntimeProviders are the remote tool runtime kinds.
type RemoteToolRuntimeProviders struct {
	// BraveSearch web search (default provider ID remote-brave-search).
	// +optional
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	BraveSearch []SearchToolProvider `json:"braveSearch,omitempty"`
	// TavilySearch web search (default provider ID remote-tavily-search).
	// +optional
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	TavilySearch []SearchToolProvider `json:"tavilySearch,omitempty"`
	// ModelContextProtocol tools (default provider ID
	// remote-model-context-protocol).
	// +optional
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	ModelContextProtocol []ModelContextProtocolProvider `json:"modelContextProtocol,omitempty"`
	// Custom providers of any other type.
	// +optional
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	Custom []CustomProvider `json:"custom,omitempty"`
}

// InlineToolRuntimeProviders are the inline tool runtime kinds.
type InlineToolRuntimeProviders struct {
	// FileSearch over the server's vector stores (default provider ID
	// inline-file-search).
	// +optional
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	FileSearch []FileSearchProvider `json:"fileSearch,omitempty"`
	// Custom providers of any other type.
	// +optional
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	Custom []CustomProvider `json:"custom,omitempty"`
}

// SearchToolProvider is a web search service (Brave or Tavily).
//
// +kubebuilder:validation:XValidation:rule="!has(self.id) || self.id.size() > 0",message="id must not be empty if specified"
type SearchToolProvider struct {
	// ID is the provider ID; the kind's default ID when unset.
	// +optional
	ID string `json:"id,omitempty"`
	// APIKey authenticates to the service.
	// +required
	APIKey SecretKeyRef `json:"apiKey"`
	// MaxResults caps the results per query.
	// +optional
	// +kubebuilder:validation:Minimum=1
	MaxResults *int `json:"maxResults,omitempty"`
}

// ModelContextProtocolProvider is the MCP tool runtime; it has no settings.
//
// +kubebuilder:validation:XValidation:rule="!has(self.id) || self.id.size() > 0",message="id must not be empty if specified"
type ModelContextProtocolProvider struct {
	// ID is the provider ID; remote-model-context-protocol when unset.
	// +optional
	ID string `json:"id,omitempty"`
}

// FileSearchProvider is the inline file search tool.
//
// +kubebuilder:validation:XValidation:rule="!has(self.id) || self.id.size() > 0",message="id must not be empty if specified"
type FileSearchProvider struct {
	// ID is the provider ID; inline-file-search when unset.
	// +optional
	ID string `json:"id,omitempty"`
	// VectorStoresConfig tunes vector store search.
	// +optional
	VectorStoresConfig *VectorStoresConfig `json:"vectorStoresConfig,omitempty"`
}

// FilesProviders are the file storage providers.
type FilesProviders struct {
	// Remote providers are reached over the network.
	// +optional
	Remote *RemoteFilesProviders `json:"remote,omitempty"`
	// Inline providers run inside the server.
	// +optional
	Inline *InlineFilesProviders `json:"inline,omitempty"`
}

// RemoteFilesProviders are the remote file storage kinds.
type RemoteFilesProviders struct {
	// S3 stores files in an S3 bucket (provider ID remote-s3).
	// +optional
	S3 *S3FilesProvider `json:"s3,omitempty"`
	// Custom providers of any other type.
	// +optional
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	Custom []CustomProvider `json:"custom,omitempty"`
}

// InlineFilesProviders are the inline file storage kinds.
type InlineFilesProviders struct {
	// Localfs stores files in the server's storage (provider ID
	// inline-localfs).
	// +optional
	Localfs *LocalfsFilesProvider `json:"localfs,omitempty"`
	// Custom providers of any other type.
	// +optional
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	Custom []CustomProvider `json:"custom,omitempty"`
}

// S3FilesProvider stores files in S3.
//
// +kubebuilder:validation:XValidation:rule="!has(self.region) || self.region.size() > 0",message="region must not be empty if specified"
// +kubebuilder:validation:XValidation:rule="!has(self.endpointUrl) || self.endpointUrl.size() > 0",message="endpointUrl must not be empty if specified"
type S3FilesProvider struct {
	// BucketName is the bucket.
	// +required
	// +kubebuilder:validation:MinLength=1
	BucketName string `json:"bucketName"`
	// Region is the bucket's region.
	// +optional
	Region string `json:"region,omitempty"`
	// EndpointURL is an S3-compatible endpoint.
	// +optional
	EndpointURL string `json:"endpointUrl,omitempty"`
	// AWSAccessKeyID is an AWS access key ID.
	// +optional
	AWSAccessKeyID *SecretKeyRef `json:"awsAccessKeyId,omitempty"`
	// AWSSecretAccessKey is an AWS secret access key.
	// +optional
	AWSSecretAccessKey *SecretKeyRef `json:"awsSecretAccessKey,omitempty"`
	// AutoCreateBucket creates the bucket when it does not exist.
	// +optional
	AutoCreateBucket *bool `json:"autoCreateBucket,omitempty"`
}

// LocalfsFilesProvider stores files in the server's storage.
type LocalfsFilesProvider struct {
	// TTLSecs is how long files are kept, in seconds.
	// +optional
	// +kubebuilder:validation:Minimum=1
	TTLSecs *int `json:"ttlSecs,omitempty"`
}

// BatchesProviders are the batch providers.
type BatchesProviders struct {
	// Remote providers are reached over the network.
	// +optional
	Remote *RemoteCustomProviders `json:"remote,omitempty"`
	// Inline providers run inside the server.
	// +optional
	Inline *InlineBatchesProviders `json:"inline,omitempty"`
}

// InlineBatchesProviders are the inline batch kinds.
type InlineBatchesProviders struct {
	// Reference is the built-in batch implementation (provider ID
	// inline-reference).
	// +optional
	Reference *ReferenceBatchesProvider `json:"reference,omitempty"`
	// Custom providers of any other type.
	// +optional
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	Custom []CustomProvider `json:"custom,omitempty"`
}

// ReferenceBatchesProvider tunes the built-in batch implementation.
type ReferenceBatchesProvider struct {
	// MaxConcurrentBatches caps batches running at once.
	// +optional
	// +kubebuilder:validation:Minimum=1
	MaxConcurrentBatches *int `json:"maxConcurrentBatches,omitempty"`
	// MaxConcurrentRequestsPerBatch caps requests in flight per batch.
	// +optional
	// +kubebuilder:validation:Minimum=1
	MaxConcurrentRequestsPerBatch *int `json:"maxConcurrentRequestsPerBatch,omitempty"`
}

// ResponsesProviders are the Responses API providers.
type ResponsesProviders struct {
	// Remote providers are reached over the network.
	// +optional
	Remote *RemoteCustomProviders `json:"remote,omitempty"`
	// Inline providers run inside the server.
	// +optional
	Inline *InlineResponsesProviders `json:"inline,omitempty"`
}

// InlineResponsesProviders are the inline Responses API kinds.
type InlineResponsesProviders struct {
	// Builtin is the built-in implementation (provider ID inline-builtin).
	// +optional
	Builtin *BuiltinResponsesProvider `json:"builtin,omitempty"`
	// Custom providers of any other type.
	// +optional
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	Custom []CustomProvider `json:"custom,omitempty"`
}

// BuiltinResponsesProvider tunes the built-in Responses implementation.
type BuiltinResponsesProvider struct {
	// VectorStoresConfig tunes vector store search.
	// +optional
	VectorStoresConfig *VectorStoresConfig `json:"vectorStoresConfig,omitempty"`
	// CompactionConfig tunes conversation compaction.
	// +optional
	CompactionConfig *CompactionConfig `json:"compactionConfig,omitempty"`
}

// CompactionConfig tunes how long conversations are summarised.
//
// +kubebuilder:validation:XValidation:rule="!has(self.summarizationPrompt) || self.summarizationPrompt.size() > 0",message="summarizationPrompt must not be empty if specified"
// +kubebuilder:validation:XValidation:rule="!has(self.summaryPrefix) || self.summaryPrefix.size() > 0",message="summaryPrefix must not be empty if specified"
// +kubebuilder:validation:XValidation:rule="!has(self.summarizationModel) || self.summarizationModel.size() > 0",message="summarizationModel must not be empty if specified"
// +kubebuilder:validation:XValidation:rule="!has(self.tokenizerEncoding) || self.tokenizerEncoding.size() > 0",message="tokenizerEncoding must not be empty if specified"
type CompactionConfig struct {
	// SummarizationPrompt is the prompt used to summarise.
	// +optional
	SummarizationPrompt string `json:"summarizationPrompt,omitempty"`
	// SummaryPrefix is put before a summary.
	// +optional
	SummaryPrefix string `json:"summaryPrefix,omitempty"`
	// SummarizationModel is the model that summarises.
	// +optional
	SummarizationModel string `json:"summarizationModel,omitempty"`
	// TokenizerEncoding is the tokenizer used to count tokens.
	// +optional
	TokenizerEncoding string `json:"tokenizerEncoding,omitempty"`
	// DefaultCompactThreshold is the token count that triggers compaction.
	// +optional
	// +kubebuilder:validation:Minimum=1
	DefaultCompactThreshold *int `json:"defaultCompactThreshold,omitempty"`
}
