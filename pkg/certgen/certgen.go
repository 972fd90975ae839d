// Package certgen signs every X.509 certificate ogx-controller makes: the
// webhook CA and serving certificate (pkg/webhookcerts), the metrics
// listener's in-memory certificate (pkg/metrics) and, through
// pkg/testcerts, the certificates of the tests. Keeping the key type, the
// serial numbers and the PEM encodings in one place means a reader checks
// them once, and a change (another curve, say) reaches every certificate.
//
// The callers choose what differs between them, the subject, names,
// validity and usages, by filling an x509.Certificate template.
package certgen

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"math/big"
)

const (
	// CertificateBlockType is the PEM type of a certificate.
	CertificateBlockType = "CERTIFICATE"
	// PrivateKeyBlockType is the PEM type of a PKCS #8 private key.
	PrivateKeyBlockType = "PRIVATE KEY"
)

// KeyPair is a signed certificate and its private key.
type KeyPair struct {
	Cert *x509.Certificate
	Key  crypto.Signer
}

// Sign generates a fresh ECDSA P-256 key and signs a certificate for it,
// built from tmpl with a random serial number. A nil issuer makes the
// certificate self-signed. P-256 because generating it is instant and every
// TLS peer of the operator (API server, Prometheus, kubelet) accepts it.
func Sign(tmpl x509.Certificate, issuer *KeyPair) (*KeyPair, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generating a key for %q: %w", tmpl.Subject.CommonName, err)
	}
	if tmpl.SerialNumber, err = randomSerial(); err != nil {
		return nil, err
	}
	parent, signer := &tmpl, crypto.Signer(key)
	if issuer != nil {
		parent, signer = issuer.Cert, issuer.Key
	}
	der, err := x509.CreateCertificate(rand.Reader, &tmpl, parent, key.Public(), signer)
	if err != nil {
		return nil, fmt.Errorf("signing the certificate for %q: %w", tmpl.Subject.CommonName, err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("parsing the certificate for %q: %w", tmpl.Subject.CommonName, err)
	}
	return &KeyPair{Cert: cert, Key: key}, nil
}

// CertPEM returns the certificate PEM-encoded.
func (p *KeyPair) CertPEM() []byte {
	return EncodeCertificates(p.Cert)
}

// KeyPEM returns the private key PEM-encoded in PKCS #8.
func (p *KeyPair) KeyPEM() ([]byte, error) {
	return EncodeKey(p.Key)
}

// TLSCertificate returns the pair for a tls.Config, with the parsed leaf
// so that the handshake does not parse it again.
func (p *KeyPair) TLSCertificate() *tls.Certificate {
	return &tls.Certificate{Certificate: [][]byte{p.Cert.Raw}, PrivateKey: p.Key, Leaf: p.Cert}
}

// EncodeKey PEM-encodes a private key in PKCS #8, the one encoding that
// carries RSA and ECDSA keys alike.
func EncodeKey(key crypto.Signer) ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("encoding private key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: PrivateKeyBlockType, Bytes: der}), nil
}

// EncodeCertificates PEM-encodes certificates one after another, as a
// bundle.
func EncodeCertificates(certs ...*x509.Certificate) []byte {
	var out []byte
	for _, c := range certs {
		out = append(out, pem.EncodeToMemory(&pem.Block{Type: CertificateBlockType, Bytes: c.Raw})...)
	}
	return out
}

// randomSerial returns a random serial number in [1, 2^127]: positive, as
// RFC 5280 requires, and within its 20 octets.
func randomSerial() (*big.Int, error) {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, fmt.Errorf("generating serial number: %w", err)
	}
	return n.Add(n, big.NewInt(1)), nil
}
