package v1beta1

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// ProvidersSpec declares providers per API, as
// providers.<api>.<remote|inline>.<kind>. Every level is optional, and an
// empty object is valid at every level.
//
// List kinds may hold several instances, each with an optional id; singleton
// kinds are one object with a fixed provider ID. Provider IDs must be unique
// across all APIs (checked at admission).
type ProvidersSpec struct {
	// Inference providers serve models.
	// +optional
	Inference *InferenceProviders `json:"inference,omitempty"`
	// VectorIo providers store and search vectors (config.yaml API vector_io).
	// +optional
	VectorIo *VectorIoProviders `json:"vectorIo,omitempty"`
	// ToolRuntime providers run tools (config.yaml API tool_runtime).
	// +optional
	ToolRuntime *ToolRuntimeProviders `json:"toolRuntime,omitempty"`
	// Files providers store uploaded files.
	// +optional
	Files *FilesProviders `json:"files,omitempty"`
	// Batches providers run batch jobs.
	// +optional
	Batches *BatchesProviders `json:"batches,omitempty"`
	// Responses providers implement the Responses API.
	// +optional
	Responses *ResponsesProviders `json:"responses,omitempty"`
	// FileProcessors providers turn documents into text chunks (config.yaml
	// API file_processors).
	// +optional
	FileProcessors *FileProcessorsProviders `json:"fileProcessors,omitempty"`
}

// CustomProvider is any provider type ogx-controller has no typed schema for.
// Its provider ID is id when set, else type with every "::" replaced by "-".
//
// +kubebuilder:validation:XValidation:rule="!has(self.id) || self.id.size() > 0",message="id must not be empty if specified"
// +kubebuilder:validation:XValidation:rule="self.type.startsWith('remote::') || self.type.startsWith('inline::')",message="type must have a 'remote::' or 'inline::' prefix (e.g., 'remote::llama-guard', 'inline::my-provider')"
type CustomProvider struct {
	// ID is the provider ID; derived from type when unset.
	// +optional
	ID string `json:"id,omitempty"`
	// Type is the provider type with its "remote::" or "inline::" prefix, for
	// example remote::llama-guard. The prefix need not match the position
	// (remote or inline) the provider is listed under.
	// +required
	// +kubebuilder:validation:MinLength=1
	Type string `json:"type"`
	// SecretRefs maps config keys to Secret keys. Key K becomes config key K
	// with the value ${env.OGX_<ID>_<K>}, the variable taken from the Secret.
	// +optional
	// +kubebuilder:validation:MinProperties=1
	SecretRefs map[string]SecretKeyRef `json:"secretRefs,omitempty"`
	// Settings is merged verbatim into the provider's config. It must be an
	// object and share no key with secretRefs; put secrets in secretRefs.
	// +optional
	Settings *apiextensionsv1.JSON `json:"settings,omitempty"`
}
