package v1beta1

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// everyKind declares one provider of every kind of every API, listed in the
// YAML-like order a user might write (not canonical order), so the test also
// proves that the walk imposes canonical order.
func everyKind() *ProvidersSpec {
	key := ref("s", "k")
	return &ProvidersSpec{
		FileProcessors: &FileProcessorsProviders{
			Inline: &InlineFileProcessorsProviders{
				Docling: &DoclingFileProcessor{}, Markitdown: &ChunkingFileProcessor{},
				Pypdf: &ExtractingFileProcessor{}, Auto: &ExtractingFileProcessor{},
				Custom: []CustomProvider{{Type: "inline::fp"}},
			},
			Remote: &RemoteFileProcessorsProviders{DoclingServe: &DoclingServeProvider{BaseURL: "http://d"}, Custom: []CustomProvider{{Type: "remote::fp"}}},
		},
		Responses: &ResponsesProviders{
			Inline: &InlineResponsesProviders{Builtin: &BuiltinResponsesProvider{}, Custom: []CustomProvider{{Type: "inline::resp"}}},
			Remote: &RemoteCustomProviders{Custom: []CustomProvider{{Type: "remote::resp"}}},
		},
		Batches: &BatchesProviders{
			Inline: &InlineBatchesProviders{Reference: &ReferenceBatchesProvider{}, Custom: []CustomProvider{{Type: "inline::b"}}},
			Remote: &RemoteCustomProviders{Custom: []CustomProvider{{Type: "remote::b"}}},
		},
		Files: &FilesProviders{
			Inline: &InlineFilesProviders{Localfs: &LocalfsFilesProvider{}, Custom: []CustomProvider{{Type: "inline::f"}}},
			Remote: &RemoteFilesProviders{S3: &S3FilesProvider{BucketName: "b"}, Custom: []CustomProvider{{Type: "remote::f"}}},
		},
		ToolRuntime: &ToolRuntimeProviders{
			Inline: &InlineToolRuntimeProviders{FileSearch: []FileSearchProvider{{}, {ID: "fs2"}}, Custom: []CustomProvider{{Type: "inline::t"}}},
			Remote: &RemoteToolRuntimeProviders{
				Custom:               []CustomProvider{{Type: "remote::t"}},
				ModelContextProtocol: []ModelContextProtocolProvider{{}},
				TavilySearch:         []SearchToolProvider{{APIKey: key}},
				BraveSearch:          []SearchToolProvider{{APIKey: key}},
			},
		},
		VectorIo: &VectorIoProviders{
			Inline: &InlineCustomProviders{Custom: []CustomProvider{{ID: "faiss", Type: "inline::faiss"}}},
			Remote: &RemoteVectorIoProviders{
				Qdrant: []QdrantProvider{{URL: "http://q"}}, Milvus: []MilvusProvider{{URI: "http://m"}},
				Pgvector: []PgvectorProvider{{Password: key}}, Custom: []CustomProvider{{Type: "remote::a::b"}},
			},
		},
		Inference: &InferenceProviders{
			Inline: &InlineCustomProviders{Custom: []CustomProvider{{Type: "inline::sentence-transformers"}}},
			Remote: &RemoteInferenceProviders{
				Custom:   []CustomProvider{{Type: "remote::llama-guard"}},
				Watsonx:  []WatsonxProvider{{APIKey: key}},
				VertexAI: []VertexAIProvider{{Project: "p"}},
				Bedrock:  []BedrockProvider{{Region: "r"}},
				Azure:    []AzureProvider{{Endpoint: "e", APIKey: key}},
				OpenAI:   []OpenAIProvider{{APIKey: key}},
				Vllm:     []VLLMProvider{{Endpoint: "a"}, {ID: "vllm-b", Endpoint: "b"}},
			},
		},
	}
}

