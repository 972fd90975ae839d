package configgen

import "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"

// filesAndProcessors fills the singleton kinds of files, batches, responses
// and file_processors (docs/config-generation.md, Typed kinds).
func (b *configBuilder) filesAndProcessors() {
	c := b.cfg
	switch p := b.entry.Provider.(type) {
	case *v1beta1.S3FilesProvider:
		b.require(p.BucketName != "", "bucketName")
		setStr(c, "bucket_name", p.BucketName)
		setStr(c, "region", p.Region)
		setStr(c, "endpoint_url", p.EndpointURL)
		setBool(c, "auto_create_bucket", p.AutoCreateBucket)
	case *v1beta1.LocalfsFilesProvider:
		setInt(c, "ttl_secs", p.TTLSecs)
	case *v1beta1.ReferenceBatchesProvider:
		setInt(c, "max_concurrent_batches", p.MaxConcurrentBatches)
		setInt(c, "max_concurrent_requests_per_batch", p.MaxConcurrentRequestsPerBatch)
	case *v1beta1.BuiltinResponsesProvider:
		if p.VectorStoresConfig != nil {
			c["vector_stores_config"] = vsc(p.VectorStoresConfig)
		}
		if x := p.CompactionConfig; x != nil {
			r := map[string]any{}
			setStr(r, "summarization_prompt", x.SummarizationPrompt)
			setStr(r, "summary_prefix", x.SummaryPrefix)
			setStr(r, "summarization_model", x.SummarizationModel)
			setInt(r, "default_compact_threshold", x.DefaultCompactThreshold)
			setStr(r, "tokenizer_encoding", x.TokenizerEncoding)
			c["compaction_config"] = r
		}
	case *v1beta1.DoclingServeProvider:
		b.require(p.BaseURL != "", "baseUrl")
		setStr(c, "base_url", p.BaseURL)
		setInt(c, "default_chunk_size_tokens", p.DefaultChunkSizeTokens)
	case *v1beta1.ExtractingFileProcessor:
		chunking(c, &p.ChunkingFileProcessor)
		setBool(c, "extract_metadata", p.ExtractMetadata)
		setBool(c, "clean_text", p.CleanText)
	case *v1beta1.ChunkingFileProcessor:
		chunking(c, p)
	case *v1beta1.DoclingFileProcessor:
		chunking(c, &p.ChunkingFileProcessor)
		setBool(c, "do_ocr", p.DoOCR)
	}
}

func chunking(c map[string]any, p *v1beta1.ChunkingFileProcessor) {
	setInt(c, "default_chunk_size_tokens", p.DefaultChunkSizeTokens)
	setInt(c, "default_chunk_overlap_tokens", p.DefaultChunkOverlapTokens)
}
