package v1beta1

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNormEnvName(t *testing.T) {
	for in, want := range map[string]string{
		"remote-vllm":     "REMOTE_VLLM",
		"team.alpha__llm": "TEAM_ALPHA_LLM",
		"7b-serving":      "_7B_SERVING",
		"--":              "_",
		"":                "_",
		"client.secret":   "CLIENT_SECRET",
		"_a_":             "A",
		"Mixed Case 9":    "MIXED_CASE_9",
		"ünïcode-x":       "N_CODE_X",
	} {
		if got := NormEnvName(in); got != want {
			t.Errorf("NormEnvName(%q) = %q, want %q", in, got, want)
		}
	}
}

func ref(name, key string) SecretKeyRef { return SecretKeyRef{Name: name, Key: key} }

func TestSecretEnv(t *testing.T) {
	type result struct {
		Name, Secret, Key, Path string
	}
	tests := []struct {
		name     string
		spec     OGXServerSpec
		want     []result
		wantErrs []string
	}{
		{
			name: "providers in canonical order, custom keys sorted, storage last, sorted by name",
			spec: OGXServerSpec{
				Providers: &ProvidersSpec{
					Inference: &InferenceProviders{Remote: &RemoteInferenceProviders{
						OpenAI: []OpenAIProvider{{APIKey: ref("llm", "openai")}},
						Vllm:   []VLLMProvider{{ID: "7b-serving", Endpoint: "http://x", APIToken: ptr(ref("llm", "vllm"))}},
						Custom: []CustomProvider{{Type: "remote::guard", SecretRefs: map[string]SecretKeyRef{
							"z.key": ref("g", "z"), "a.key": ref("g", "a")}}},
					}},
					Files: &FilesProviders{Remote: &RemoteFilesProviders{S3: &S3FilesProvider{
						BucketName: "b", AWSAccessKeyID: ptr(ref("aws", "id"))}}},
				},
				Storage: &StateStorageSpec{
					KV:  &KVStorageSpec{Type: "redis", Endpoint: "redis:6379", Password: ptr(ref("redis", "pw"))},
					SQL: &SQLStorageSpec{Type: "postgres", ConnectionString: ptr(ref("pg", "dsn"))},
				},
			},
			want: []result{
				{"OGX_REMOTE_GUARD_A_KEY", "g", "a", "spec.providers.inference.remote.custom[0].secretRefs[a.key]"},
				{"OGX_REMOTE_GUARD_Z_KEY", "g", "z", "spec.providers.inference.remote.custom[0].secretRefs[z.key]"},
				{"OGX_REMOTE_OPENAI_API_KEY", "llm", "openai", "spec.providers.inference.remote.openai[0].apiKey"},
				{"OGX_REMOTE_S3_AWS_ACCESS_KEY_ID", "aws", "id", "spec.providers.files.remote.s3.awsAccessKeyId"},
				{"OGX_STORAGE_KV_PASSWORD", "redis", "pw", "spec.storage.kv.password"},
				{"OGX_STORAGE_SQL_CONNECTION_STRING", "pg", "dsn", "spec.storage.sql.connectionString"},
				{"OGX__7B_SERVING_API_TOKEN", "llm", "vllm", "spec.providers.inference.remote.vllm[0].apiToken"},
			},
		},
		{
			name: "same name and same secret key is one variable",
			spec: OGXServerSpec{Providers: &ProvidersSpec{Inference: &InferenceProviders{Remote: &RemoteInferenceProviders{
				OpenAI: []OpenAIProvider{{APIKey: ref("s", "k")}, {APIKey: ref("s", "k")}},
			}}}},
			want: []result{{"OGX_REMOTE_OPENAI_API_KEY", "s", "k", "spec.providers.inference.remote.openai[0].apiKey"}},
		},
		{
			name: "same name, different secret key collides at the later reference",
			spec: OGXServerSpec{Providers: &ProvidersSpec{Inference: &InferenceProviders{Remote: &RemoteInferenceProviders{
				OpenAI: []OpenAIProvider{{APIKey: ref("s1", "k1")}, {APIKey: ref("s2", "k2")}},
			}}}},
			want: []result{{"OGX_REMOTE_OPENAI_API_KEY", "s1", "k1", "spec.providers.inference.remote.openai[0].apiKey"}},
			wantErrs: []string{`spec.providers.inference.remote.openai[1].apiKey: Invalid value: "s2/k2": ` +
				`env var name collision for OGX_REMOTE_OPENAI_API_KEY: s1/k1 conflicts with s2/k2`},
		},
		{
			name: "a custom key that produces a reserved name is rejected",
			spec: OGXServerSpec{Providers: &ProvidersSpec{Inference: &InferenceProviders{Inline: &InlineCustomProviders{
				Custom: []CustomProvider{{ID: "tls", Type: "inline::x", SecretRefs: map[string]SecretKeyRef{"certfile": ref("s", "k")}}},
			}}}},
			wantErrs: []string{`spec.providers.inference.inline.custom[0].secretRefs[certfile]: Invalid value: "s/k": ` +
				`env var name OGX_TLS_CERTFILE is reserved by ogx-controller`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			vars, errs := SecretEnv(&tc.spec)
			var got []result
			for _, v := range vars {
				got = append(got, result{v.Name, v.Ref.Name, v.Ref.Key, v.Path.String()})
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("vars (-want +got):\n%s", diff)
			}
			var gotErrs []string
			for _, e := range errs {
				gotErrs = append(gotErrs, e.Error())
			}
			if diff := cmp.Diff(tc.wantErrs, gotErrs); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }
