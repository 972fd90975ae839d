package contenthash

import "testing"

func TestH16(t *testing.T) {
	// The reference vector: a generated config.yaml and its name suffix.
	vector := `apis:
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
	if got := H16([]byte(vector)); got != "d7fedf0dc718ab56" {
		t.Errorf("H16(vector) = %s, want d7fedf0dc718ab56", got)
	}
	// SHA-256("") starts with e3b0c44298fc1c14.
	if got := H16(nil); got != "e3b0c44298fc1c14" {
		t.Errorf("H16(empty) = %s", got)
	}
}
