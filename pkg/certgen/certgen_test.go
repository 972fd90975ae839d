package certgen

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"net"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"
)

var now = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func caTemplate(cn string) x509.Certificate {
	return x509.Certificate{
		Subject:               pkix.Name{CommonName: cn},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
}

func leafTemplate(cn string) x509.Certificate {
	return x509.Certificate{
		Subject:     pkix.Name{CommonName: cn},
		NotBefore:   now.Add(-time.Hour),
		NotAfter:    now.Add(time.Hour),
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:    []string{"svc.ns.svc"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
	}
}

func mustSign(t *testing.T, tmpl x509.Certificate, issuer *KeyPair) *KeyPair {
	t.Helper()
	p, err := Sign(tmpl, issuer)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestSignChainsToIssuer(t *testing.T) {
	ca := mustSign(t, caTemplate("ca"), nil)
	other := mustSign(t, caTemplate("other"), nil)
	leaf := mustSign(t, leafTemplate("leaf"), ca)

	tests := []struct {
		name    string
		roots   *KeyPair
		at      time.Time
		dnsName string
		wantErr bool
	}{
		{name: "signed by the CA", roots: ca, at: now, dnsName: "svc.ns.svc"},
		{name: "IP SAN", roots: ca, at: now, dnsName: "127.0.0.1"},
		{name: "another CA", roots: other, at: now, dnsName: "svc.ns.svc", wantErr: true},
		{name: "name not in the SANs", roots: ca, at: now, dnsName: "elsewhere", wantErr: true},
		{name: "after NotAfter", roots: ca, at: now.Add(2 * time.Hour), dnsName: "svc.ns.svc", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pool := x509.NewCertPool()
			pool.AddCert(tt.roots.Cert)
			_, err := leaf.Cert.Verify(x509.VerifyOptions{Roots: pool, CurrentTime: tt.at, DNSName: tt.dnsName})
			if (err != nil) != tt.wantErr {
				t.Errorf("Verify: err = %v, want error %v", err, tt.wantErr)
			}
		})
	}
}

func TestSignKeepsTemplateAndFreshKeys(t *testing.T) {
	ca := mustSign(t, caTemplate("ca"), nil)
	a := mustSign(t, leafTemplate("leaf"), ca)
	b := mustSign(t, leafTemplate("leaf"), ca)
	if err := ca.Cert.CheckSignatureFrom(ca.Cert); err != nil {
		t.Errorf("self-signed CA: %v", err)
	}
	if a.Cert.SerialNumber.Cmp(b.Cert.SerialNumber) == 0 || a.Key.Public().(*ecdsa.PublicKey).Equal(b.Key.Public()) {
		t.Error("two certificates share a serial number or a key")
	}
	if k, ok := a.Key.(*ecdsa.PrivateKey); !ok || k.Curve != elliptic.P256() {
		t.Errorf("key is %T, want ECDSA P-256", a.Key)
	}
	got := struct {
		CN        string
		Issuer    string
		DNS       []string
		IPs       []string
		NotBefore time.Time
		NotAfter  time.Time
		IsCA      bool
	}{a.Cert.Subject.CommonName, a.Cert.Issuer.CommonName, a.Cert.DNSNames, nil, a.Cert.NotBefore, a.Cert.NotAfter, a.Cert.IsCA}
	for _, ip := range a.Cert.IPAddresses {
		got.IPs = append(got.IPs, ip.String())
	}
	want := got
	want.CN, want.Issuer, want.DNS, want.IPs = "leaf", "ca", []string{"svc.ns.svc"}, []string{"127.0.0.1"}
	want.NotBefore, want.NotAfter, want.IsCA = now.Add(-time.Hour), now.Add(time.Hour), false
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("certificate (-want +got):\n%s", d)
	}
}

// TestPEMReadableByKubernetesLoaders: the API server and the kubelet read
// certificates and keys with client-go's loaders, so what we write must
// parse with them.
func TestPEMReadableByKubernetesLoaders(t *testing.T) {
	ca := mustSign(t, caTemplate("ca"), nil)
	leaf := mustSign(t, leafTemplate("leaf"), ca)
	bundle := EncodeCertificates(leaf.Cert, ca.Cert)
	certs, err := cert.ParseCertsPEM(bundle)
	if err != nil || len(certs) != 2 || !certs[0].Equal(leaf.Cert) || !certs[1].Equal(ca.Cert) {
		t.Fatalf("ParseCertsPEM of the bundle = %d certificates, %v", len(certs), err)
	}
	if !bytes.Equal(leaf.CertPEM(), bundle[:len(leaf.CertPEM())]) {
		t.Error("CertPEM differs from the first certificate of EncodeCertificates")
	}
	keyPEM, err := leaf.KeyPEM()
	if err != nil {
		t.Fatal(err)
	}
	key, err := keyutil.ParsePrivateKeyPEM(keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	if k, ok := key.(*ecdsa.PrivateKey); !ok || !k.Equal(leaf.Key) {
		t.Errorf("parsed key %T is not the pair's key", key)
	}
	pair, err := tls.X509KeyPair(leaf.CertPEM(), keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(pair.Certificate, leaf.TLSCertificate().Certificate); d != "" {
		t.Errorf("TLSCertificate differs from the PEM pair (-pem +tls):\n%s", d)
	}
}
