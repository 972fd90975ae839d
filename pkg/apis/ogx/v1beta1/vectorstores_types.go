package v1beta1

// VectorStoresConfig tunes how the server uses its vector stores (on the
// fileSearch tool and the builtin Responses provider). Provider and model IDs
// here are not cross-checked against the declared providers.
//
// +kubebuilder:validation:XValidation:rule="!has(self.defaultProviderId) || self.defaultProviderId.size() > 0",message="defaultProviderId must not be empty if specified"
type VectorStoresConfig struct {
	// DefaultProviderID is the vector store provider used when none is named.
	// +optional
	DefaultProviderID string `json:"defaultProviderId,omitempty"`
	// DefaultEmbeddingModel is the embedding model used when none is named.
	// +optional
	DefaultEmbeddingModel *QualifiedModel `json:"defaultEmbeddingModel,omitempty"`
	// DefaultRerankerModel is the reranking model used when none is named.
	// +optional
	DefaultRerankerModel *RerankerModel `json:"defaultRerankerModel,omitempty"`
	// RewriteQueryParams tunes query rewriting.
	// +optional
	RewriteQueryParams *RewriteQueryParams `json:"rewriteQueryParams,omitempty"`
	// FileSearchParams tunes the file search output.
	// +optional
	FileSearchParams *FileSearchParams `json:"fileSearchParams,omitempty"`
	// ContextPromptParams tunes how retrieved context is put in prompts.
	// +optional
	ContextPromptParams *ContextPromptParams `json:"contextPromptParams,omitempty"`
	// AnnotationPromptParams tunes citation annotations.
	// +optional
	AnnotationPromptParams *AnnotationPromptParams `json:"annotationPromptParams,omitempty"`
	// FileIngestionParams tunes how files are chunked on ingestion.
	// +optional
	FileIngestionParams *FileIngestionParams `json:"fileIngestionParams,omitempty"`
	// ChunkRetrievalParams tunes chunk retrieval and reranking.
	// +optional
	ChunkRetrievalParams *ChunkRetrievalParams `json:"chunkRetrievalParams,omitempty"`
	// FileBatchParams tunes batched file ingestion.
	// +optional
	FileBatchParams *FileBatchParams `json:"fileBatchParams,omitempty"`
	// ContextualRetrievalParams tunes contextual retrieval.
	// +optional
	ContextualRetrievalParams *ContextualRetrievalParams `json:"contextualRetrievalParams,omitempty"`
}

// QualifiedModel names a model of a provider.
type QualifiedModel struct {
	// ProviderID is the model's provider.
	// +required
	// +kubebuilder:validation:MinLength=1
	ProviderID string `json:"providerId"`
	// ModelID is the model.
	// +required
	// +kubebuilder:validation:MinLength=1
	ModelID string `json:"modelId"`
	// EmbeddingDimensions is the embedding size.
	// +optional
	// +kubebuilder:validation:Minimum=1
	EmbeddingDimensions *int `json:"embeddingDimensions,omitempty"`
}

// RerankerModel names a reranking model of a provider.
type RerankerModel struct {
	// ProviderID is the model's provider.
	// +required
	// +kubebuilder:validation:MinLength=1
	ProviderID string `json:"providerId"`
	// ModelID is the model.
	// +required
	// +kubebuilder:validation:MinLength=1
	ModelID string `json:"modelId"`
}

// RewriteQueryParams tunes query rewriting.
type RewriteQueryParams struct {
	// Model rewrites the queries.
	// +optional
	Model *QualifiedModel `json:"model,omitempty"`
	// Prompt is the rewriting prompt.
	// +optional
	Prompt string `json:"prompt,omitempty"`
	// MaxTokens caps the rewritten query.
	// +optional
	// +kubebuilder:validation:Minimum=1
	MaxTokens *int `json:"maxTokens,omitempty"`
	// Temperature is the sampling temperature, a decimal written as a string
	// (for example "0.3") so that it survives YAML and JSON unchanged.
	// +optional
	Temperature string `json:"temperature,omitempty"`
}

// FileSearchParams tunes the file search output.
type FileSearchParams struct {
	// HeaderTemplate is put before the results.
	// +optional
	HeaderTemplate string `json:"headerTemplate,omitempty"`
	// FooterTemplate is put after the results.
	// +optional
	FooterTemplate string `json:"footerTemplate,omitempty"`
}

