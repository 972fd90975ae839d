package resolve

import (
	"sort"
	"strings"

	"github.com/ogx-k8s/ogx-controller/pkg/contenthash"
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
// annotations): h16 of the sorted, "|"-joined entries
// "<ENV>=<secret>/<key>@<h16 of the value>". It is empty without entries,
// which means the annotation is omitted. Only the value's hash enters the
// string, so the annotation never reveals Secret content.
func SecretHash(entries []SecretHashEntry) string {
	if len(entries) == 0 {
		return ""
	}
	parts := make([]string, 0, len(entries))
	for _, e := range entries {
		parts = append(parts, e.Env+"="+e.Secret+"/"+e.Key+"@"+contenthash.H16(e.Value))
	}
	sort.Strings(parts)
	return contenthash.H16([]byte(strings.Join(parts, "|")))
}

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
