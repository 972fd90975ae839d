package tlsserve

import (
	"crypto/tls"
	"strings"
	"testing"
)

// TestCipherSuitesAreAEADOnly: no CBC suite, no SHA-1 MAC, no static RSA
// key exchange, and each suite is one Go considers secure.
func TestCipherSuitesAreAEADOnly(t *testing.T) {
	secure := map[uint16]bool{}
	for _, s := range tls.CipherSuites() {
		secure[s.ID] = true
	}
	for _, id := range CipherSuites() {
		name := tls.CipherSuiteName(id)
		if strings.Contains(name, "CBC") || strings.HasSuffix(name, "_SHA") || !strings.Contains(name, "ECDHE") || !secure[id] {
			t.Errorf("%s is not an ECDHE AEAD suite Go considers secure", name)
		}
	}
}
