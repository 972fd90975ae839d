package resolve

import (
	"testing"

	"github.com/ogx-k8s/ogx-controller/pkg/contenthash"
)

func TestSecretHash(t *testing.T) {
	if got := SecretHash(nil); got != "" {
		t.Errorf("no entries: %q, want empty", got)
	}
	a := SecretHashEntry{Env: "OGX_A", Secret: "s1", Key: "k", Value: []byte("one")}
	b := SecretHashEntry{Env: "OGX_B", Secret: "s2", Key: "k", Value: []byte("two")}
	want := contenthash.H16([]byte("OGX_A=s1/k@" + contenthash.H16([]byte("one")) + "|OGX_B=s2/k@" + contenthash.H16([]byte("two"))))
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
	if got, want := PairHash([]byte("crt"), []byte("key")), contenthash.H16([]byte("crt\x00key")); got != want {
		t.Errorf("PairHash = %s, want %s", got, want)
	}
	if PairHash([]byte("ab"), []byte("c")) == PairHash([]byte("a"), []byte("bc")) {
		t.Error("the zero byte must separate certificate and key")
	}
}
