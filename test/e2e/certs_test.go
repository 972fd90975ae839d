package e2e

import (
	"testing"

	"github.com/ogx-k8s/ogx-controller/pkg/testcerts"
)

// testCA returns the PEM certificate of a fresh CA, for a ConfigMap of
// trusted CAs.
func testCA(t *testing.T, cn string) []byte {
	t.Helper()
	ca, err := testcerts.NewCA(cn)
	if err != nil {
		t.Fatal(err)
	}
	return ca.PEM
}

// testCert returns a certificate for cn and its key, PEM-encoded, signed by
// a fresh CA and good both for serving and as a client identity.
func testCert(t *testing.T, cn string) (certPEM, keyPEM []byte) {
	t.Helper()
	ca, err := testcerts.NewCA(cn + "-ca")
	if err != nil {
		t.Fatal(err)
	}
	p, err := ca.Issue(testcerts.Leaf{CommonName: cn, DNSNames: []string{cn}, ClientAuth: true})
	if err != nil {
		t.Fatal(err)
	}
	return p.CertPEM, p.KeyPEM
}
