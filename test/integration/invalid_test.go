package integration

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// want is one error the apiserver must report for a case.
type want struct {
	field string // StatusCause.Field, exactly
	msg   string // CEL: the rule's message, exactly (the cause ends with it); schema: a substring
	cel   bool
}

// celErr expects the CEL rule with message msg to fail on the node field.
func celErr(field, msg string) want { return want{field: field, msg: msg, cel: true} }

// schemaErr expects an OpenAPI schema violation at field whose message
// contains msg.
func schemaErr(field, msg string) want { return want{field: field, msg: msg} }

// Fragments of the apiserver's schema error messages.
const (
	required  = "Required value"
	enum      = "Unsupported value"
	minLen1   = "should be at least 1 chars long"
	minItems1 = "should have at least 1 items"
	minProps1 = "should have at least 1 properties"
	patternRe = "should match"
	tooLong   = "Too long"
	tooMany   = "Too many"
	duplicate = "Duplicate value"
)

func gte(n int) string { return fmt.Sprintf("should be greater than or equal to %d", n) }
func lte(n int) string { return fmt.Sprintf("should be less than or equal to %d", n) }

// nonEmpty is the message of the "non-empty if present" CEL family
// (docs/admission.md, Schema rules).
func nonEmpty(f string) string { return f + " must not be empty if specified" }

const customPrefixMsg = "type must have a 'remote::' or 'inline::' prefix (e.g., 'remote::llama-guard', 'inline::my-provider')"

// invalidCase is an OGXServer that breaks exactly one schema, CEL or validator
// rule (docs/admission.md). patch is merged (RFC 7386) into the base spec
// {distribution: {name: starter}}; want lists every error the apiserver must
// report, and nothing else may be reported (apart from notCheckedNote). A rule
// that cannot be broken alone (an empty doclingServe.baseUrl fails both
// minLength and its CEL rule) lists both.
type invalidCase struct {
	name  string
	patch string
	want  []want
}

const baseSpec = `distribution: {name: starter}`

// handWrittenInvalidCases cover the schema and CEL rules one at a time,
// grouped by the part of the spec they check.
var handWrittenInvalidCases = []invalidCase{
	// Top level and spec.distribution.
	{"distribution-missing", `distribution: null`, []want{schemaErr("spec.distribution", required)}},
	{"distribution-name-and-image", `distribution: {image: "quay.io/ogx/distribution:1.0"}`,
		[]want{celErr("spec.distribution", "only one of name or image can be specified")}},
	{"distribution-empty-name-and-image-counts-as-both", `distribution: {name: "", image: "quay.io/ogx/distribution:1.0"}`,
		[]want{celErr("spec.distribution", "only one of name or image can be specified")}},
	{"distribution-neither", `distribution: {name: null}`,
		[]want{celErr("spec.distribution", "one of name or image must be specified")}},

	// overrideConfig exclusions.
	{"overrideConfig-with-providers", `{overrideConfig: {name: cfg, key: config.yaml}, providers: {}}`,
		[]want{celErr("spec", "overrideConfig and providers are mutually exclusive")}},
	{"overrideConfig-with-resources", `{overrideConfig: {name: cfg, key: config.yaml}, resources: {}}`,
		[]want{celErr("spec", "overrideConfig and resources are mutually exclusive")}},
	{"overrideConfig-with-storage", `{overrideConfig: {name: cfg, key: config.yaml}, storage: {}}`,
		[]want{celErr("spec", "overrideConfig and storage are mutually exclusive")}},
	{"overrideConfig-with-disabledAPIs", `{overrideConfig: {name: cfg, key: config.yaml}, disabledAPIs: [files]}`,
		[]want{celErr("spec", "overrideConfig and disabledAPIs are mutually exclusive")}},
	{"overrideConfig-with-baseConfig", `{overrideConfig: {name: cfg, key: config.yaml}, baseConfig: {name: base, key: config.yaml}}`,
		[]want{celErr("spec", "overrideConfig and baseConfig are mutually exclusive")}},

	// disabledAPIs and registryRefreshIntervalSeconds.
	{"disabledAPIs-unknown-api", `disabledAPIs: [safety]`, []want{schemaErr("spec.disabledAPIs[0]", enum)}},
	{"disabledAPIs-camelCase-spelling", `disabledAPIs: [vectorIo]`, []want{schemaErr("spec.disabledAPIs[0]", enum)}},
	{"disabledAPIs-more-than-7", `disabledAPIs: [files, files, files, files, files, files, files, files]`,
		[]want{schemaErr("spec.disabledAPIs", tooMany)}},
	{"disabledAPIs-empty-list", `disabledAPIs: []`, []want{schemaErr("spec.disabledAPIs", minItems1)}},
	{"registryRefreshIntervalSeconds-zero", `registryRefreshIntervalSeconds: 0`,
		[]want{schemaErr("spec.registryRefreshIntervalSeconds", gte(1))}},

	// Reference types (SecretKeyRef, ConfigMapKeyRef).
	{"baseConfig-key-missing", `baseConfig: {name: base}`, []want{schemaErr("spec.baseConfig.key", required)}},
	{"baseConfig-name-missing", `baseConfig: {key: config.yaml}`, []want{schemaErr("spec.baseConfig.name", required)}},
	{"baseConfig-name-empty", `baseConfig: {name: "", key: config.yaml}`, []want{schemaErr("spec.baseConfig.name", minLen1)}},
	{"overrideConfig-key-leading-dash", `overrideConfig: {name: cfg, key: "-config.yaml"}`,
		[]want{schemaErr("spec.overrideConfig.key", patternRe)}},
	{"overrideConfig-key-trailing-dot", `overrideConfig: {name: cfg, key: "config."}`,
		[]want{schemaErr("spec.overrideConfig.key", patternRe)}},
	{"secretKeyRef-key-with-slash", listPatch("providers.inference.remote.vllm", typedListKinds[0].item, `{apiToken: {name: vllm, key: "a/b"}}`),
		[]want{schemaErr("spec.providers.inference.remote.vllm[0].apiToken.key", patternRe)}},
	{"secretKeyRef-key-254-chars", listPatch("providers.inference.remote.vllm", typedListKinds[0].item,
		fmt.Sprintf(`{apiToken: {name: vllm, key: %s}}`, strings.Repeat("k", 254))),
		[]want{schemaErr("spec.providers.inference.remote.vllm[0].apiToken.key", tooLong)}},
	{"secretKeyRef-name-empty", `{storage: {kv: {type: redis, endpoint: "redis://redis:6379", password: {name: "", key: password}}}}`,
		[]want{schemaErr("spec.storage.kv.password.name", minLen1)}},
	{"secretKeyRef-key-missing", listPatch("providers.vectorIo.remote.pgvector", `{password: {name: pgvector}}`),
		[]want{schemaErr("spec.providers.vectorIo.remote.pgvector[0].password.key", required)}},

	// spec.resources.
	{"models-empty-list", `resources: {models: []}`, []want{schemaErr("spec.resources.models", minItems1)}},
	{"model-name-missing", `resources: {models: [{provider: vllm}]}`, []want{schemaErr("spec.resources.models[0].name", required)}},
	{"model-name-empty", `resources: {models: [{name: ""}]}`, []want{schemaErr("spec.resources.models[0].name", minLen1)}},
	{"model-provider-empty", `resources: {models: [{name: m, provider: ""}]}`,
		[]want{celErr("spec.resources.models[0]", nonEmpty("provider"))}},
	{"model-modelType-empty", `resources: {models: [{name: m, modelType: ""}]}`,
		[]want{celErr("spec.resources.models[0]", nonEmpty("modelType"))}},
	{"model-quantization-empty", `resources: {models: [{name: m, quantization: ""}]}`,
		[]want{celErr("spec.resources.models[0]", nonEmpty("quantization"))}},
	{"model-second-item-provider-empty", `resources: {models: [{name: a}, {name: b, provider: ""}]}`,
		[]want{celErr("spec.resources.models[1]", nonEmpty("provider"))}},

	// spec.storage.
	{"kv-type-unknown", `storage: {kv: {type: memcached}}`, []want{schemaErr("spec.storage.kv.type", enum)}},
	{"kv-redis-without-endpoint", `storage: {kv: {type: redis}}`,
		[]want{celErr("spec.storage.kv", "endpoint is required when type is redis")}},
	{"kv-sqlite-with-endpoint", `storage: {kv: {type: sqlite, endpoint: "redis://redis:6379"}}`,
		[]want{celErr("spec.storage.kv", "endpoint is only valid when type is redis")}},
	{"kv-defaulted-sqlite-with-endpoint", `storage: {kv: {endpoint: "redis://redis:6379"}}`,
		[]want{celErr("spec.storage.kv", "endpoint is only valid when type is redis")}},
	{"kv-defaulted-sqlite-with-password", `storage: {kv: {password: {name: redis, key: password}}}`,
		[]want{celErr("spec.storage.kv", "password is only valid when type is redis")}},
	{"sql-type-unknown", `storage: {sql: {type: mysql}}`, []want{schemaErr("spec.storage.sql.type", enum)}},
	{"sql-postgres-without-connectionString", `storage: {sql: {type: postgres}}`,
		[]want{celErr("spec.storage.sql", "connectionString is required when type is postgres")}},
	{"sql-sqlite-with-connectionString", `storage: {sql: {connectionString: {name: pg, key: dsn}}}`,
		[]want{celErr("spec.storage.sql", "connectionString is only valid when type is postgres")}},

	// spec.network.
	{"network-port-zero", `network: {port: 0}`, []want{schemaErr("spec.network.port", gte(1))}},
	{"network-port-65536", `network: {port: 65536}`, []want{schemaErr("spec.network.port", lte(65535))}},
	{"network-tls-secretName-missing", `network: {tls: {}}`, []want{schemaErr("spec.network.tls.secretName", required)}},
	{"network-tls-secretName-empty", `network: {tls: {secretName: ""}}`, []want{schemaErr("spec.network.tls.secretName", minLen1)}},
	{"externalAccess-hostname-empty", `network: {externalAccess: {enabled: true, hostname: ""}}`,
		[]want{celErr("spec.network.externalAccess", nonEmpty("hostname"))}},
	{"policyTypes-unknown", `network: {policy: {policyTypes: [Ingress, Both]}}`,
		[]want{schemaErr("spec.network.policy.policyTypes[1]", enum)}},
	{"policy-ingress-protocol-wrong-type", `network: {policy: {ingress: [{ports: [{protocol: 6, port: 8321}]}]}}`,
		[]want{schemaErr("spec.network.policy.ingress[0].ports[0].protocol", "must be of type string")}},
	{"policy-egress-peer-wrong-type", `network: {policy: {egress: [{to: [{ipBlock: {cidr: 10}}]}]}}`,
		[]want{schemaErr("spec.network.policy.egress[0].to[0].ipBlock.cidr", "must be of type string")}},

	// spec.tls (outbound TLS).
	{"trust-caCertificates-empty-list", `tls: {trust: {caCertificates: []}}`,
		[]want{schemaErr("spec.tls.trust.caCertificates", minItems1)}},
	{"trust-caCertificate-key-bad", `tls: {trust: {caCertificates: [{name: ca, key: "ca bundle.crt"}]}}`,
		[]want{schemaErr("spec.tls.trust.caCertificates[0].key", patternRe)}},
	{"identity-key-missing", `tls: {identity: {cert: {name: client, key: tls.crt}}}`,
		[]want{schemaErr("spec.tls.identity.key", required)}},
	{"identity-cert-missing", `tls: {identity: {key: {name: client, key: tls.key}}}`,
		[]want{schemaErr("spec.tls.identity.cert", required)}},

	// spec.workload.
	// The scale subresource's own check names the field by its CRD path,
	// leading dot included (pkg/crdvalidate, scale.go).
	{"replicas-negative", `workload: {replicas: -1}`, []want{schemaErr("spec.workload.replicas", gte(0)),
		schemaErr(".spec.workload.replicas", "should be a non-negative integer")}},
	{"workers-zero", `workload: {workers: 0}`, []want{schemaErr("spec.workload.workers", gte(1))}},
	{"resourceClaims-empty-list", `workload: {resourceClaims: []}`, []want{schemaErr("spec.workload.resourceClaims", minItems1)}},
	{"resourceClaims-duplicate-name", `workload: {resourceClaims: [{name: gpu, resourceClaimName: a}, {name: gpu, resourceClaimName: b}]}`,
		[]want{schemaErr("spec.workload.resourceClaims[1]", duplicate)}},
	{"autoscaling-maxReplicas-missing", `workload: {autoscaling: {minReplicas: 1}}`,
		[]want{schemaErr("spec.workload.autoscaling.maxReplicas", required)}},
	{"autoscaling-max-below-min", `workload: {autoscaling: {minReplicas: 3, maxReplicas: 2}}`,
		[]want{celErr("spec.workload.autoscaling", "maxReplicas must be greater than or equal to minReplicas")}},
	{"autoscaling-minReplicas-zero", `workload: {autoscaling: {minReplicas: 0, maxReplicas: 2}}`,
		[]want{schemaErr("spec.workload.autoscaling.minReplicas", gte(1))}},
	{"autoscaling-maxReplicas-zero", `workload: {autoscaling: {maxReplicas: 0}}`,
		[]want{schemaErr("spec.workload.autoscaling.maxReplicas", gte(1))}},
	{"autoscaling-cpu-target-101", `workload: {autoscaling: {maxReplicas: 3, targetCPUUtilizationPercentage: 101}}`,
		[]want{schemaErr("spec.workload.autoscaling.targetCPUUtilizationPercentage", lte(100))}},
	{"autoscaling-memory-target-zero", `workload: {autoscaling: {maxReplicas: 3, targetMemoryUtilizationPercentage: 0}}`,
		[]want{schemaErr("spec.workload.autoscaling.targetMemoryUtilizationPercentage", gte(1))}},
	{"storage-size-zero", `workload: {storage: {size: "0"}}`,
		[]want{celErr("spec.workload.storage", "size must be a positive quantity")}},
	{"storage-size-negative", `workload: {storage: {size: "-1Gi"}}`,
		[]want{celErr("spec.workload.storage", "size must be a positive quantity")}},
	// A pattern violation does not stop CEL, so quantity() fails on the
	// same value and the rule reports the parse error.
	{"storage-size-not-a-quantity", `workload: {storage: {size: "ten-gigs"}}`,
		[]want{
			schemaErr("spec.workload.storage.size", patternRe),
			schemaErr("spec.workload.storage", "evaluating rule: size must be a positive quantity"),
		}},
	{"storage-size-bare-integer", `workload: {storage: {size: 20}}`,
		[]want{schemaErr("spec.workload.storage", "no such overload")}},
	{"storage-mountPath-empty", `workload: {storage: {mountPath: ""}}`,
		[]want{celErr("spec.workload.storage", nonEmpty("mountPath"))}},
	{"pdb-both", `workload: {podDisruptionBudget: {minAvailable: 1, maxUnavailable: 1}}`,
		[]want{celErr("spec.workload.podDisruptionBudget", "minAvailable and maxUnavailable are mutually exclusive")}},
	{"pdb-both-zero-counts-as-set", `workload: {podDisruptionBudget: {minAvailable: 0, maxUnavailable: "0%"}}`,
		[]want{celErr("spec.workload.podDisruptionBudget", "minAvailable and maxUnavailable are mutually exclusive")}},
	{"pdb-neither", `workload: {podDisruptionBudget: {}}`,
		[]want{celErr("spec.workload.podDisruptionBudget", "at least one of minAvailable or maxUnavailable must be specified")}},
	{"topologySpreadConstraints-empty-list", `workload: {topologySpreadConstraints: []}`,
		[]want{schemaErr("spec.workload.topologySpreadConstraints", minItems1)}},
	{"topologySpreadConstraint-topologyKey-missing", `workload: {topologySpreadConstraints: [{maxSkew: 1, whenUnsatisfiable: DoNotSchedule}]}`,
		[]want{schemaErr("spec.workload.topologySpreadConstraints[0].topologyKey", required)}},
	{"overrides-serviceAccountName-empty", `workload: {overrides: {serviceAccountName: ""}}`,
		[]want{celErr("spec.workload.overrides", nonEmpty("serviceAccountName"))}},
	{"overrides-env-empty-list", `workload: {overrides: {env: []}}`, []want{schemaErr("spec.workload.overrides.env", minItems1)}},
	{"overrides-env-name-missing", `workload: {overrides: {env: [{value: x}]}}`,
		[]want{schemaErr("spec.workload.overrides.env[0].name", required)}},
	{"overrides-command-empty-list", `workload: {overrides: {command: []}}`,
		[]want{schemaErr("spec.workload.overrides.command", minItems1)}},
	{"overrides-command-empty-item", `workload: {overrides: {command: [ogx, ""]}}`,
		[]want{schemaErr("spec.workload.overrides.command[1]", minLen1)}},
	{"overrides-args-empty-list", `workload: {overrides: {args: []}}`, []want{schemaErr("spec.workload.overrides.args", minItems1)}},
	{"overrides-args-empty-item", `workload: {overrides: {args: [""]}}`,
		[]want{schemaErr("spec.workload.overrides.args[0]", minLen1)}},
	{"overrides-volumes-empty-list", `workload: {overrides: {volumes: []}}`,
		[]want{schemaErr("spec.workload.overrides.volumes", minItems1)}},
	{"overrides-volume-name-missing", `workload: {overrides: {volumes: [{emptyDir: {}}]}}`,
		[]want{schemaErr("spec.workload.overrides.volumes[0].name", required)}},
	{"overrides-volumeMounts-empty-list", `workload: {overrides: {volumeMounts: []}}`,
		[]want{schemaErr("spec.workload.overrides.volumeMounts", minItems1)}},
	{"overrides-volumeMount-mountPath-missing", `workload: {overrides: {volumeMounts: [{name: data}]}}`,
		[]want{schemaErr("spec.workload.overrides.volumeMounts[0].mountPath", required)}},

	// spec.monitoring.
	{"metricsPort-zero", `monitoring: {metricsPort: 0}`, []want{schemaErr("spec.monitoring.metricsPort", gte(1))}},
	{"metricsPort-70000", `monitoring: {metricsPort: 70000}`, []want{schemaErr("spec.monitoring.metricsPort", lte(65535))}},

	// Inference providers.
	{"vllm-endpoint-missing", listPatch("providers.inference.remote.vllm", `{maxTokens: 10}`),
		[]want{schemaErr("spec.providers.inference.remote.vllm[0].endpoint", required)}},
	{"vllm-endpoint-empty", listPatch("providers.inference.remote.vllm", `{endpoint: ""}`),
		[]want{schemaErr("spec.providers.inference.remote.vllm[0].endpoint", minLen1)}},
	{"vllm-maxTokens-zero", listPatch("providers.inference.remote.vllm", typedListKinds[0].item, `{maxTokens: 0}`),
		[]want{schemaErr("spec.providers.inference.remote.vllm[0].maxTokens", gte(1))}},
	{"vllm-empty-list", `providers: {inference: {remote: {vllm: []}}}`,
		[]want{schemaErr("spec.providers.inference.remote.vllm", minItems1)}},
	{"vllm-101-items", nItems("providers.inference.remote.vllm", typedListKinds[0].item, 101),
		[]want{schemaErr("spec.providers.inference.remote.vllm", tooMany)}},
	{"vllm-allowedModels-empty-list", listPatch("providers.inference.remote.vllm", typedListKinds[0].item, `{allowedModels: []}`),
		[]want{schemaErr("spec.providers.inference.remote.vllm[0].allowedModels", minItems1)}},
	{"vllm-allowedModels-empty-item", listPatch("providers.inference.remote.vllm", typedListKinds[0].item, `{allowedModels: [a, ""]}`),
		[]want{schemaErr("spec.providers.inference.remote.vllm[0].allowedModels[1]", minLen1)}},
	{"vllm-tls-minVersion-1.1", listPatch("providers.inference.remote.vllm", typedListKinds[0].item, `{network: {tls: {minVersion: TLSv1.1}}}`),
		[]want{schemaErr("spec.providers.inference.remote.vllm[0].network.tls.minVersion", enum)}},
	{"vllm-tls-ciphers-empty-list", listPatch("providers.inference.remote.vllm", typedListKinds[0].item, `{network: {tls: {ciphers: []}}}`),
		[]want{schemaErr("spec.providers.inference.remote.vllm[0].network.tls.ciphers", minItems1)}},
	{"openai-headers-empty-map", listPatch("providers.inference.remote.openai", typedListKinds[1].item, `{network: {headers: {}}}`),
		[]want{schemaErr("spec.providers.inference.remote.openai[0].network.headers", minProps1)}},
	{"vertexai-noProxy-empty-item", listPatch("providers.inference.remote.vertexai", typedListKinds[4].item, `{network: {proxy: {noProxy: [""]}}}`),
		[]want{schemaErr("spec.providers.inference.remote.vertexai[0].network.proxy.noProxy[0]", minLen1)}},
	{"watsonx-timeout-connect-zero", listPatch("providers.inference.remote.watsonx", typedListKinds[5].item, `{network: {timeout: {connect: 0}}}`),
		[]want{schemaErr("spec.providers.inference.remote.watsonx[0].network.timeout.connect", gte(1))}},
	{"openai-apiKey-missing", listPatch("providers.inference.remote.openai", `{endpoint: "https://api.openai.com/v1"}`),
		[]want{schemaErr("spec.providers.inference.remote.openai[0].apiKey", required)}},
	{"openai-endpoint-empty", listPatch("providers.inference.remote.openai", typedListKinds[1].item, `{endpoint: ""}`),
		[]want{celErr("spec.providers.inference.remote.openai[0]", nonEmpty("endpoint"))}},
	{"azure-endpoint-missing", listPatch("providers.inference.remote.azure", `{apiKey: {name: azure, key: api-key}}`),
		[]want{schemaErr("spec.providers.inference.remote.azure[0].endpoint", required)}},
	{"azure-apiVersion-empty", listPatch("providers.inference.remote.azure", typedListKinds[2].item, `{apiVersion: ""}`),
		[]want{celErr("spec.providers.inference.remote.azure[0]", nonEmpty("apiVersion"))}},
	{"azure-apiType-empty", listPatch("providers.inference.remote.azure", typedListKinds[2].item, `{apiType: ""}`),
		[]want{celErr("spec.providers.inference.remote.azure[0]", nonEmpty("apiType"))}},
	{"bedrock-region-missing", listPatch("providers.inference.remote.bedrock", `{profileName: default}`),
		[]want{schemaErr("spec.providers.inference.remote.bedrock[0].region", required)}},
	{"bedrock-totalMaxAttempts-zero", listPatch("providers.inference.remote.bedrock", typedListKinds[3].item, `{totalMaxAttempts: 0}`),
		[]want{schemaErr("spec.providers.inference.remote.bedrock[0].totalMaxAttempts", gte(1))}},
	{"bedrock-sessionTTL-zero", listPatch("providers.inference.remote.bedrock", typedListKinds[3].item, `{sessionTTL: 0}`),
		[]want{schemaErr("spec.providers.inference.remote.bedrock[0].sessionTTL", gte(1))}},
	{"vertexai-project-missing", listPatch("providers.inference.remote.vertexai", `{location: us-central1}`),
		[]want{schemaErr("spec.providers.inference.remote.vertexai[0].project", required)}},
	{"vertexai-location-empty", listPatch("providers.inference.remote.vertexai", typedListKinds[4].item, `{location: ""}`),
		[]want{celErr("spec.providers.inference.remote.vertexai[0]", nonEmpty("location"))}},
	{"watsonx-apiKey-missing", listPatch("providers.inference.remote.watsonx", `{projectId: p}`),
		[]want{schemaErr("spec.providers.inference.remote.watsonx[0].apiKey", required)}},
	{"watsonx-endpoint-empty", listPatch("providers.inference.remote.watsonx", typedListKinds[5].item, `{endpoint: ""}`),
		[]want{celErr("spec.providers.inference.remote.watsonx[0]", nonEmpty("endpoint"))}},
	{"watsonx-projectId-empty", listPatch("providers.inference.remote.watsonx", typedListKinds[5].item, `{projectId: ""}`),
		[]want{celErr("spec.providers.inference.remote.watsonx[0]", nonEmpty("projectId"))}},
	{"watsonx-timeout-zero", listPatch("providers.inference.remote.watsonx", typedListKinds[5].item, `{timeout: 0}`),
		[]want{schemaErr("spec.providers.inference.remote.watsonx[0].timeout", gte(1))}},

	// vectorIo providers.
	{"pgvector-password-missing", listPatch("providers.vectorIo.remote.pgvector", `{host: pg}`),
		[]want{schemaErr("spec.providers.vectorIo.remote.pgvector[0].password", required)}},
	{"pgvector-host-empty", listPatch("providers.vectorIo.remote.pgvector", typedListKinds[6].item, `{host: ""}`),
		[]want{celErr("spec.providers.vectorIo.remote.pgvector[0]", nonEmpty("host"))}},
	{"pgvector-db-empty", listPatch("providers.vectorIo.remote.pgvector", typedListKinds[6].item, `{db: ""}`),
		[]want{celErr("spec.providers.vectorIo.remote.pgvector[0]", nonEmpty("db"))}},
	{"pgvector-user-empty", listPatch("providers.vectorIo.remote.pgvector", typedListKinds[6].item, `{user: ""}`),
		[]want{celErr("spec.providers.vectorIo.remote.pgvector[0]", nonEmpty("user"))}},
	{"pgvector-port-zero", listPatch("providers.vectorIo.remote.pgvector", typedListKinds[6].item, `{port: 0}`),
		[]want{schemaErr("spec.providers.vectorIo.remote.pgvector[0].port", gte(1))}},
	{"pgvector-port-65536", listPatch("providers.vectorIo.remote.pgvector", typedListKinds[6].item, `{port: 65536}`),
		[]want{schemaErr("spec.providers.vectorIo.remote.pgvector[0].port", lte(65535))}},
	{"pgvector-distanceMetric-unknown", listPatch("providers.vectorIo.remote.pgvector", typedListKinds[6].item, `{distanceMetric: cosine}`),
		[]want{schemaErr("spec.providers.vectorIo.remote.pgvector[0].distanceMetric", enum)}},
	{"pgvector-vectorIndex-neither", listPatch("providers.vectorIo.remote.pgvector", typedListKinds[6].item, `{vectorIndex: {}}`),
		[]want{celErr("spec.providers.vectorIo.remote.pgvector[0].vectorIndex", "one of hnsw or ivfFlat must be specified")}},
	{"pgvector-vectorIndex-both", listPatch("providers.vectorIo.remote.pgvector", typedListKinds[6].item, `{vectorIndex: {hnsw: {}, ivfFlat: {}}}`),
		[]want{celErr("spec.providers.vectorIo.remote.pgvector[0].vectorIndex", "only one of hnsw or ivfFlat can be specified")}},
	{"pgvector-hnsw-m-zero", listPatch("providers.vectorIo.remote.pgvector", typedListKinds[6].item, `{vectorIndex: {hnsw: {m: 0}}}`),
		[]want{schemaErr("spec.providers.vectorIo.remote.pgvector[0].vectorIndex.hnsw.m", gte(1))}},
	{"pgvector-ivfFlat-nprobe-zero", listPatch("providers.vectorIo.remote.pgvector", typedListKinds[6].item, `{vectorIndex: {ivfFlat: {nprobe: 0}}}`),
		[]want{schemaErr("spec.providers.vectorIo.remote.pgvector[0].vectorIndex.ivfFlat.nprobe", gte(1))}},
	{"milvus-uri-missing", listPatch("providers.vectorIo.remote.milvus", `{consistencyLevel: Strong}`),
		[]want{schemaErr("spec.providers.vectorIo.remote.milvus[0].uri", required)}},
	{"milvus-consistencyLevel-empty", listPatch("providers.vectorIo.remote.milvus", typedListKinds[7].item, `{consistencyLevel: ""}`),
		[]want{celErr("spec.providers.vectorIo.remote.milvus[0]", nonEmpty("consistencyLevel"))}},
	{"qdrant-neither-url-nor-host", listPatch("providers.vectorIo.remote.qdrant", `{port: 6333}`),
		[]want{celErr("spec.providers.vectorIo.remote.qdrant[0]", "at least one of url or host must be specified")}},
	{"qdrant-url-empty", listPatch("providers.vectorIo.remote.qdrant", `{url: ""}`),
		[]want{celErr("spec.providers.vectorIo.remote.qdrant[0]", nonEmpty("url"))}},
	{"qdrant-host-empty", listPatch("providers.vectorIo.remote.qdrant", typedListKinds[8].item, `{host: ""}`),
		[]want{celErr("spec.providers.vectorIo.remote.qdrant[0]", nonEmpty("host"))}},
	{"qdrant-location-empty", listPatch("providers.vectorIo.remote.qdrant", typedListKinds[8].item, `{location: ""}`),
		[]want{celErr("spec.providers.vectorIo.remote.qdrant[0]", nonEmpty("location"))}},
	{"qdrant-prefix-empty", listPatch("providers.vectorIo.remote.qdrant", typedListKinds[8].item, `{prefix: ""}`),
		[]want{celErr("spec.providers.vectorIo.remote.qdrant[0]", nonEmpty("prefix"))}},
	{"qdrant-grpcPort-70000", listPatch("providers.vectorIo.remote.qdrant", typedListKinds[8].item, `{grpcPort: 70000}`),
		[]want{schemaErr("spec.providers.vectorIo.remote.qdrant[0].grpcPort", lte(65535))}},
	{"qdrant-timeout-zero", listPatch("providers.vectorIo.remote.qdrant", typedListKinds[8].item, `{timeout: 0}`),
		[]want{schemaErr("spec.providers.vectorIo.remote.qdrant[0].timeout", gte(1))}},

	// toolRuntime providers and VectorStoresConfig.
	{"braveSearch-apiKey-missing", listPatch("providers.toolRuntime.remote.braveSearch", `{maxResults: 3}`),
		[]want{schemaErr("spec.providers.toolRuntime.remote.braveSearch[0].apiKey", required)}},
	{"tavilySearch-maxResults-zero", listPatch("providers.toolRuntime.remote.tavilySearch", typedListKinds[10].item, `{maxResults: 0}`),
		[]want{schemaErr("spec.providers.toolRuntime.remote.tavilySearch[0].maxResults", gte(1))}},
	{"fileSearch-defaultProviderId-empty", listPatch("providers.toolRuntime.inline.fileSearch", `{vectorStoresConfig: {defaultProviderId: ""}}`),
		[]want{celErr("spec.providers.toolRuntime.inline.fileSearch[0].vectorStoresConfig", nonEmpty("defaultProviderId"))}},
	{"fileSearch-defaultRerankerStrategy-unknown", listPatch("providers.toolRuntime.inline.fileSearch", `{vectorStoresConfig: {chunkRetrievalParams: {defaultRerankerStrategy: max}}}`),
		[]want{schemaErr("spec.providers.toolRuntime.inline.fileSearch[0].vectorStoresConfig.chunkRetrievalParams.defaultRerankerStrategy", enum)}},
	{"fileSearch-defaultSearchMode-unknown", listPatch("providers.toolRuntime.inline.fileSearch", `{vectorStoresConfig: {chunkRetrievalParams: {defaultSearchMode: semantic}}}`),
		[]want{schemaErr("spec.providers.toolRuntime.inline.fileSearch[0].vectorStoresConfig.chunkRetrievalParams.defaultSearchMode", enum)}},
	{"fileSearch-embeddingModel-modelId-missing", listPatch("providers.toolRuntime.inline.fileSearch", `{vectorStoresConfig: {defaultEmbeddingModel: {providerId: p}}}`),
		[]want{schemaErr("spec.providers.toolRuntime.inline.fileSearch[0].vectorStoresConfig.defaultEmbeddingModel.modelId", required)}},
	{"fileSearch-rerankerModel-providerId-empty", listPatch("providers.toolRuntime.inline.fileSearch", `{vectorStoresConfig: {defaultRerankerModel: {providerId: "", modelId: m}}}`),
		[]want{schemaErr("spec.providers.toolRuntime.inline.fileSearch[0].vectorStoresConfig.defaultRerankerModel.providerId", minLen1)}},
	{"fileSearch-chunkOverlap-negative", listPatch("providers.toolRuntime.inline.fileSearch", `{vectorStoresConfig: {fileIngestionParams: {defaultChunkOverlapTokens: -1}}}`),
		[]want{schemaErr("spec.providers.toolRuntime.inline.fileSearch[0].vectorStoresConfig.fileIngestionParams.defaultChunkOverlapTokens", gte(0))}},
	{"builtin-defaultSearchMode-unknown", `providers: {responses: {inline: {builtin: {vectorStoresConfig: {chunkRetrievalParams: {defaultSearchMode: fuzzy}}}}}}`,
		[]want{schemaErr("spec.providers.responses.inline.builtin.vectorStoresConfig.chunkRetrievalParams.defaultSearchMode", enum)}},
	{"builtin-defaultProviderId-empty", `providers: {responses: {inline: {builtin: {vectorStoresConfig: {defaultProviderId: ""}}}}}`,
		[]want{celErr("spec.providers.responses.inline.builtin.vectorStoresConfig", nonEmpty("defaultProviderId"))}},
	{"builtin-summarizationPrompt-empty", `providers: {responses: {inline: {builtin: {compactionConfig: {summarizationPrompt: ""}}}}}`,
		[]want{celErr("spec.providers.responses.inline.builtin.compactionConfig", nonEmpty("summarizationPrompt"))}},
	{"builtin-summaryPrefix-empty", `providers: {responses: {inline: {builtin: {compactionConfig: {summaryPrefix: ""}}}}}`,
		[]want{celErr("spec.providers.responses.inline.builtin.compactionConfig", nonEmpty("summaryPrefix"))}},
	{"builtin-summarizationModel-empty", `providers: {responses: {inline: {builtin: {compactionConfig: {summarizationModel: ""}}}}}`,
		[]want{celErr("spec.providers.responses.inline.builtin.compactionConfig", nonEmpty("summarizationModel"))}},
	{"builtin-tokenizerEncoding-empty", `providers: {responses: {inline: {builtin: {compactionConfig: {tokenizerEncoding: ""}}}}}`,
		[]want{celErr("spec.providers.responses.inline.builtin.compactionConfig", nonEmpty("tokenizerEncoding"))}},
	{"builtin-defaultCompactThreshold-zero", `providers: {responses: {inline: {builtin: {compactionConfig: {defaultCompactThreshold: 0}}}}}`,
		[]want{schemaErr("spec.providers.responses.inline.builtin.compactionConfig.defaultCompactThreshold", gte(1))}},

	// files and batches providers.
	{"s3-bucketName-missing", `providers: {files: {remote: {s3: {region: us-east-1}}}}`,
		[]want{schemaErr("spec.providers.files.remote.s3.bucketName", required)}},
	{"s3-region-empty", `providers: {files: {remote: {s3: {bucketName: b, region: ""}}}}`,
		[]want{celErr("spec.providers.files.remote.s3", nonEmpty("region"))}},
	{"s3-endpointUrl-empty", `providers: {files: {remote: {s3: {bucketName: b, endpointUrl: ""}}}}`,
		[]want{celErr("spec.providers.files.remote.s3", nonEmpty("endpointUrl"))}},
	{"localfs-ttlSecs-zero", `providers: {files: {inline: {localfs: {ttlSecs: 0}}}}`,
		[]want{schemaErr("spec.providers.files.inline.localfs.ttlSecs", gte(1))}},
	{"reference-maxConcurrentBatches-zero", `providers: {batches: {inline: {reference: {maxConcurrentBatches: 0}}}}`,
		[]want{schemaErr("spec.providers.batches.inline.reference.maxConcurrentBatches", gte(1))}},

	// fileProcessors providers.
	{"doclingServe-baseUrl-missing", `providers: {fileProcessors: {remote: {doclingServe: {defaultChunkSizeTokens: 512}}}}`,
		[]want{schemaErr("spec.providers.fileProcessors.remote.doclingServe.baseUrl", required)}},
	{"doclingServe-baseUrl-empty", `providers: {fileProcessors: {remote: {doclingServe: {baseUrl: ""}}}}`,
		[]want{
			schemaErr("spec.providers.fileProcessors.remote.doclingServe.baseUrl", minLen1),
			celErr("spec.providers.fileProcessors.remote.doclingServe", nonEmpty("baseUrl")),
		}},
	{"doclingServe-chunkSize-4097", `providers: {fileProcessors: {remote: {doclingServe: {baseUrl: "http://docling:5001", defaultChunkSizeTokens: 4097}}}}`,
		[]want{schemaErr("spec.providers.fileProcessors.remote.doclingServe.defaultChunkSizeTokens", lte(4096))}},
	{"auto-chunkSize-99", `providers: {fileProcessors: {inline: {auto: {defaultChunkSizeTokens: 99}}}}`,
		[]want{schemaErr("spec.providers.fileProcessors.inline.auto.defaultChunkSizeTokens", gte(100))}},
	{"pypdf-chunkOverlap-2049", `providers: {fileProcessors: {inline: {pypdf: {defaultChunkOverlapTokens: 2049}}}}`,
		[]want{schemaErr("spec.providers.fileProcessors.inline.pypdf.defaultChunkOverlapTokens", lte(2048))}},
	{"markitdown-chunkOverlap-negative", `providers: {fileProcessors: {inline: {markitdown: {defaultChunkOverlapTokens: -1}}}}`,
		[]want{schemaErr("spec.providers.fileProcessors.inline.markitdown.defaultChunkOverlapTokens", gte(0))}},
	{"docling-chunkSize-4097", `providers: {fileProcessors: {inline: {docling: {defaultChunkSizeTokens: 4097}}}}`,
		[]want{schemaErr("spec.providers.fileProcessors.inline.docling.defaultChunkSizeTokens", lte(4096))}},

	// Custom providers (the CEL rules of every location are generated below).
	{"custom-type-missing", listPatch("providers.inference.remote.custom", `{id: guard}`),
		[]want{schemaErr("spec.providers.inference.remote.custom[0].type", required)}},
	{"custom-type-empty", listPatch("providers.inference.remote.custom", `{type: ""}`),
		[]want{
			schemaErr("spec.providers.inference.remote.custom[0].type", minLen1),
			celErr("spec.providers.inference.remote.custom[0]", customPrefixMsg),
		}},
	{"custom-type-prefix-wrong-case", listPatch("providers.inference.remote.custom", `{type: "Remote::guard"}`),
		[]want{celErr("spec.providers.inference.remote.custom[0]", customPrefixMsg)}},
	{"custom-secretRefs-empty-map", listPatch("providers.files.inline.custom", customItem, `{secretRefs: {}}`),
		[]want{schemaErr("spec.providers.files.inline.custom[0].secretRefs", minProps1)}},
	{"custom-101-items", nItems("providers.batches.remote.custom", customItem, 101),
		[]want{schemaErr("spec.providers.batches.remote.custom", tooMany)}},
}

