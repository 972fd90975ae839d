package integration

import (
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime"
)

// validCase is an OGXServer spec the CRD must accept. defaults lists values
// the apiserver's structural defaulting must have filled in, by path in the
// returned object.
type validCase struct {
	name     string
	spec     string
	defaults map[string]any
}

// refs used by many cases.
const (
	inferenceAllRemoteKinds = `
distribution: {name: remote-vllm}
providers:
  inference:
    remote:
      vllm:
      - id: vllm-small
        endpoint: "http://vllm-small:8000/v1"
        apiToken: {name: vllm, key: token}
        maxTokens: 4096
        allowedModels: [llama-3.2-1b, llama-3.2-3b]
        refreshModels: true
        network:
          tls: {verify: false, minVersion: TLSv1.3, ciphers: [TLS_AES_128_GCM_SHA256]}
          proxy: {url: "http://proxy:3128", http: "http://proxy:3128", https: "http://proxy:3129", cacert: /etc/proxy/ca.crt, noProxy: [localhost, .svc]}
          timeout: {connect: 5, read: 120}
          headers: {X-Tenant: ogx}
      - endpoint: "http://vllm-large:8000/v1"
      openai:
      - apiKey: {name: openai, key: api-key}
        endpoint: "https://api.openai.com/v1"
        allowedModels: [gpt-4o-mini]
        network: {tls: {minVersion: TLSv1.2}}
      azure:
      - endpoint: "https://ogx.openai.azure.com"
        apiKey: {name: azure, key: api-key}
        apiVersion: "2024-10-21"
        apiType: azure
      bedrock:
      - region: us-east-1
        apiKey: {name: bedrock, key: api-key}
        awsAccessKeyId: {name: bedrock, key: access-key-id}
        awsSecretAccessKey: {name: bedrock, key: secret-access-key}
        awsSessionToken: {name: bedrock, key: session-token}
        awsRoleArn: "arn:aws:iam::123456789012:role/ogx"
        awsWebIdentityTokenFile: /var/run/secrets/eks.amazonaws.com/serviceaccount/token
        awsRoleSessionName: ogx
        profileName: default
        retryMode: adaptive
        totalMaxAttempts: 3
        connectTimeout: 10
        readTimeout: 60
        sessionTTL: 3600
      vertexai:
      - project: my-project
        location: us-central1
      watsonx:
      - apiKey: {name: watsonx, key: api-key}
        endpoint: "https://us-south.ml.cloud.ibm.com"
        projectId: my-project
        timeout: 60
`
	vectorIoAllKinds = `
distribution: {name: starter}
providers:
  vectorIo:
    remote:
      pgvector:
      - id: pg-hnsw
        host: postgres
        port: 5432
        db: vectors
        user: ogx
        password: {name: pgvector, key: password}
        distanceMetric: COSINE
        vectorIndex: {hnsw: {m: 16, efConstruction: 64, efSearch: 40}}
      - id: pg-ivf
        port: 65535
        password: {name: pgvector, key: password}
        distanceMetric: INNER_PRODUCT
        vectorIndex: {ivfFlat: {nlist: 100, nprobe: 10}}
      milvus:
      - uri: "http://milvus:19530"
        token: {name: milvus, key: token}
        consistencyLevel: Strong
      qdrant:
      - id: qdrant-url
        url: "http://qdrant:6333"
        apiKey: {name: qdrant, key: api-key}
        location: ":memory:"
        prefix: ogx
        timeout: 30
      - id: qdrant-host
        host: qdrant
        port: 6333
        grpcPort: 6334
        preferGrpc: true
        https: false
      custom:
      - {type: "remote::weaviate", secretRefs: {api_key: {name: weaviate, key: api-key}}, settings: {weaviate_cluster_url: "http://weaviate:8080"}}
    inline:
      custom:
      - {id: faiss, type: "inline::faiss", settings: {persistence: {type: sqlite, db_path: /.ogx/faiss.db}}}
`
	toolRuntimeAllKinds = `
distribution: {name: starter}
providers:
  toolRuntime:
    remote:
      braveSearch: [{apiKey: {name: brave, key: api-key}, maxResults: 3}]
      tavilySearch: [{id: tavily, apiKey: {name: tavily, key: api-key}, maxResults: 5}]
      modelContextProtocol: [{}, {id: mcp-2}]
      custom: [{type: "remote::wolfram-alpha", secretRefs: {api_key: {name: wolfram, key: api-key}}}]
    inline:
      fileSearch:
      - vectorStoresConfig:
          defaultProviderId: pg-hnsw
          defaultEmbeddingModel: {providerId: sentence-transformers, modelId: all-MiniLM-L6-v2, embeddingDimensions: 384}
          defaultRerankerModel: {providerId: vllm-small, modelId: bge-reranker}
          rewriteQueryParams:
            model: {providerId: vllm-small, modelId: llama-3.2-1b}
            prompt: "Rewrite: {query}"
            maxTokens: 100
            temperature: "0.3"
          fileSearchParams: {headerTemplate: "BEGIN", footerTemplate: "END"}
          contextPromptParams: {chunkAnnotationTemplate: "[{index}] {chunk}", contextTemplate: "{context}"}
          annotationPromptParams: {enableAnnotations: true, annotationInstructionTemplate: "cite", chunkAnnotationTemplate: "<{file_id}>"}
          fileIngestionParams: {defaultChunkSizeTokens: 512, defaultChunkOverlapTokens: 0}
          chunkRetrievalParams: {chunkMultiplier: 5, maxTokensInContext: 4000, defaultRerankerStrategy: weighted, rrfImpactFactor: "60.0", weightedSearchAlpha: "0.5", defaultSearchMode: hybrid}
          fileBatchParams: {maxConcurrentFilesPerBatch: 3, fileBatchChunkSize: 10, cleanupIntervalSeconds: 86400}
          contextualRetrievalParams: {model: {providerId: vllm-small, modelId: llama-3.2-1b}, defaultTimeoutSeconds: 120, defaultMaxConcurrency: 3, maxDocumentTokens: 100000}
      custom: [{type: "inline::rag-runtime"}]
`
	workloadAll = `
distribution: {image: "quay.io/ogx/distribution-starter:0.3.0"}
workload:
  replicas: 0
  workers: 4
  resources:
    requests: {cpu: "2", memory: 4Gi}
    limits: {cpu: "4", memory: 8Gi, nvidia.com/gpu: "1"}
    claims: [{name: gpu}]
  resourceClaims: [{name: gpu, resourceClaimTemplateName: single-gpu}]
  autoscaling: {minReplicas: 2, maxReplicas: 5, targetCPUUtilizationPercentage: 75, targetMemoryUtilizationPercentage: 100}
  storage: {size: "20Gi", mountPath: /data}
  podDisruptionBudget: {minAvailable: 0}
  topologySpreadConstraints:
  - maxSkew: 1
    topologyKey: topology.kubernetes.io/zone
    whenUnsatisfiable: ScheduleAnyway
    labelSelector: {matchLabels: {app.kubernetes.io/instance: ogx}}
  overrides:
    serviceAccountName: ogx-server
    env:
    - {name: LOG_LEVEL, value: debug}
    - name: HF_TOKEN
      valueFrom: {secretKeyRef: {name: hf, key: token}}
    command: [python, -m, ogx.server]
    args: [--config, /etc/ogx/config.yaml]
    volumes:
    - {name: extra, configMap: {name: extra-files}}
    - {name: scratch, emptyDir: {sizeLimit: 1Gi}}
    volumeMounts:
    - {name: extra, mountPath: /extra, readOnly: true}
    - {name: scratch, mountPath: /scratch}
`
	networkAll = `
distribution: {name: starter}
network:
  port: 8080
  tls: {secretName: ogx-server-tls}
  externalAccess: {enabled: true, hostname: ogx.example.com}
  policy:
    enabled: true
    policyTypes: [Ingress, Egress]
    ingress:
    - from:
      - namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: clients}}
      - podSelector: {matchExpressions: [{key: role, operator: In, values: [frontend]}]}
      ports: [{protocol: TCP, port: 8080}]
    egress:
    - to: [{ipBlock: {cidr: 10.0.0.0/8, except: [10.1.0.0/16]}}]
      ports: [{protocol: TCP, port: 443}, {port: https}]
`
)

