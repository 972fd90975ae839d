package render

import (
	"testing"
)

func TestH16(t *testing.T) {
	// Test vector of config spec §11.1.
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

func TestSecretHash(t *testing.T) {
	if got := SecretHash(nil); got != "" {
		t.Errorf("no entries: %q, want empty", got)
	}
	a := SecretHashEntry{Env: "OGX_A", Secret: "s1", Key: "k", Value: []byte("one")}
	b := SecretHashEntry{Env: "OGX_B", Secret: "s2", Key: "k", Value: []byte("two")}
	want := H16([]byte("OGX_A=s1/k@" + H16([]byte("one")) + "|OGX_B=s2/k@" + H16([]byte("two"))))
	if got := SecretHash([]SecretHashEntry{b, a}); got != want {
		t.Errorf("SecretHash = %s, want %s (order must not matter)", got, want)
	}
	changed := a
	changed.Value = []byte("uno")
	if SecretHash([]SecretHashEntry{changed, b}) == want {
		t.Error("a value change must change the hash")
	}
	moved := a
	moved.Secret = "s3"
	if SecretHash([]SecretHashEntry{moved, b}) == want {
		t.Error("a reference change must change the hash")
	}
}

func TestPairHash(t *testing.T) {
	if got, want := PairHash([]byte("crt"), []byte("key")), H16([]byte("crt\x00key")); got != want {
		t.Errorf("PairHash = %s, want %s", got, want)
	}
	if PairHash([]byte("ab"), []byte("c")) == PairHash([]byte("a"), []byte("bc")) {
		t.Error("the zero byte must separate certificate and key")
	}
}
