package configgen

import "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"

// tools fills the typed tool_runtime kinds (docs/config-generation.md, Typed
// kinds).
func (b *configBuilder) tools() bool {
	switch p := b.entry.Provider.(type) {
	case *v1beta1.SearchToolProvider:
		b.require(refSet(p.APIKey), "apiKey")
		setInt(b.cfg, "max_results", p.MaxResults)
	case *v1beta1.ModelContextProtocolProvider:
		// config: {}
	case *v1beta1.FileSearchProvider:
		if p.VectorStoresConfig != nil {
			b.cfg["vector_stores_config"] = vsc(p.VectorStoresConfig)
		}
	default:
		return false
	}
	return true
}

// vsc maps a VectorStoresConfig to snake_case keys. Every spec object that is
// present becomes a map even when empty; the decimal strings (temperature,
// rrfImpactFactor, weightedSearchAlpha) stay strings, so the encoder quotes
// them.
func vsc(v *v1beta1.VectorStoresConfig) map[string]any {
	m := map[string]any{}
	setStr(m, "default_provider_id", v.DefaultProviderID)
	if x := v.DefaultEmbeddingModel; x != nil {
		m["default_embedding_model"] = qualifiedModel(x)
	}
	if x := v.DefaultRerankerModel; x != nil {
		r := map[string]any{}
		setStr(r, "provider_id", x.ProviderID)
		setStr(r, "model_id", x.ModelID)
		m["default_reranker_model"] = r
	}
	if x := v.RewriteQueryParams; x != nil {
		r := map[string]any{}
		if x.Model != nil {
			r["model"] = qualifiedModel(x.Model)
		}
		setStr(r, "prompt", x.Prompt)
		setInt(r, "max_tokens", x.MaxTokens)
		setStr(r, "temperature", x.Temperature)
		m["rewrite_query_params"] = r
	}
	if x := v.FileSearchParams; x != nil {
		r := map[string]any{}
		setStr(r, "header_template", x.HeaderTemplate)
		setStr(r, "footer_template", x.FooterTemplate)
		m["file_search_params"] = r
	}
	if x := v.ContextPromptParams; x != nil {
		r := map[string]any{}
		setStr(r, "chunk_annotation_template", x.ChunkAnnotationTemplate)
		setStr(r, "context_template", x.ContextTemplate)
		m["context_prompt_params"] = r
	}
	if x := v.AnnotationPromptParams; x != nil {
		r := map[string]any{}
		setBool(r, "enable_annotations", x.EnableAnnotations)
		setStr(r, "annotation_instruction_template", x.AnnotationInstructionTemplate)
		setStr(r, "chunk_annotation_template", x.ChunkAnnotationTemplate)
		m["annotation_prompt_params"] = r
	}
	if x := v.FileIngestionParams; x != nil {
		r := map[string]any{}
		setInt(r, "default_chunk_size_tokens", x.DefaultChunkSizeTokens)
		setInt(r, "default_chunk_overlap_tokens", x.DefaultChunkOverlapTokens)
		m["file_ingestion_params"] = r
	}
	vscRetrieval(m, v)
	return m
}

// vscRetrieval maps the three retrieval-tuning objects of a VSC.
func vscRetrieval(m map[string]any, v *v1beta1.VectorStoresConfig) {
	if x := v.ChunkRetrievalParams; x != nil {
		r := map[string]any{}
		setInt(r, "chunk_multiplier", x.ChunkMultiplier)
		setInt(r, "max_tokens_in_context", x.MaxTokensInContext)
		setStr(r, "default_reranker_strategy", x.DefaultRerankerStrategy)
		setStr(r, "rrf_impact_factor", x.RRFImpactFactor)
		setStr(r, "weighted_search_alpha", x.WeightedSearchAlpha)
		setStr(r, "default_search_mode", x.DefaultSearchMode)
		m["chunk_retrieval_params"] = r
	}
	if x := v.FileBatchParams; x != nil {
		r := map[string]any{}
		setInt(r, "max_concurrent_files_per_batch", x.MaxConcurrentFilesPerBatch)
		setInt(r, "file_batch_chunk_size", x.FileBatchChunkSize)
		setInt(r, "cleanup_interval_seconds", x.CleanupIntervalSeconds)
		m["file_batch_params"] = r
	}
	if x := v.ContextualRetrievalParams; x != nil {
		r := map[string]any{}
		if x.Model != nil {
			r["model"] = qualifiedModel(x.Model)
		}
		setInt(r, "default_timeout_seconds", x.DefaultTimeoutSeconds)
		setInt(r, "default_max_concurrency", x.DefaultMaxConcurrency)
		setInt(r, "max_document_tokens", x.MaxDocumentTokens)
		m["contextual_retrieval_params"] = r
	}
}

func qualifiedModel(q *v1beta1.QualifiedModel) map[string]any {
	r := map[string]any{}
	setStr(r, "provider_id", q.ProviderID)
	setStr(r, "model_id", q.ModelID)
	setInt(r, "embedding_dimensions", q.EmbeddingDimensions)
	return r
}
