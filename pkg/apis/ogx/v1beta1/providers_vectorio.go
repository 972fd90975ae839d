package v1beta1

// VectorIoProviders are the vector store providers.
type VectorIoProviders struct {
	// Remote providers are reached over the network.
	// +optional
	Remote *RemoteVectorIoProviders `json:"remote,omitempty"`
	// Inline providers run inside the server.
	// +optional
	Inline *InlineCustomProviders `json:"inline,omitempty"`
}

// InlineCustomProviders is a side of an API that only has custom providers.
type InlineCustomProviders struct {
	// Custom providers of any type.
	// +optional
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	Custom []CustomProvider `json:"custom,omitempty"`
}

// RemoteVectorIoProviders are the remote vector store kinds.
type RemoteVectorIoProviders struct {
	// Pgvector databases (default provider ID remote-pgvector).
	// +optional
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	Pgvector []PgvectorProvider `json:"pgvector,omitempty"`
	// Milvus servers (default provider ID remote-milvus).
	// +optional
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	Milvus []MilvusProvider `json:"milvus,omitempty"`
	// Qdrant servers (default provider ID remote-qdrant).
	// +optional
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	Qdrant []QdrantProvider `json:"qdrant,omitempty"`
	// Custom providers of any other type.
	// +optional
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	Custom []CustomProvider `json:"custom,omitempty"`
}

// PgvectorProvider is a PostgreSQL database with pgvector.
//
// +kubebuilder:validation:XValidation:rule="!has(self.id) || self.id.size() > 0",message="id must not be empty if specified"
// +kubebuilder:validation:XValidation:rule="!has(self.host) || self.host.size() > 0",message="host must not be empty if specified"
// +kubebuilder:validation:XValidation:rule="!has(self.db) || self.db.size() > 0",message="db must not be empty if specified"
// +kubebuilder:validation:XValidation:rule="!has(self.user) || self.user.size() > 0",message="user must not be empty if specified"
type PgvectorProvider struct {
	// ID is the provider ID; remote-pgvector when unset.
	// +optional
	ID string `json:"id,omitempty"`
	// Host is the database host.
	// +optional
	Host string `json:"host,omitempty"`
	// Port is the database port.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	Port *int `json:"port,omitempty"`
	// DB is the database name.
	// +optional
	DB string `json:"db,omitempty"`
	// User is the database user.
	// +optional
	User string `json:"user,omitempty"`
	// Password is the database password.
	// +required
	Password SecretKeyRef `json:"password"`
	// DistanceMetric is the vector distance function.
	// +optional
	// +kubebuilder:validation:Enum=COSINE;L2;L1;INNER_PRODUCT
	DistanceMetric string `json:"distanceMetric,omitempty"`
	// VectorIndex selects and tunes the index, hnsw or ivfFlat.
	// +optional
	VectorIndex *PgvectorIndex `json:"vectorIndex,omitempty"`
}

// PgvectorIndex selects exactly one pgvector index type.
//
// +kubebuilder:validation:XValidation:rule="has(self.hnsw) || has(self.ivfFlat)",message="one of hnsw or ivfFlat must be specified"
// +kubebuilder:validation:XValidation:rule="!(has(self.hnsw) && has(self.ivfFlat))",message="only one of hnsw or ivfFlat can be specified"
type PgvectorIndex struct {
	// HNSW is a hierarchical navigable small world index.
	// +optional
	HNSW *HNSWIndex `json:"hnsw,omitempty"`
	// IVFFlat is an inverted-file flat index.
	// +optional
	IVFFlat *IVFFlatIndex `json:"ivfFlat,omitempty"`
}

// HNSWIndex tunes an HNSW index.
type HNSWIndex struct {
	// M is the number of connections per layer.
	// +optional
	// +kubebuilder:validation:Minimum=1
	M *int `json:"m,omitempty"`
	// EfConstruction is the candidate list size while building.
	// +optional
	// +kubebuilder:validation:Minimum=1
	EfConstruction *int `json:"efConstruction,omitempty"`
	// EfSearch is the candidate list size while searching.
	// +optional
	// +kubebuilder:validation:Minimum=1
	EfSearch *int `json:"efSearch,omitempty"`
}

// IVFFlatIndex tunes an IVFFlat index.
type IVFFlatIndex struct {
	// Nlist is the number of lists.
	// +optional
	// +kubebuilder:validation:Minimum=1
	Nlist *int `json:"nlist,omitempty"`
	// Nprobe is the number of lists probed per query.
	// +optional
	// +kubebuilder:validation:Minimum=1
	Nprobe *int `json:"nprobe,omitempty"`
}

// MilvusProvider is a Milvus server.
//
// +kubebuilder:validation:XValidation:rule="!has(self.id) || self.id.size() > 0",message="id must not be empty if specified"
// +kubebuilder:validation:XValidation:rule="!has(self.consistencyLevel) || self.consistencyLevel.size() > 0",message="consistencyLevel must not be empty if specified"
type MilvusProvider struct {
	// ID is the provider ID; remote-milvus when unset.
	// +optional
	ID string `json:"id,omitempty"`
	// URI is the server's URI.
	// +required
	// +kubebuilder:validation:MinLength=1
	URI string `json:"uri"`
	// Token authenticates to the server.
	// +optional
	Token *SecretKeyRef `json:"token,omitempty"`
	// ConsistencyLevel is the Milvus consistency level.
	// +optional
	ConsistencyLevel string `json:"consistencyLevel,omitempty"`
}

// QdrantProvider is a Qdrant server, given by url or host.
//
// +kubebuilder:validation:XValidation:rule="!has(self.id) || self.id.size() > 0",message="id must not be empty if specified"
// +kubebuilder:validation:XValidation:rule="!has(self.url) || self.url.size() > 0",message="url must not be empty if specified"
// +kubebuilder:validation:XValidation:rule="!has(self.host) || self.host.size() > 0",message="host must not be empty if specified"
// +kubebuilder:validation:XValidation:rule="!has(self.location) || self.location.size() > 0",message="location must not be empty if specified"
// +kubebuilder:validation:XValidation:rule="!has(self.prefix) || self.prefix.size() > 0",message="prefix must not be empty if specified"
// +kubebuilder:validation:XValidation:rule="has(self.url) || has(self.host)",message="at least one of url or host must be specified"
type QdrantProvider struct {
	// ID is the provider ID; remote-qdrant when unset.
	// +optional
	ID string `json:"id,omitempty"`
	// URL is the server's URL.
	// +optional
	URL string `json:"url,omitempty"`
	// Host is the server's host.
	// +optional
	Host string `json:"host,omitempty"`
	// Location is a Qdrant location string.
	// +optional
	Location string `json:"location,omitempty"`
	// Prefix is the URL path prefix.
	// +optional
	Prefix string `json:"prefix,omitempty"`
	// Port is the HTTP port.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	Port *int `json:"port,omitempty"`
	// GRPCPort is the gRPC port.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	GRPCPort *int `json:"grpcPort,omitempty"`
	// APIKey authenticates to the server.
	// +optional
	APIKey *SecretKeyRef `json:"apiKey,omitempty"`
	// PreferGRPC makes the client use gRPC.
	// +optional
	PreferGRPC *bool `json:"preferGrpc,omitempty"`
	// HTTPS makes the client use HTTPS.
	// +optional
	HTTPS *bool `json:"https,omitempty"`
	// Timeout is the request timeout, in seconds.
	// +optional
	// +kubebuilder:validation:Minimum=1
	Timeout *int `json:"timeout,omitempty"`
}
