package testcerts

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"
)

func mustCA(t *testing.T, cn string) *CA {
	t.Helper()
	ca, err := NewCA(cn)
	if err != nil {
		t.Fatal(err)
	}
	return ca
}

func TestIssue(t *testing.T) {
	ca, other := mustCA(t, "test-ca"), mustCA(t, "other-ca")
	loopback := []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback}
	tests := []struct {
		name   string
		leaf   Leaf
		roots  *CA
		verify x509.VerifyOptions
		// wantErr is nil when the leaf must verify, else it recognises
		// the error Verify must return.
		wantErr func(error) bool
	}{
		{name: "DNS name", leaf: Leaf{CommonName: "svc", DNSNames: []string{"svc.ns.svc", "svc.ns"}}, roots: ca,
			verify: x509.VerifyOptions{DNSName: "svc.ns"}},
		{name: "IPv4 address", leaf: Leaf{CommonName: "local", IPs: loopback}, roots: ca,
			verify: x509.VerifyOptions{DNSName: "127.0.0.1"}},
		{name: "IPv6 address", leaf: Leaf{CommonName: "local", IPs: loopback}, roots: ca,
			verify: x509.VerifyOptions{DNSName: "::1"}},
		{name: "name not in the SANs", leaf: Leaf{CommonName: "svc", DNSNames: []string{"svc.ns.svc"}}, roots: ca,
			verify: x509.VerifyOptions{DNSName: "elsewhere"}, wantErr: errorIs[x509.HostnameError]},
		{name: "another CA", leaf: Leaf{CommonName: "svc", DNSNames: []string{"svc"}}, roots: other,
			verify: x509.VerifyOptions{DNSName: "svc"}, wantErr: errorIs[x509.UnknownAuthorityError]},
		{name: "expired", leaf: Leaf{CommonName: "old", DNSNames: []string{"old"}, Expired: true}, roots: ca,
			verify: x509.VerifyOptions{DNSName: "old"}, wantErr: invalidBecause(x509.Expired)},
		{name: "serving only by default", leaf: Leaf{CommonName: "srv"}, roots: ca,
			verify: x509.VerifyOptions{KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}, wantErr: invalidBecause(x509.IncompatibleUsage)},
		{name: "client identity", leaf: Leaf{CommonName: "client", ClientAuth: true}, roots: ca,
			verify: x509.VerifyOptions{KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ca.Issue(tt.leaf)
			if err != nil {
				t.Fatal(err)
			}
			opts := tt.verify
			opts.Roots = tt.roots.Pool()
			_, err = p.Leaf.Verify(opts)
			switch {
			case tt.wantErr == nil && err != nil:
				t.Fatalf("Verify: %v", err)
			case tt.wantErr != nil && !tt.wantErr(err):
				t.Fatalf("Verify: err = %v (%T), not the expected failure", err, err)
			}
			if d := cmp.Diff(tt.leaf.CommonName, p.Leaf.Subject.CommonName); d != "" {
				t.Errorf("common name (-want +got):\n%s", d)
			}
		})
	}
}

// errorIs recognises an error of type E.
func errorIs[E error](err error) bool {
	var e E
	return errors.As(err, &e)
}

// invalidBecause recognises a CertificateInvalidError with the reason.
func invalidBecause(reason x509.InvalidReason) func(error) bool {
	return func(err error) bool {
		var e x509.CertificateInvalidError
		return errors.As(err, &e) && e.Reason == reason
	}
}

// TestPEM: the pair loads into crypto/tls and, like the files the API
// server and kubelet read, through client-go's certificate and key
// loaders.
func TestPEM(t *testing.T) {
	ca := mustCA(t, "test-ca")
	p, err := ca.Issue(Leaf{CommonName: "svc", DNSNames: []string{"svc"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tls.X509KeyPair(p.CertPEM, p.KeyPEM); err != nil {
		t.Errorf("tls.X509KeyPair: %v", err)
	}
	for name, data := range map[string][]byte{"CA": ca.PEM, "leaf": p.CertPEM} {
		certs, err := cert.ParseCertsPEM(data)
		if err != nil || len(certs) != 1 {
			t.Errorf("%s: ParseCertsPEM = %d certificates, %v; want one", name, len(certs), err)
		}
	}
	if !ca.Cert.Equal(mustParse(t, ca.PEM)) || !p.Leaf.Equal(mustParse(t, p.CertPEM)) {
		t.Error("PEM and parsed certificate differ")
	}
	if _, err := keyutil.ParsePrivateKeyPEM(p.KeyPEM); err != nil {
		t.Errorf("keyutil.ParsePrivateKeyPEM: %v", err)
	}
	if d := cmp.Diff(map[string][]byte{"tls.crt": p.CertPEM, "tls.key": p.KeyPEM}, p.Files()); d != "" {
		t.Errorf("Files (-want +got):\n%s", d)
	}
}

func mustParse(t *testing.T, pemData []byte) *x509.Certificate {
	t.Helper()
	certs, err := cert.ParseCertsPEM(pemData)
	if err != nil {
		t.Fatal(err)
	}
	return certs[0]
}
