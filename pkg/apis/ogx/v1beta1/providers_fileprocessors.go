package v1beta1

// FileProcessorsProviders are the document processing providers.
type FileProcessorsProviders struct {
	// Remote providers are reached over the network.
	// +optional
	Remote *RemoteFileProcessorsProviders `json:"remote,omitempty"`
	// Inline providers run inside the server.
	// +optional
	Inline *InlineFileProcessorsProviders `json:"inline,omitempty"`
}

// RemoteFileProcessorsProviders are the remote document processing kinds.
type RemoteFileProcessorsProviders struct {
	// DoclingServe is a Docling Serve instance (provider ID
	// remote-docling-serve).
	// +optional
	DoclingServe *DoclingServeProvider `json:"doclingServe,omitempty"`
	// Custom providers of any other type.
	// +optional
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	Custom []CustomProvider `json:"custom,omitempty"`
}

// InlineFileProcessorsProviders are the inline document processing kinds.
type InlineFileProcessorsProviders struct {
	// Auto picks a processor per document (provider ID inline-auto).
	// +optional
	Auto *ExtractingFileProcessor `json:"auto,omitempty"`
	// Pypdf processes PDFs with pypdf (provider ID inline-pypdf).
	// +optional
	Pypdf *ExtractingFileProcessor `json:"pypdf,omitempty"`
	// Markitdown converts documents to Markdown (provider ID
	// inline-markitdown).
	// +optional
	Markitdown *ChunkingFileProcessor `json:"markitdown,omitempty"`
	// Docling processes documents with Docling (provider ID inline-docling).
	// +optional
	Docling *DoclingFileProcessor `json:"docling,omitempty"`
	// Custom providers of any other type.
	// +optional
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	Custom []CustomProvider `json:"custom,omitempty"`
}

// DoclingServeProvider is a remote Docling Serve instance.
//
// +kubebuilder:validation:XValidation:rule="!has(self.baseUrl) || self.baseUrl.size() > 0",message="baseUrl must not be empty if specified"
type DoclingServeProvider struct {
	// BaseURL is the service's URL.
	// +required
	// +kubebuilder:validation:MinLength=1
	BaseURL string `json:"baseUrl"`
	// APIKey authenticates to the service.
	// +optional
	APIKey *SecretKeyRef `json:"apiKey,omitempty"`
	// DefaultChunkSizeTokens is the chunk size, in tokens.
	// +optional
	// +kubebuilder:validation:Minimum=100
	// +kubebuilder:validation:Maximum=4096
	DefaultChunkSizeTokens *int `json:"defaultChunkSizeTokens,omitempty"`
}

// ChunkingFileProcessor holds the chunking fields every inline processor has.
type ChunkingFileProcessor struct {
	// DefaultChunkSizeTokens is the chunk size, in tokens.
	// +optional
	// +kubebuilder:validation:Minimum=100
	// +kubebuilder:validation:Maximum=4096
	DefaultChunkSizeTokens *int `json:"defaultChunkSizeTokens,omitempty"`
	// DefaultChunkOverlapTokens is the overlap between chunks, in tokens.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=2048
	DefaultChunkOverlapTokens *int `json:"defaultChunkOverlapTokens,omitempty"`
}

// ExtractingFileProcessor is an inline processor that can also extract
// metadata and clean text (auto, pypdf).
type ExtractingFileProcessor struct {
	ChunkingFileProcessor `json:",inline"`
	// ExtractMetadata extracts document metadata.
	// +optional
	ExtractMetadata *bool `json:"extractMetadata,omitempty"`
	// CleanText normalises extracted text.
	// +optional
	CleanText *bool `json:"cleanText,omitempty"`
}

// DoclingFileProcessor is the inline Docling processor.
type DoclingFileProcessor struct {
	ChunkingFileProcessor `json:",inline"`
	// DoOCR runs optical character recognition.
	// +optional
	DoOCR *bool `json:"doOcr,omitempty"`
}
