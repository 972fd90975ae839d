package integration

import (
	"fmt"
	"strings"
)

// This file holds the manifest building blocks shared by the tables: one
// minimal valid item per provider kind, so a case can break exactly one rule
// of an otherwise valid object.

// listKind is a multi-instance provider kind (docs/config-generation.md,
// Layout, IDs and order) with a minimal valid item.
type listKind struct {
	path string // under spec
	item string // YAML of a minimal valid item
}

// typedListKinds are the 13 typed list kinds (docs/config-generation.md,
// Layout, IDs and order).
var typedListKinds = []listKind{
	{"providers.inference.remote.vllm", `{endpoint: "http://vllm:8000/v1"}`},
	{"providers.inference.remote.openai", `{apiKey: {name: openai, key: api-key}}`},
	{"providers.inference.remote.azure", `{endpoint: "https://ogx.openai.azure.com", apiKey: {name: azure, key: api-key}}`},
	{"providers.inference.remote.bedrock", `{region: us-east-1}`},
	{"providers.inference.remote.vertexai", `{project: my-project}`},
	{"providers.inference.remote.watsonx", `{apiKey: {name: watsonx, key: api-key}}`},
	{"providers.vectorIo.remote.pgvector", `{password: {name: pgvector, key: password}}`},
	{"providers.vectorIo.remote.milvus", `{uri: "http://milvus:19530"}`},
	{"providers.vectorIo.remote.qdrant", `{url: "http://qdrant:6333"}`},
	{"providers.toolRuntime.remote.braveSearch", `{apiKey: {name: brave, key: api-key}}`},
	{"providers.toolRuntime.remote.tavilySearch", `{apiKey: {name: tavily, key: api-key}}`},
	{"providers.toolRuntime.remote.modelContextProtocol", `{}`},
	{"providers.toolRuntime.inline.fileSearch", `{}`},
}

// remoteInferenceKinds are the six kinds carrying the common remote
// inference fields (allowedModels, refreshModels, network).
var remoteInferenceKinds = typedListKinds[:6]

// providerAPIs are the seven provider API keys with their disabledAPIs
// spelling, in canonical order (docs/config-generation.md, Layout, IDs and
// order).
var providerAPIs = []struct{ key, disabled string }{
	{"inference", "inference"},
	{"vectorIo", "vector_io"},
	{"toolRuntime", "tool_runtime"},
	{"files", "files"},
	{"batches", "batches"},
	{"responses", "responses"},
	{"fileProcessors", "file_processors"},
}

// customLocations are the 14 places a custom[] list may appear.
func customLocations() []string {
	var out []string
	for _, api := range providerAPIs {
		for _, side := range []string{"remote", "inline"} {
			out = append(out, fmt.Sprintf("providers.%s.%s.custom", api.key, side))
		}
	}
	return out
}

// customItem is a minimal valid custom provider.
const customItem = `{type: "remote::my-provider"}`

// itemYAML merges the YAML mappings of parts (later parts win, null deletes).
func itemYAML(parts ...string) map[string]any {
	var out any = map[string]any{}
	for _, p := range parts {
		m, err := parseYAMLMap(p)
		if err != nil {
			panic(fmt.Sprintf("test table: %v", err))
		}
		out = mergePatch(out, m)
	}
	return out.(map[string]any)
}

// listPatch is a spec patch holding a one-item list at path whose item is
// the merge of parts.
func listPatch(path string, parts ...string) string {
	return mustJSON(nest(path, []any{itemYAML(parts...)}))
}

// objPatch is a spec patch holding an object at path: the merge of parts.
func objPatch(path string, parts ...string) string {
	return mustJSON(nest(path, itemYAML(parts...)))
}

// nItems is a spec patch holding a list of n copies of item at path.
func nItems(path, item string, n int) string {
	items := make([]any, n)
	for i := range items {
		items[i] = itemYAML(item)
	}
	return mustJSON(nest(path, items))
}

// specPath turns a path under spec into the field path the apiserver
// reports.
func specPath(path string) string { return "spec." + path }

// item0 is the field path of the first item of the list at path.
func item0(path string) string { return specPath(path) + "[0]" }

// lastElem is the last dot-separated element of path.
func lastElem(path string) string { return path[strings.LastIndex(path, ".")+1:] }

// withBase is the base spec with patch merged in, as JSON.
func withBase(patch string) string {
	return mustJSON(mergePatch(itemYAML(baseSpec), itemYAML(patch)))
}
