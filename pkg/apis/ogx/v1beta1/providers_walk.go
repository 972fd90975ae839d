package v1beta1

import (
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The seven provider APIs, by their config.yaml spelling (also the spelling
// of spec.disabledAPIs), in canonical order.
const (
	APIInference      = "inference"
	APIVectorIO       = "vector_io"
	APIToolRuntime    = "tool_runtime"
	APIFiles          = "files"
	APIBatches        = "batches"
	APIResponses      = "responses"
	APIFileProcessors = "file_processors"
)

// ProviderSide is where a provider runs: reached over the network, or inside
// the server.
type ProviderSide string

// The two sides, remote first in canonical order.
const (
	SideRemote ProviderSide = "remote"
	SideInline ProviderSide = "inline"
)

// SecretField is one Secret reference of a provider, with the suffix of its
// environment variable name and its field path.
// +k8s:deepcopy-gen=false
type SecretField struct {
	// EnvSuffix is FIELD in OGX_<NORM(id)>_<FIELD>: API_KEY, PASSWORD, or
	// NORM(key) for a custom provider's secretRefs.
	EnvSuffix string
	// ConfigKey is the provider config key the reference fills.
	ConfigKey string
	// Ref is the referenced Secret key.
	Ref SecretKeyRef
	// Path is the reference's field path, for error messages.
	Path *field.Path

	// jsonName is the field's JSON name, until the walker roots Path.
	jsonName string
}

// ProviderEntry is one provider declared in spec.providers.
// +k8s:deepcopy-gen=false
type ProviderEntry struct {
	// API is the config.yaml API name, for example vector_io.
	API string
	// SpecKey is the key under spec.providers, for example vectorIo.
	SpecKey string
	// Side is remote or inline.
	Side ProviderSide
	// Kind is the JSON name of the kind, for example vllm or custom.
	Kind string
	// Index is the item's index in a list kind; -1 for a singleton.
	Index int
	// ID is the derived provider ID (docs/config-generation.md, Layout, IDs
	// and order).
	ID string
	// ExplicitID reports whether ID came from the item's id field.
	ExplicitID bool
	// Type is the provider_type written to config.yaml.
	Type string
	// Path is the item's field path (spec.providers.inference.remote.vllm[0]).
	Path *field.Path
	// Secrets are the item's Secret references in env collection order.
	Secrets []SecretField
	// Provider points at the typed item: *VLLMProvider, *CustomProvider, ...
	Provider any
}

// IDPath is where an error about the entry's ID points: the id field when the
// ID was given explicitly, else the item itself.
func (e ProviderEntry) IDPath() *field.Path {
	if e.ExplicitID {
		return e.Path.Child("id")
	}
	return e.Path
}

// CustomProviderID derives a custom provider's ID: id when non-empty, else
// type with every "::" replaced by "-".
func CustomProviderID(c *CustomProvider) string {
	if c.ID != "" {
		return c.ID
	}
	return strings.ReplaceAll(c.Type, "::", "-")
}

// providerWalker appends entries in canonical order.
// +k8s:deepcopy-gen=false
type providerWalker struct {
	root    *field.Path
	entries []ProviderEntry
	api     string
	specKey string
}

func (w *providerWalker) begin(api, specKey string) {
	w.api, w.specKey = api, specKey
}

func (w *providerWalker) sidePath(side ProviderSide) *field.Path {
	return w.root.Child(w.specKey, string(side))
}

// defaultProviderID is a typed kind's ID when no id is given: its provider
// type with "::" replaced by "-", except for the three kinds whose provider
// type keeps an older name (kept identical to upstream) while their ID follows
// the kind.
func defaultProviderID(kind, providerType string) string {
	switch kind {
	case "fileSearch":
		return "inline-file-search"
	case "reference":
		return "inline-reference"
	case "builtin":
		return "inline-builtin"
	}
	return strings.ReplaceAll(providerType, "::", "-")
}

// typed appends one typed provider (list item when index >= 0, singleton
// otherwise); its ID is id when non-empty, else the default type with "::"
// replaced by "-".
func (w *providerWalker) typed(side ProviderSide, kind string, index int, id, providerType string, item any, secrets ...SecretField) {
	path := w.sidePath(side).Child(kind)
	if index >= 0 {
		path = path.Index(index)
	}
	e := ProviderEntry{
		API: w.api, SpecKey: w.specKey, Side: side, Kind: kind, Index: index,
		ID: defaultProviderID(kind, providerType), Type: providerType,
		Path: path, Provider: item,
	}
	if id != "" {
		e.ID, e.ExplicitID = id, true
	}
	for _, s := range secrets {
		if s.Ref.Name == "" && s.Ref.Key == "" {
			continue
		}
		s.Path = path.Child(s.jsonName)
		e.Secrets = append(e.Secrets, s)
	}
	w.entries = append(w.entries, e)
}

func (w *providerWalker) custom(side ProviderSide, items []CustomProvider) {
	for i := range items {
		c := &items[i]
		path := w.sidePath(side).Child("custom").Index(i)
		e := ProviderEntry{
			API: w.api, SpecKey: w.specKey, Side: side, Kind: "custom", Index: i,
			ID: CustomProviderID(c), ExplicitID: c.ID != "", Type: c.Type,
			Path: path, Provider: c,
		}
		for _, k := range slices.Sorted(maps.Keys(c.SecretRefs)) {
			e.Secrets = append(e.Secrets, SecretField{
				EnvSuffix: NormEnvName(k), ConfigKey: k, Ref: c.SecretRefs[k],
				Path: path.Child("secretRefs").Key(k),
			})
		}
		w.entries = append(w.entries, e)
	}
}

// secret builds a SecretField for an optional reference; a nil reference is
// skipped by typed. The path holds the field's JSON name until typed roots it.
func secret(ref *SecretKeyRef, jsonName, envSuffix, configKey string) SecretField {
	s := SecretField{EnvSuffix: envSuffix, ConfigKey: configKey, jsonName: jsonName}
	if ref != nil {
		s.Ref = *ref
	}
	return s
}

// Entries lists every declared provider in canonical order
// (docs/config-generation.md, Layout, IDs and order): APIs in the order of the
// API constants above, remote before inline, kinds in table order with custom
// last, list items by index. A nil receiver has no entries.
func (p *ProvidersSpec) Entries() []ProviderEntry {
	if p == nil {
		return nil
	}
	w := &providerWalker{root: field.NewPath("spec", "providers")}
	p.walkInference(w)
	p.walkVectorIO(w)
	p.walkToolRuntime(w)
	p.walkFiles(w)
	p.walkBatchesResponses(w)
	p.walkFileProcessors(w)
	return w.entries
}

func (p *ProvidersSpec) walkInference(w *providerWalker) {
	w.begin(APIInference, "inference")
	if p.Inference == nil {
		return
	}
	if r := p.Inference.Remote; r != nil {
		for i := range r.Vllm {
			x := &r.Vllm[i]
			w.typed(SideRemote, "vllm", i, x.ID, "remote::vllm", x, secret(x.APIToken, "apiToken", "API_TOKEN", "api_token"))
		}
		for i := range r.OpenAI {
			x := &r.OpenAI[i]
			w.typed(SideRemote, "openai", i, x.ID, "remote::openai", x, secret(&x.APIKey, "apiKey", "API_KEY", "api_key"))
		}
		for i := range r.Azure {
			x := &r.Azure[i]
			w.typed(SideRemote, "azure", i, x.ID, "remote::azure", x, secret(&x.APIKey, "apiKey", "API_KEY", "api_key"))
		}
		for i := range r.Bedrock {
			x := &r.Bedrock[i]
			w.typed(SideRemote, "bedrock", i, x.ID, "remote::bedrock", x,
				secret(x.APIKey, "apiKey", "API_KEY", "api_key"),
				secret(x.AWSAccessKeyID, "awsAccessKeyId", "AWS_ACCESS_KEY_ID", "aws_access_key_id"),
				secret(x.AWSSecretAccessKey, "awsSecretAccessKey", "AWS_SECRET_ACCESS_KEY", "aws_secret_access_key"),
				secret(x.AWSSessionToken, "awsSessionToken", "AWS_SESSION_TOKEN", "aws_session_token"))
		}
		for i := range r.VertexAI {
			x := &r.VertexAI[i]
			w.typed(SideRemote, "vertexai", i, x.ID, "remote::vertexai", x)
		}
		for i := range r.Watsonx {
			x := &r.Watsonx[i]
			w.typed(SideRemote, "watsonx", i, x.ID, "remote::watsonx", x, secret(&x.APIKey, "apiKey", "API_KEY", "api_key"))
		}
		w.custom(SideRemote, r.Custom)
	}
	if in := p.Inference.Inline; in != nil {
		w.custom(SideInline, in.Custom)
	}
}

func (p *ProvidersSpec) walkVectorIO(w *providerWalker) {
	w.begin(APIVectorIO, "vectorIo")
	if p.VectorIo == nil {
		return
	}
	if r := p.VectorIo.Remote; r != nil {
		for i := range r.Pgvector {
			x := &r.Pgvector[i]
			w.typed(SideRemote, "pgvector", i, x.ID, "remote::pgvector", x, secret(&x.Password, "password", "PASSWORD", "password"))
		}
		for i := range r.Milvus {
			x := &r.Milvus[i]
			w.typed(SideRemote, "milvus", i, x.ID, "remote::milvus", x, secret(x.Token, "token", "TOKEN", "token"))
		}
		for i := range r.Qdrant {
			x := &r.Qdrant[i]
			w.typed(SideRemote, "qdrant", i, x.ID, "remote::qdrant", x, secret(x.APIKey, "apiKey", "API_KEY", "api_key"))
		}
		w.custom(SideRemote, r.Custom)
	}
	if in := p.VectorIo.Inline; in != nil {
		w.custom(SideInline, in.Custom)
	}
}

func (p *ProvidersSpec) walkToolRuntime(w *providerWalker) {
	w.begin(APIToolRuntime, "toolRuntime")
	if p.ToolRuntime == nil {
		return
	}
	if r := p.ToolRuntime.Remote; r != nil {
		for i := range r.BraveSearch {
			x := &r.BraveSearch[i]
			w.typed(SideRemote, "braveSearch", i, x.ID, "remote::brave-search", x, secret(&x.APIKey, "apiKey", "API_KEY", "api_key"))
		}
		for i := range r.TavilySearch {
			x := &r.TavilySearch[i]
			w.typed(SideRemote, "tavilySearch", i, x.ID, "remote::tavily-search", x, secret(&x.APIKey, "apiKey", "API_KEY", "api_key"))
		}
		for i := range r.ModelContextProtocol {
			x := &r.ModelContextProtocol[i]
			w.typed(SideRemote, "modelContextProtocol", i, x.ID, "remote::model-context-protocol", x)
		}
		w.custom(SideRemote, r.Custom)
	}
	if in := p.ToolRuntime.Inline; in != nil {
		for i := range in.FileSearch {
			x := &in.FileSearch[i]
			w.typed(SideInline, "fileSearch", i, x.ID, "inline::rag-runtime", x)
		}
		w.custom(SideInline, in.Custom)
	}
}

func (p *ProvidersSpec) walkFiles(w *providerWalker) {
	w.begin(APIFiles, "files")
	if p.Files == nil {
		return
	}
	if r := p.Files.Remote; r != nil {
		if x := r.S3; x != nil {
			w.typed(SideRemote, "s3", -1, "", "remote::s3", x,
				secret(x.AWSAccessKeyID, "awsAccessKeyId", "AWS_ACCESS_KEY_ID", "aws_access_key_id"),
				secret(x.AWSSecretAccessKey, "awsSecretAccessKey", "AWS_SECRET_ACCESS_KEY", "aws_secret_access_key"))
		}
		w.custom(SideRemote, r.Custom)
	}
	if in := p.Files.Inline; in != nil {
		if x := in.Localfs; x != nil {
			w.typed(SideInline, "localfs", -1, "", "inline::localfs", x)
		}
		w.custom(SideInline, in.Custom)
	}
}

func (p *ProvidersSpec) walkBatchesResponses(w *providerWalker) {
	w.begin(APIBatches, "batches")
	if b := p.Batches; b != nil {
		if b.Remote != nil {
			w.custom(SideRemote, b.Remote.Custom)
		}
		if in := b.Inline; in != nil {
			if x := in.Reference; x != nil {
				w.typed(SideInline, "reference", -1, "", "inline::batch-reference", x)
			}
			w.custom(SideInline, in.Custom)
		}
	}
	w.begin(APIResponses, "responses")
	if r := p.Responses; r != nil {
		if r.Remote != nil {
			w.custom(SideRemote, r.Remote.Custom)
		}
		if in := r.Inline; in != nil {
			if x := in.Builtin; x != nil {
				w.typed(SideInline, "builtin", -1, "", "inline::responses", x)
			}
			w.custom(SideInline, in.Custom)
		}
	}
}

func (p *ProvidersSpec) walkFileProcessors(w *providerWalker) {
	w.begin(APIFileProcessors, "fileProcessors")
	if p.FileProcessors == nil {
		return
	}
	if r := p.FileProcessors.Remote; r != nil {
		if x := r.DoclingServe; x != nil {
			w.typed(SideRemote, "doclingServe", -1, "", "remote::docling-serve", x, secret(x.APIKey, "apiKey", "API_KEY", "api_key"))
		}
		w.custom(SideRemote, r.Custom)
	}
	if in := p.FileProcessors.Inline; in != nil {
		if x := in.Auto; x != nil {
			w.typed(SideInline, "auto", -1, "", "inline::auto", x)
		}
		if x := in.Pypdf; x != nil {
			w.typed(SideInline, "pypdf", -1, "", "inline::pypdf", x)
		}
		if x := in.Markitdown; x != nil {
			w.typed(SideInline, "markitdown", -1, "", "inline::markitdown", x)
		}
		if x := in.Docling; x != nil {
			w.typed(SideInline, "docling", -1, "", "inline::docling", x)
		}
		w.custom(SideInline, in.Custom)
	}
}
