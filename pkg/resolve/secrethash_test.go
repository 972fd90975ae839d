package resolve

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/ogx-k8s/ogx-controller/pkg/contenthash"
)

func TestSecretHash(t *testing.T) {
	key := []byte("k1")
	if got := SecretHash(key, nil); got != "" {
		t.Errorf("no entries: %q, want empty", got)
	}
	a := SecretHashEntry{Env: "OGX_A", Secret: "s1", Key: "k", Value: []byte("one")}
	b := SecretHashEntry{Env: "OGX_B", Secret: "s2", Key: "k", Value: []byte("two")}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte("OGX_A=s1/k@" + contenthash.H16([]byte("one")) + "|OGX_B=s2/k@" + contenthash.H16([]byte("two"))))
	want := hex.EncodeToString(mac.Sum(nil)[:8])
	if got := SecretHash(key, []SecretHashEntry{b, a}); got != want {
		t.Errorf("SecretHash = %s, want %s (order must not matter)", got, want)
	}
	changed := a
	changed.Value = []byte("uno")
	if SecretHash(key, []SecretHashEntry{changed, b}) == want {
		t.Error("a value change must change the hash")
	}
	moved := a
	moved.Secret = "s3"
	if SecretHash(key, []SecretHashEntry{moved, b}) == want {
		t.Error("a reference change must change the hash")
	}
	// Without the key the value cannot be recomputed: another key, or the
	// unkeyed hash of the same string, gives another value.
	if SecretHash([]byte("k2"), []SecretHashEntry{a, b}) == want {
		t.Error("a key change must change the hash")
	}
	if contenthash.H16([]byte("OGX_A=s1/k@"+contenthash.H16([]byte("one"))+"|OGX_B=s2/k@"+contenthash.H16([]byte("two")))) == want {
		t.Error("the hash is not keyed")
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