// generatedInvalidCases cover the CEL entries repeated on many nodes, so every
// one of the 125 CEL entries of the CRD is exercised: id on every list kind,
// the four proxy strings on every remote inference kind, the custom type
// prefix and id on all 14 custom locations, and the disabledAPIs/providers
// pairs.
func generatedInvalidCases() []invalidCase {
	var cases []invalidCase
	for _, api := range providerAPIs {
		cases = append(cases, invalidCase{
			name:  "disabled-and-configured-" + api.disabled,
			patch: mustJSON(map[string]any{"disabledAPIs": []any{api.disabled}, "providers": map[string]any{api.key: map[string]any{}}}),
			want:  []want{celErr("spec", api.disabled+" cannot be both in providers and disabledAPIs")},
		})
	}
	for _, k := range typedListKinds {
		cases = append(cases, invalidCase{
			name:  lastElem(k.path) + "-id-empty",
			patch: listPatch(k.path, k.item, `{id: ""}`),
			want:  []want{celErr(item0(k.path), nonEmpty("id"))},
		})
	}
	for _, k := range remoteInferenceKinds {
		for _, f := range []string{"url", "http", "https", "cacert"} {
			cases = append(cases, invalidCase{
				name:  fmt.Sprintf("%s-proxy-%s-empty", lastElem(k.path), f),
				patch: listPatch(k.path, k.item, mustJSON(nest("network.proxy."+f, ""))),
				want:  []want{celErr(item0(k.path)+".network.proxy", nonEmpty(f))},
			})
		}
	}
	for _, f := range []string{"awsRoleArn", "awsWebIdentityTokenFile", "awsRoleSessionName", "profileName", "retryMode"} {
		k := typedListKinds[3]
		cases = append(cases, invalidCase{
			name:  "bedrock-" + f + "-empty",
			patch: listPatch(k.path, k.item, mustJSON(map[string]any{f: ""})),
			want:  []want{celErr(item0(k.path), nonEmpty(f))},
		})
	}
	for _, loc := range customLocations() {
		short := strings.ReplaceAll(strings.TrimPrefix(loc, "providers."), ".", "-")
		cases = append(cases,
			invalidCase{
				name:  short + "-id-empty",
				patch: listPatch(loc, customItem, `{id: ""}`),
				want:  []want{celErr(item0(loc), nonEmpty("id"))},
			},
			invalidCase{
				name:  short + "-type-without-prefix",
				patch: listPatch(loc, `{type: "my-provider"}`),
				want:  []want{celErr(item0(loc), customPrefixMsg)},
			},
		)
	}
	return cases
}

