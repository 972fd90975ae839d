// Package testcerts makes the throwaway certificates of the tests: a CA
// that lives for one test, or one control plane, and the serving and
// client certificates it signs. It is the tests' only certificate maker;
// the signing itself is pkg/certgen's, the same code that makes the
// operator's own certificates, so a test exercises the real key type and
// encodings.
//
// Nothing here is for production: the keys are never stored and the
// lifetimes are a day.
package testcerts

import (
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"net"
	"time"

	"github.com/ogx-k8s/ogx-controller/pkg/certgen"
)

const (
	// validity is long enough for any test run and short enough that a
	// leaked test key is worthless.
	validity = 24 * time.Hour
	// backdate moves NotBefore into the past, so that an expired leaf
	// (Leaf.Expired) still lies within its CA's validity and fails only
	// on its own dates.
	backdate = 2 * time.Hour
)

// CA is a self-signed certificate authority for one test.
type CA struct {
	// Cert is the parsed CA certificate.
	Cert *x509.Certificate
	// PEM is the CA certificate, for a caBundle, a ConfigMap of trusted
	// CAs or a client's root pool.
	PEM []byte

	pair *certgen.KeyPair
}

// NewCA creates a CA valid from two hours ago for a day.
func NewCA(commonName string) (*CA, error) {
	now := time.Now()
	pair, err := certgen.Sign(x509.Certificate{
		Subject:               pkix.Name{CommonName: commonName},
		NotBefore:             now.Add(-backdate),
		NotAfter:              now.Add(validity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}, nil)
	if err != nil {
		return nil, fmt.Errorf("test CA %q: %w", commonName, err)
	}
	return &CA{Cert: pair.Cert, PEM: pair.CertPEM(), pair: pair}, nil
}

// Pool returns a certificate pool holding only the CA.
func (ca *CA) Pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(ca.Cert)
	return p
}

// Leaf describes a certificate for the CA to sign.
type Leaf struct {
	CommonName string
	DNSNames   []string
	IPs        []net.IP
	// ClientAuth makes the certificate good for a TLS client identity
	// too; without it, it serves only.
	ClientAuth bool
	// Expired makes a certificate whose validity ended an hour ago, for
	// tests of what happens to an expired certificate.
	Expired bool
}

// Pair is a signed certificate and its key.
type Pair struct {
	// CertPEM is the certificate, KeyPEM its private key in PKCS #8.
	CertPEM, KeyPEM []byte
	// Leaf is the parsed certificate.
	Leaf *x509.Certificate
}

// Issue signs a certificate for l with a fresh key, valid from an hour ago
// until a day from now (never past its CA) unless l.Expired.
func (ca *CA) Issue(l Leaf) (*Pair, error) {
	now := time.Now()
	notBefore, notAfter := now.Add(-time.Hour), now.Add(validity)
	if ca.Cert.NotAfter.Before(notAfter) {
		notAfter = ca.Cert.NotAfter
	}
	if l.Expired {
		notBefore, notAfter = now.Add(-backdate), now.Add(-time.Hour)
	}
	usages := []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
	if l.ClientAuth {
		usages = append(usages, x509.ExtKeyUsageClientAuth)
	}
	pair, err := certgen.Sign(x509.Certificate{
		Subject:     pkix.Name{CommonName: l.CommonName},
		NotBefore:   notBefore,
		NotAfter:    notAfter,
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: usages,
		DNSNames:    l.DNSNames,
		IPAddresses: l.IPs,
	}, ca.pair)
	if err != nil {
		return nil, fmt.Errorf("test certificate %q: %w", l.CommonName, err)
	}
	keyPEM, err := pair.KeyPEM()
	if err != nil {
		return nil, fmt.Errorf("test certificate %q: %w", l.CommonName, err)
	}
	return &Pair{CertPEM: pair.CertPEM(), KeyPEM: keyPEM, Leaf: pair.Cert}, nil
}

// Files returns the pair as the data of a kubernetes.io/tls Secret.
func (p *Pair) Files() map[string][]byte {
	return map[string][]byte{"tls.crt": p.CertPEM, "tls.key": p.KeyPEM}
}