var validCases = []validCase{
	{name: "distribution-name-only", spec: `distribution: {name: starter}`},
	{name: "distribution-image-only", spec: `distribution: {image: "quay.io/ogx/distribution-starter@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"}`},
	// Emptiness is the webhook's business (A6); the CRD checks presence only.
	{name: "distribution-empty-name-is-schema-valid", spec: `distribution: {name: ""}`},
	{name: "inference-every-remote-kind", spec: inferenceAllRemoteKinds},
	{name: "inference-custom-remote-and-inline", spec: `
distribution: {name: starter}
providers:
  inference:
    remote:
      custom:
      - id: guard
        type: "remote::llama-guard"
        secretRefs: {api_key: {name: guard, key: api-key}, base_url: {name: guard, key: url}}
        settings: {excluded_categories: [S1, S2], timeout: 30, nested: {enabled: true}}
    inline:
      custom:
      - type: "inline::sentence-transformers"
      - {id: st2, type: "remote::a::b", settings: {}}
`},
	{name: "vectorIo-every-kind", spec: vectorIoAllKinds},
	{name: "toolRuntime-every-kind", spec: toolRuntimeAllKinds},
	{name: "files-remote-s3-and-custom", spec: `
distribution: {name: starter}
providers:
  files:
    remote:
      s3:
        bucketName: ogx-files
        region: eu-west-1
        endpointUrl: "https://s3.eu-west-1.amazonaws.com"
        awsAccessKeyId: {name: s3, key: access-key-id}
        awsSecretAccessKey: {name: s3, key: secret-access-key}
        autoCreateBucket: true
      custom: [{type: "remote::gcs"}]
`},
	{name: "files-inline-localfs-and-custom", spec: `
distribution: {name: starter}
providers:
  files:
    inline:
      localfs: {ttlSecs: 3600}
      custom: [{id: blob, type: "inline::blobstore", settings: {root: /.ogx/blobs}}]
`},
	{name: "batches-reference-and-custom", spec: `
distribution: {name: starter}
providers:
  batches:
    inline:
      reference: {maxConcurrentBatches: 2, maxConcurrentRequestsPerBatch: 16}
    remote:
      custom: [{type: "remote::batch-service"}]
`},
	{name: "responses-builtin-and-custom", spec: `
distribution: {name: starter}
providers:
  responses:
    inline:
      builtin:
        vectorStoresConfig:
          defaultProviderId: qdrant-url
          chunkRetrievalParams: {defaultRerankerStrategy: rrf, defaultSearchMode: vector}
        compactionConfig:
          summarizationPrompt: "Summarize the conversation."
          summaryPrefix: "Summary:"
          summarizationModel: llama-3.2-1b
          tokenizerEncoding: cl100k_base
          defaultCompactThreshold: 8000
    remote:
      custom: [{type: "remote::responses-proxy"}]
`},
	{name: "fileProcessors-every-kind-with-bounds", spec: `
distribution: {name: starter}
providers:
  fileProcessors:
    remote:
      doclingServe: {baseUrl: "http://docling:5001", apiKey: {name: docling, key: api-key}, defaultChunkSizeTokens: 4096}
      custom: [{type: "remote::unstructured"}]
    inline:
      auto: {defaultChunkSizeTokens: 100, defaultChunkOverlapTokens: 0, extractMetadata: true, cleanText: false}
      pypdf: {defaultChunkSizeTokens: 4096, defaultChunkOverlapTokens: 2048, extractMetadata: false, cleanText: true}
      markitdown: {defaultChunkSizeTokens: 800, defaultChunkOverlapTokens: 100}
      docling: {defaultChunkSizeTokens: 1024, defaultChunkOverlapTokens: 128, doOcr: true}
      custom: [{type: "inline::tika"}]
`},
	{name: "providers-empty-objects-at-every-level", spec: `
distribution: {name: starter}
providers:
  inference: {}
  vectorIo: {remote: {}, inline: {}}
  toolRuntime: {remote: {}}
  files: {inline: {localfs: {}}}
  batches: {inline: {reference: {}}}
  responses: {inline: {builtin: {vectorStoresConfig: {}, compactionConfig: {}}}}
  fileProcessors: {inline: {auto: {}, pypdf: {}, markitdown: {}, docling: {}}}
`},
	{name: "list-kind-100-items", spec: withBase(nItems("providers.inference.remote.vllm", `{endpoint: "http://vllm:8000/v1"}`, 100))},
	{name: "custom-100-items", spec: withBase(nItems("providers.batches.remote.custom", customItem, 100))},
	{name: "resources-models", spec: `
distribution: {name: starter}
resources:
  models:
  - {name: llama-3.2-8b, provider: vllm-small, contextLength: 131072, modelType: llm, quantization: fp8}
  - {name: all-MiniLM-L6-v2, modelType: embedding, contextLength: 0}
`},
	{name: "storage-redis-and-postgres", spec: `
distribution: {name: postgres-demo}
storage:
  kv: {type: redis, endpoint: "redis://redis:6379/0", password: {name: redis, key: password}}
  sql: {type: postgres, connectionString: {name: postgres, key: dsn}}
`},
	{name: "storage-defaults-to-sqlite", spec: `{distribution: {name: starter}, storage: {kv: {}, sql: {}}}`,
		defaults: map[string]any{"spec.storage.kv.type": "sqlite", "spec.storage.sql.type": "sqlite"}},
	{name: "disabledAPIs-with-other-providers", spec: `
distribution: {name: starter}
disabledAPIs: [batches, file_processors, responses, tool_runtime, files, files, vector_io]
registryRefreshIntervalSeconds: 300
providers:
  inference:
    remote:
      vllm: [{endpoint: "http://vllm:8000/v1"}]
`},
	{name: "disabledAPIs-every-api-once", spec: `
distribution: {name: starter}
disabledAPIs: [batches, file_processors, inference, responses, tool_runtime, vector_io, files]
registryRefreshIntervalSeconds: 1
`},
	{name: "network-everything", spec: networkAll},
	{name: "network-defaults", spec: `{distribution: {name: starter}, network: {externalAccess: {}, policy: {}}}`,
		defaults: map[string]any{
			"spec.network.port":                   int64(8321),
			"spec.network.policy.enabled":         true,
			"spec.network.externalAccess.enabled": false,
		}},
	{name: "network-port-bounds-and-policy-off", spec: `{distribution: {name: starter}, network: {port: 65535, policy: {enabled: false}}, monitoring: {metricsPort: 1}}`},
	{name: "outbound-tls-trust-and-identity", spec: `
distribution: {name: starter}
tls:
  trust:
    caCertificates: [{name: corp-ca, key: ca.crt}, {name: extra-ca, key: root_2.pem}]
  identity:
    cert: {name: client-cert, key: tls.crt}
    key: {name: client-key, key: tls.key}
`},
	{name: "workload-everything", spec: workloadAll},
	{name: "workload-defaults", spec: `{distribution: {name: starter}, workload: {storage: {}, podDisruptionBudget: {maxUnavailable: "25%"}}}`,
		defaults: map[string]any{"spec.workload.replicas": int64(1), "spec.workload.storage.mountPath": "/.ogx"}},
	{name: "workload-storage-decimal-size", spec: `{distribution: {name: starter}, workload: {storage: {size: "500M"}, autoscaling: {minReplicas: 3, maxReplicas: 3}}}`},
	{name: "monitoring-defaults", spec: `{distribution: {name: starter}, monitoring: {}}`,
		defaults: map[string]any{"spec.monitoring.enabled": true}},
	{name: "monitoring-disabled-with-port", spec: `{distribution: {name: starter}, monitoring: {enabled: false, metricsPort: 9090}}`},
	{name: "baseConfig-with-generation", spec: `
distribution: {name: starter}
baseConfig: {name: base-config, key: config.yaml}
providers:
  inference:
    remote:
      openai: [{apiKey: {name: openai, key: api-key}}]
resources:
  models: [{name: gpt-4o-mini}]
storage:
  kv: {type: sqlite}
disabledAPIs: [batches]
`},
	{name: "overrideConfig-alone", spec: `
distribution: {image: "quay.io/ogx/custom:1.0"}
overrideConfig: {name: full-config, key: run.yaml}
network: {port: 9000}
workload: {replicas: 2}
monitoring: {enabled: true}
tls: {trust: {caCertificates: [{name: ca, key: ca.crt}]}}
`},
	// The remote::/inline:: prefix is checked by CEL; a bare prefix and a
	// prefix not matching the position are the webhook's (A10) or allowed.
	{name: "custom-prefix-only-is-schema-valid", spec: `
distribution: {name: starter}
providers:
  inference:
    inline:
      custom: [{type: "remote::x"}, {type: "inline::"}]
`},
}