func allInvalidCases() []invalidCase {
	return append(slices.Clone(handWrittenInvalidCases), generatedInvalidCases()...)
}

// TestOGXServerRejected sends every invalid manifest with a server-side
// dry-run create and checks that the apiserver answers 422 Invalid with
// exactly the expected causes.
func TestOGXServerRejected(t *testing.T) {
	ns := cp.CreateNamespace(t, "invalid")
	cases := allInvalidCases()
	seen := map[string]bool{}
	for _, tc := range cases {
		if seen[tc.name] {
			t.Fatalf("duplicate case name %q", tc.name)
		}
		seen[tc.name] = true
	}
	t.Logf("%d invalid OGXServer cases", len(cases))
	offline := newOfflineValidator(t)

	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			base, err := parseYAMLMap(baseSpec)
			if err != nil {
				t.Fatal(err)
			}
			patch, err := parseYAMLMap(tc.patch)
			if err != nil {
				t.Fatalf("case %s: bad patch: %v", tc.name, err)
			}
			spec := mergePatch(base, patch).(map[string]any)
			obj, err := newObject("ogx.io/v1beta1", "OGXServer", "invalid", spec)
			if err != nil {
				t.Fatal(err)
			}

			_, err = dyn.Resource(ogxServerGVR).Namespace(ns).Create(t.Context(), obj, dryRunCreate)
			manifest, _ := obj.MarshalJSON()
			if err == nil {
				t.Fatalf("case %s: the apiserver accepted the manifest, want 422 Invalid\n\tmanifest: %s", tc.name, manifest)
			}
			if !apierrors.IsInvalid(err) {
				t.Fatalf("case %s: want 422 Invalid, got: %s\n\tmanifest: %s", tc.name, describeAPIError(err), manifest)
			}
			causes, _ := apiCauses(err)
			if problems := matchCauses(tc.want, causes); len(problems) > 0 {
				t.Errorf("case %s: unexpected answer:\n\t%s\n\tfull API error: %s\n\tmanifest: %s",
					tc.name, strings.Join(problems, "\n\t"), describeAPIError(err), manifest)
			}
			// render --validate and migrate run the same checks offline
			// (pkg/crdvalidate): they must give the same answer.
			if diff := cmp.Diff(sortedCauses(causes), sortedCauses(offline.causes(t, obj.Object))); diff != "" {
				t.Errorf("case %s: offline validation differs from the API server (-api +offline):\n%s\n\tmanifest: %s", tc.name, diff, manifest)
			}
		})
	}
}

// matchCauses checks that every wanted error is among causes and that
// causes hold nothing else, and describes each mismatch.
func matchCauses(wants []want, causes []metav1.StatusCause) []string {
	var problems []string
	used := make([]bool, len(causes))
	for _, w := range wants {
		found := false
		for i, c := range causes {
			if c.Field == w.field && causeMatches(w, c.Message) {
				used[i] = true
				found = true
			}
		}
		if !found {
			kind := "schema error containing"
			if w.cel {
				kind = "CEL message"
			}
			problems = append(problems, fmt.Sprintf("missing cause: field %q with %s %q", w.field, kind, w.msg))
		}
	}
	for i, c := range causes {
		if !used[i] && !strings.Contains(c.Message, notCheckedNote) {
			problems = append(problems, fmt.Sprintf("extra cause: field %q message %q (the case must break only the rule under test)", c.Field, c.Message))
		}
	}
	return problems
}

func causeMatches(w want, message string) bool {
	if w.cel {
		// The apiserver reports `Invalid value: "object": <message>`.
		return message == w.msg || strings.HasSuffix(message, ": "+w.msg)
	}
	return strings.Contains(message, w.msg)
}