// ContextPromptParams tunes how retrieved context is put in prompts.
type ContextPromptParams struct {
	// ChunkAnnotationTemplate formats one chunk.
	// +optional
	ChunkAnnotationTemplate string `json:"chunkAnnotationTemplate,omitempty"`
	// ContextTemplate formats the whole context.
	// +optional
	ContextTemplate string `json:"contextTemplate,omitempty"`
}

// AnnotationPromptParams tunes citation annotations.
type AnnotationPromptParams struct {
	// EnableAnnotations turns annotations on.
	// +optional
	EnableAnnotations *bool `json:"enableAnnotations,omitempty"`
	// AnnotationInstructionTemplate tells the model how to annotate.
	// +optional
	AnnotationInstructionTemplate string `json:"annotationInstructionTemplate,omitempty"`
	// ChunkAnnotationTemplate formats one annotated chunk.
	// +optional
	ChunkAnnotationTemplate string `json:"chunkAnnotationTemplate,omitempty"`
}

// FileIngestionParams tunes chunking on ingestion.
type FileIngestionParams struct {
	// DefaultChunkSizeTokens is the chunk size, in tokens.
	// +optional
	// +kubebuilder:validation:Minimum=1
	DefaultChunkSizeTokens *int `json:"defaultChunkSizeTokens,omitempty"`
	// DefaultChunkOverlapTokens is the overlap between chunks, in tokens.
	// +optional
	// +kubebuilder:validation:Minimum=0
	DefaultChunkOverlapTokens *int `json:"defaultChunkOverlapTokens,omitempty"`
}

// ChunkRetrievalParams tunes retrieval and reranking.
type ChunkRetrievalParams struct {
	// ChunkMultiplier scales how many chunks are fetched before reranking.
	// +optional
	// +kubebuilder:validation:Minimum=1
	ChunkMultiplier *int `json:"chunkMultiplier,omitempty"`
	// MaxTokensInContext caps the retrieved context, in tokens.
	// +optional
	// +kubebuilder:validation:Minimum=1
	MaxTokensInContext *int `json:"maxTokensInContext,omitempty"`
	// DefaultRerankerStrategy combines keyword and vector results.
	// +optional
	// +kubebuilder:validation:Enum=rrf;weighted;normalized
	DefaultRerankerStrategy string `json:"defaultRerankerStrategy,omitempty"`
	// RRFImpactFactor is the reciprocal rank fusion constant, a decimal
	// written as a string.
	// +optional
	RRFImpactFactor string `json:"rrfImpactFactor,omitempty"`
	// WeightedSearchAlpha weighs vector against keyword results, a decimal
	// written as a string.
	// +optional
	WeightedSearchAlpha string `json:"weightedSearchAlpha,omitempty"`
	// DefaultSearchMode is the search used when none is named.
	// +optional
	// +kubebuilder:validation:Enum=vector;keyword;hybrid
	DefaultSearchMode string `json:"defaultSearchMode,omitempty"`
}

// FileBatchParams tunes batched ingestion.
type FileBatchParams struct {
	// MaxConcurrentFilesPerBatch caps files processed at once per batch.
	// +optional
	// +kubebuilder:validation:Minimum=1
	MaxConcurrentFilesPerBatch *int `json:"maxConcurrentFilesPerBatch,omitempty"`
	// FileBatchChunkSize is the number of files per chunk of a batch.
	// +optional
	// +kubebuilder:validation:Minimum=1
	FileBatchChunkSize *int `json:"fileBatchChunkSize,omitempty"`
	// CleanupIntervalSeconds is how often finished batches are cleaned up.
	// +optional
	// +kubebuilder:validation:Minimum=1
	CleanupIntervalSeconds *int `json:"cleanupIntervalSeconds,omitempty"`
}

// ContextualRetrievalParams tunes contextual retrieval.
type ContextualRetrievalParams struct {
	// Model generates the chunk contexts.
	// +optional
	Model *QualifiedModel `json:"model,omitempty"`
	// DefaultTimeoutSeconds bounds one contextualisation call.
	// +optional
	// +kubebuilder:validation:Minimum=1
	DefaultTimeoutSeconds *int `json:"defaultTimeoutSeconds,omitempty"`
	// DefaultMaxConcurrency caps calls in flight.
	// +optional
	// +kubebuilder:validation:Minimum=1
	DefaultMaxConcurrency *int `json:"defaultMaxConcurrency,omitempty"`
	// MaxDocumentTokens caps the document size considered, in tokens.
	// +optional
	// +kubebuilder:validation:Minimum=1
	MaxDocumentTokens *int `json:"maxDocumentTokens,omitempty"`
}