func TestEntriesCanonicalOrderAndIDs(t *testing.T) {
	type row struct{ API, ID, Type, Path string }
	want := []row{
		{"inference", "remote-vllm", "remote::vllm", "spec.providers.inference.remote.vllm[0]"},
		{"inference", "vllm-b", "remote::vllm", "spec.providers.inference.remote.vllm[1]"},
		{"inference", "remote-openai", "remote::openai", "spec.providers.inference.remote.openai[0]"},
		{"inference", "remote-azure", "remote::azure", "spec.providers.inference.remote.azure[0]"},
		{"inference", "remote-bedrock", "remote::bedrock", "spec.providers.inference.remote.bedrock[0]"},
		{"inference", "remote-vertexai", "remote::vertexai", "spec.providers.inference.remote.vertexai[0]"},
		{"inference", "remote-watsonx", "remote::watsonx", "spec.providers.inference.remote.watsonx[0]"},
		{"inference", "remote-llama-guard", "remote::llama-guard", "spec.providers.inference.remote.custom[0]"},
		{"inference", "inline-sentence-transformers", "inline::sentence-transformers", "spec.providers.inference.inline.custom[0]"},
		{"vector_io", "remote-pgvector", "remote::pgvector", "spec.providers.vectorIo.remote.pgvector[0]"},
		{"vector_io", "remote-milvus", "remote::milvus", "spec.providers.vectorIo.remote.milvus[0]"},
		{"vector_io", "remote-qdrant", "remote::qdrant", "spec.providers.vectorIo.remote.qdrant[0]"},
		{"vector_io", "remote-a-b", "remote::a::b", "spec.providers.vectorIo.remote.custom[0]"},
		{"vector_io", "faiss", "inline::faiss", "spec.providers.vectorIo.inline.custom[0]"},
		{"tool_runtime", "remote-brave-search", "remote::brave-search", "spec.providers.toolRuntime.remote.braveSearch[0]"},
		{"tool_runtime", "remote-tavily-search", "remote::tavily-search", "spec.providers.toolRuntime.remote.tavilySearch[0]"},
		{"tool_runtime", "remote-model-context-protocol", "remote::model-context-protocol", "spec.providers.toolRuntime.remote.modelContextProtocol[0]"},
		{"tool_runtime", "remote-t", "remote::t", "spec.providers.toolRuntime.remote.custom[0]"},
		{"tool_runtime", "inline-file-search", "inline::rag-runtime", "spec.providers.toolRuntime.inline.fileSearch[0]"},
		{"tool_runtime", "fs2", "inline::rag-runtime", "spec.providers.toolRuntime.inline.fileSearch[1]"},
		{"tool_runtime", "inline-t", "inline::t", "spec.providers.toolRuntime.inline.custom[0]"},
		{"files", "remote-s3", "remote::s3", "spec.providers.files.remote.s3"},
		{"files", "remote-f", "remote::f", "spec.providers.files.remote.custom[0]"},
		{"files", "inline-localfs", "inline::localfs", "spec.providers.files.inline.localfs"},
		{"files", "inline-f", "inline::f", "spec.providers.files.inline.custom[0]"},
		{"batches", "remote-b", "remote::b", "spec.providers.batches.remote.custom[0]"},
		{"batches", "inline-reference", "inline::batch-reference", "spec.providers.batches.inline.reference"},
		{"batches", "inline-b", "inline::b", "spec.providers.batches.inline.custom[0]"},
		{"responses", "remote-resp", "remote::resp", "spec.providers.responses.remote.custom[0]"},
		{"responses", "inline-builtin", "inline::responses", "spec.providers.responses.inline.builtin"},
		{"responses", "inline-resp", "inline::resp", "spec.providers.responses.inline.custom[0]"},
		{"file_processors", "remote-docling-serve", "remote::docling-serve", "spec.providers.fileProcessors.remote.doclingServe"},
		{"file_processors", "remote-fp", "remote::fp", "spec.providers.fileProcessors.remote.custom[0]"},
		{"file_processors", "inline-auto", "inline::auto", "spec.providers.fileProcessors.inline.auto"},
		{"file_processors", "inline-pypdf", "inline::pypdf", "spec.providers.fileProcessors.inline.pypdf"},
		{"file_processors", "inline-markitdown", "inline::markitdown", "spec.providers.fileProcessors.inline.markitdown"},
		{"file_processors", "inline-docling", "inline::docling", "spec.providers.fileProcessors.inline.docling"},
		{"file_processors", "inline-fp", "inline::fp", "spec.providers.fileProcessors.inline.custom[0]"},
	}
	var got []row
	for _, e := range everyKind().Entries() {
		got = append(got, row{e.API, e.ID, e.Type, e.Path.String()})
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Entries() (-want +got):\n%s", diff)
	}
}

func TestEntriesNilAndEmpty(t *testing.T) {
	var p *ProvidersSpec
	if got := p.Entries(); got != nil {
		t.Errorf("nil spec: got %v", got)
	}
	empty := &ProvidersSpec{Inference: &InferenceProviders{}, Files: &FilesProviders{Remote: &RemoteFilesProviders{}}}
	if got := empty.Entries(); len(got) != 0 {
		t.Errorf("empty levels: got %d entries", len(got))
	}
}

func TestIDPath(t *testing.T) {
	entries := (&ProvidersSpec{Inference: &InferenceProviders{Remote: &RemoteInferenceProviders{
		Vllm: []VLLMProvider{{Endpoint: "a"}, {ID: "x", Endpoint: "b"}},
	}}}).Entries()
	if got := entries[0].IDPath().String(); got != "spec.providers.inference.remote.vllm[0]" {
		t.Errorf("implicit id path = %s", got)
	}
	if got := entries[1].IDPath().String(); got != "spec.providers.inference.remote.vllm[1].id" {
		t.Errorf("explicit id path = %s", got)
	}
}
