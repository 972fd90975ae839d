package validation

import (
	"strings"
	"testing"

	"github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1/validation/validationtest"
	"k8s.io/utils/ptr"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		obj  *ogxv1beta1.OGXServer
		want []string
	}{
		{name: "valid minimal", obj: validationtest.Server()},
		{name: "valid image", obj: validationtest.Server(func(s *ogxv1beta1.OGXServer) {
			s.Spec.Distribution = ogxv1beta1.DistributionSpec{Image: ptr.To("quay.io/x/y:1")}
		})},
		{name: "A1 unknown distribution", obj: validationtest.Server(func(s *ogxv1beta1.OGXServer) { s.Spec.Distribution.Name = ptr.To("nope") }),
			want: []string{`spec.distribution.name: Invalid value: "nope": unknown distribution "nope"; available distributions: meta-reference-gpu, postgres-demo, remote-vllm, starter`}},
		{name: "A2 two unnamed vllm", obj: validationtest.Server(validationtest.RemoteInference(ogxv1beta1.RemoteInferenceProviders{
			Vllm: []ogxv1beta1.VLLMProvider{{Endpoint: "a"}, {Endpoint: "b"}}})),
			want: []string{`spec.providers.inference.remote.vllm[1]: Invalid value: "remote-vllm": duplicate provider ID "remote-vllm" (first defined at spec.providers.inference.remote.vllm[0])`}},
		{name: "A2 custom colliding with typed, explicit id across APIs", obj: validationtest.Server(func(s *ogxv1beta1.OGXServer) {
			s.Spec.Providers = &ogxv1beta1.ProvidersSpec{
				Inference: &ogxv1beta1.InferenceProviders{Remote: &ogxv1beta1.RemoteInferenceProviders{
					Vllm: []ogxv1beta1.VLLMProvider{{Endpoint: "a"}}, Custom: []ogxv1beta1.CustomProvider{{Type: "remote::vllm"}}}},
				VectorIo: &ogxv1beta1.VectorIoProviders{Inline: &ogxv1beta1.InlineCustomProviders{
					Custom: []ogxv1beta1.CustomProvider{{ID: "remote-vllm", Type: "inline::faiss"}}}},
			}
		}), want: []string{
			`spec.providers.inference.remote.custom[0]: Invalid value: "remote-vllm": duplicate provider ID "remote-vllm" (first defined at spec.providers.inference.remote.vllm[0])`,
			`spec.providers.vectorIo.inline.custom[0].id: Invalid value: "remote-vllm": duplicate provider ID "remote-vllm" (first defined at spec.providers.inference.remote.vllm[0])`,
		}},
		{name: "A3 unknown model provider", obj: validationtest.Server(validationtest.RemoteInference(ogxv1beta1.RemoteInferenceProviders{
			Vllm: []ogxv1beta1.VLLMProvider{{Endpoint: "a"}, {ID: "b", Endpoint: "b"}}}), func(s *ogxv1beta1.OGXServer) {
			s.Spec.Resources = &ogxv1beta1.ResourcesSpec{Models: []ogxv1beta1.ModelSpec{{Name: "m0", Provider: "b"}, {Name: "m1"}, {Name: "m2", Provider: "x"}}}
		}), want: []string{`spec.resources.models[2].provider: Invalid value: "x": references unknown provider ID; available: [b remote-vllm]`}},
		{name: "A3 not checked without providers", obj: validationtest.Server(func(s *ogxv1beta1.OGXServer) {
			s.Spec.Resources = &ogxv1beta1.ResourcesSpec{Models: []ogxv1beta1.ModelSpec{{Name: "m", Provider: "from-base"}}}
		})},
		{name: "A4 self adoption and A5 bad label", obj: validationtest.Server(func(s *ogxv1beta1.OGXServer) {
			s.Annotations = map[string]string{ogxv1beta1.AnnotationAdoptStorage: "llm", ogxv1beta1.AnnotationAdoptNetworking: "Bad_Name"}
		}), want: []string{
			`metadata.annotations[ogx.io/adopt-storage]: Invalid value: "llm": adoption annotation value must not equal the CR name; same-name adoption causes resource conflicts`,
			`metadata.annotations[ogx.io/adopt-networking]: Invalid value: "Bad_Name": value "Bad_Name" is not a valid RFC 1123 DNS label`,
		}},
		{name: "A5 too long; empty value means no adoption", obj: validationtest.Server(func(s *ogxv1beta1.OGXServer) {
			s.Annotations = map[string]string{ogxv1beta1.AnnotationAdoptStorage: "", ogxv1beta1.AnnotationAdoptNetworking: strings.Repeat("a", 64)}
		}), want: []string{`metadata.annotations[ogx.io/adopt-networking]: Invalid value: "` + strings.Repeat("a", 64) + `": value "` + strings.Repeat("a", 64) + `" exceeds 63 characters`}},
		{name: "A6 empty name", obj: validationtest.Server(func(s *ogxv1beta1.OGXServer) { s.Spec.Distribution.Name = ptr.To("") }),
			want: []string{`spec.distribution.name: Required value: must not be empty`}},
		{name: "A6 empty image and whitespace image", obj: validationtest.Server(func(s *ogxv1beta1.OGXServer) {
			s.Spec.Distribution = ogxv1beta1.DistributionSpec{Image: ptr.To(" x ")}
		}), want: []string{`spec.distribution.image: Invalid value: " x ": must not have leading or trailing whitespace`}},
		{name: "A6 empty image", obj: validationtest.Server(func(s *ogxv1beta1.OGXServer) {
			s.Spec.Distribution = ogxv1beta1.DistributionSpec{Image: ptr.To("")}
		}), want: []string{`spec.distribution.image: Required value: must not be empty`}},
		{name: "A7 too long", obj: validationtest.Server(func(s *ogxv1beta1.OGXServer) { s.Name = strings.Repeat("a", 47) }),
			want: []string{`metadata.name: Invalid value: "` + strings.Repeat("a", 47) + `": must be no more than 46 characters so that every child object name fits in 63 characters`}},
		{name: "A7 46 is fine", obj: validationtest.Server(func(s *ogxv1beta1.OGXServer) { s.Name = strings.Repeat("a", 46) })},
		{name: "A7 starts with a digit", obj: validationtest.Server(func(s *ogxv1beta1.OGXServer) { s.Name = "1llm" }),
			want: []string{`metadata.name: Invalid value: "1llm": must be a lowercase RFC 1035 label (start with a letter; letters, digits and '-' only; end with a letter or digit)`}},
		{name: "A8 collision", obj: validationtest.Server(validationtest.RemoteInference(ogxv1beta1.RemoteInferenceProviders{
			OpenAI: []ogxv1beta1.OpenAIProvider{{ID: "a.b", APIKey: validationtest.Key("s1", "k")}, {ID: "a-b", APIKey: validationtest.Key("s2", "k")}}})),
			want: []string{`spec.providers.inference.remote.openai[1].apiKey: Invalid value: "s2/k": env var name collision for OGX_A_B_API_KEY: s1/k conflicts with s2/k`}},
		{name: "A9 redis without endpoint", obj: validationtest.Server(func(s *ogxv1beta1.OGXServer) {
			s.Spec.Storage = &ogxv1beta1.StateStorageSpec{KV: &ogxv1beta1.KVStorageSpec{Type: "redis"}}
		}), want: []string{`spec.storage.kv.endpoint: Required value: must not be empty when type is redis`}},
		{name: "A10 bare prefix", obj: validationtest.Server(validationtest.RemoteInference(ogxv1beta1.RemoteInferenceProviders{
			Custom: []ogxv1beta1.CustomProvider{{Type: "remote::"}}})),
			want: []string{`spec.providers.inference.remote.custom[0].type: Invalid value: "remote::": must name a provider after the 'remote::' or 'inline::' prefix`}},
		{name: "A11 settings not an object, and a shared key", obj: validationtest.Server(validationtest.RemoteInference(ogxv1beta1.RemoteInferenceProviders{
			Custom: []ogxv1beta1.CustomProvider{
				{ID: "a", Type: "remote::a", Settings: &apiextensionsv1.JSON{Raw: []byte(`[1]`)}},
				{ID: "b", Type: "remote::b", SecretRefs: map[string]ogxv1beta1.SecretKeyRef{"token": validationtest.Key("s", "t")},
					Settings: &apiextensionsv1.JSON{Raw: []byte(`{"token":"x","url":"y"}`)}},
			}})),
			want: []string{
				`spec.providers.inference.remote.custom[0].settings: Invalid value: "[1]": must be a JSON object`,
				`spec.providers.inference.remote.custom[1].settings[token]: Invalid value: "token": key "token" appears in both secretRefs and settings`,
			}},
		{name: "report order across checks", obj: validationtest.Server(func(s *ogxv1beta1.OGXServer) {
			s.Name = "Bad"
			s.Spec.Distribution.Name = ptr.To("nope")
			s.Spec.Storage = &ogxv1beta1.StateStorageSpec{KV: &ogxv1beta1.KVStorageSpec{Type: "redis"}}
		}), want: []string{
			`spec.distribution.name: Invalid value: "nope": unknown distribution "nope"; available distributions: meta-reference-gpu, postgres-demo, remote-vllm, starter`,
			`metadata.name: Invalid value: "Bad": must be a lowercase RFC 1035 label (start with a letter; letters, digits and '-' only; end with a letter or digit)`,
			`spec.storage.kv.endpoint: Required value: must not be empty when type is redis`,
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, e := range Validate(tc.obj) {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Validate (-want +got):\n%s", diff)
			}
		})
	}
}

// TestValidateSpecLeavesOutAdoption: ValidateSpec is Validate less exactly
// the adoption checks, also when another check fails on the same object.
func TestValidateSpecLeavesOutAdoption(t *testing.T) {
	obj := &ogxv1beta1.OGXServer{}
	obj.Name = "demo"
	obj.Annotations = map[string]string{ogxv1beta1.AnnotationAdoptStorage: "demo"}
	obj.Spec.Distribution.Name = ptrTo("Not A Registry Name")
	all, spec, adoption := Validate(obj), ValidateSpec(obj), ValidateAdoption(obj)
	if len(adoption) != 1 || len(spec) == 0 {
		t.Fatalf("want one adoption error and at least one other: adoption %v, spec %v", adoption, spec)
	}
	if len(all) != len(spec)+len(adoption) {
		t.Errorf("Validate %d errors, ValidateSpec %d + ValidateAdoption %d", len(all), len(spec), len(adoption))
	}
	for _, e := range spec {
		if e.Field == adoption[0].Field {
			t.Errorf("ValidateSpec reports the adoption error %v", e)
		}
	}
}

func ptrTo[T any](v T) *T { return &v }
