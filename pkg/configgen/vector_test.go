package configgen

import (
	"testing"

	"github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

// The test vector of docs/config-generation.md, Serialization and hash: exact
// bytes and hash.
const vectorYAML = `apis:
    - inference
distro_name: demo
providers:
    inference:
        - config:
            api_token: ${env.OGX_REMOTE_VLLM_API_TOKEN}
            base_url: http://vllm.demo.svc:8000/v1
          provider_id: remote-vllm
          provider_type: remote::vllm
registered_resources: {}
server:
    port: 8321
version: "2"
`

func TestVectorGenerate(t *testing.T) {
	name := "demo"
	spec := &v1beta1.OGXServerSpec{
		Distribution: v1beta1.DistributionSpec{Name: &name},
		Providers: &v1beta1.ProvidersSpec{Inference: &v1beta1.InferenceProviders{
			Remote: &v1beta1.RemoteInferenceProviders{Vllm: []v1beta1.VLLMProvider{{
				Endpoint: "http://vllm.demo.svc:8000/v1",
				APIToken: &v1beta1.SecretKeyRef{Name: "vllm", Key: "token"},
			}}},
		}},
	}
	res, err := Generate(spec, []byte("version: 2\napis: [inference]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if string(res.ConfigYAML) != vectorYAML {
		t.Fatalf("config:\n%s\nwant:\n%s", res.ConfigYAML, vectorYAML)
	}
	if res.ContentHash != "d7fedf0dc718ab56" {
		t.Fatalf("hash %s", res.ContentHash)
	}
	if res.ProviderCount != 1 || res.ConfigVersion != 2 || len(res.Env) != 1 || res.Env[0].Name != "OGX_REMOTE_VLLM_API_TOKEN" {
		t.Fatalf("unexpected result %+v", res)
	}
}
