package resolve

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"sort"
	"strings"

	"github.com/ogx-k8s/ogx-controller/pkg/contenthash"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

// SecretHashEntry is one Secret-backed environment variable as it enters the
// secret.hash/referenced annotation.
type SecretHashEntry struct {
	// Env is the variable name.
	Env string
	// Secret and Key locate the value.
	Secret, Key string
	// Value is the Secret value's bytes.
	Value []byte
}

// SecretHash is the secret.hash/referenced value (docs/children.md, Rollout
// annotations): the first 8 bytes, in hex, of HMAC-SHA256 under key of the
// sorted, "|"-joined entries "<ENV>=<secret>/<key>@<h16 of the value>". It
// is empty without entries, which means the annotation is omitted. The key
// (the operator's Secret render.HashKeySecretName) keeps anyone who can
// read Deployments from testing guesses of a weak Secret value against the
// annotation: without it the value's hash could be brute-forced offline.
func SecretHash(key []byte, entries []SecretHashEntry) string {
	if len(entries) == 0 {
		return ""
	}
	parts := make([]string, 0, len(entries))
	for _, e := range entries {
		parts = append(parts, e.Env+"="+e.Secret+"/"+e.Key+"@"+contenthash.H16(e.Value))
	}
	sort.Strings(parts)
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(strings.Join(parts, "|")))
	return hex.EncodeToString(mac.Sum(nil)[:8])
}

// ErrHashKeyPending: the hash key is not at hand yet (the leader has not
// created it, or the cache has not seen it); the pass is retried.
var ErrHashKeyPending = errors.New("the hash key Secret " + render.HashKeySecretName + " is not in the cache yet")

// PairHash is the secret.hash/tls and secret.hash/identity value: h16 of the
// certificate bytes, one zero byte and the key bytes. The separator keeps
// ("ab", "c") and ("a", "bc") apart.
func PairHash(cert, key []byte) string {
	b := make([]byte, 0, len(cert)+1+len(key))
	b = append(b, cert...)
	b = append(b, 0)
	b = append(b, key...)
	return contenthash.H16(b)
}