// TestOGXServerAccepted dry-run creates every valid manifest, checks that
// everything sent came back unchanged (nothing pruned or rewritten) and that
// the expected schema defaults were applied.
func TestOGXServerAccepted(t *testing.T) {
	ns := cp.CreateNamespace(t, "valid")
	t.Logf("%d valid OGXServer cases", len(validCases))
	offline := newOfflineValidator(t)
	for _, tc := range validCases {
		t.Run(tc.name, func(t *testing.T) {
			obj, err := newOGXServer("valid", tc.spec)
			if err != nil {
				t.Fatalf("case %s: %v", tc.name, err)
			}
			manifest, _ := obj.MarshalJSON()
			got, err := dyn.Resource(ogxServerGVR).Namespace(ns).Create(t.Context(), obj, dryRunCreate)
			if err != nil {
				t.Fatalf("case %s: dry-run create rejected a valid manifest:\n\t%s\n\tmanifest: %s", tc.name, describeAPIError(err), manifest)
			}
			// Offline (render --validate, migrate) the object is accepted
			// and defaulted exactly as the API server stores it.
			defaulted := runtime.DeepCopyJSON(obj.Object)
			if causes := offline.causes(t, defaulted); len(causes) > 0 {
				t.Errorf("case %s: offline validation rejected a manifest the API server accepts: %v", tc.name, causes)
			} else if diff := cmp.Diff(got.Object["spec"], defaulted["spec"]); diff != "" {
				t.Errorf("case %s: offline defaults differ from the API server's (-api +offline):\n%s", tc.name, diff)
			}
			if diff := subsetDiff("spec", obj.Object["spec"], got.Object["spec"]); len(diff) > 0 {
				t.Errorf("case %s: the returned object differs from what was sent:\n\t%s", tc.name, strings.Join(diff, "\n\t"))
			}
			for path, wantValue := range tc.defaults {
				v, found, err := lookup(got.Object, path)
				switch {
				case err != nil:
					t.Errorf("case %s: reading %s: %v", tc.name, path, err)
				case !found:
					t.Errorf("case %s: default %s = %#v was not applied (field absent)", tc.name, path, wantValue)
				case !reflect.DeepEqual(v, wantValue):
					t.Errorf("case %s: default %s = %#v, want %#v", tc.name, path, v, wantValue)
				}
			}
		})
	}
}
