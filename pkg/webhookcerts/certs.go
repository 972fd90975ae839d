package webhookcerts

import (
	"bytes"
	"crypto"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"slices"
	"time"

	"k8s.io/client-go/util/keyutil"

	"github.com/ogx-k8s/ogx-controller/pkg/certgen"
)

const (
	// CALifetime is how long a generated CA is valid (10 years).
	CALifetime = 10 * 365 * 24 * time.Hour
	// ServingLifetime is how long a generated serving certificate is
	// valid (1 year), never beyond its CA.
	ServingLifetime = 365 * 24 * time.Hour

	// backdate moves NotBefore into the past so that a peer whose clock is
	// somewhat behind ours still accepts a certificate issued just now.
	backdate = time.Hour

	// minKeepDuringRotation is how long the serving certificate of the
	// previous CA must still be valid to be kept for the first step of a
	// CA rotation; with less, it is reissued at once.
	minKeepDuringRotation = 24 * time.Hour

	// maxPreviousCAs bounds how many earlier, unexpired CAs stay in ca.crt
	// next to the current one.
	maxPreviousCAs = 2
)

// authority is a CA certificate with its key.
type authority struct {
	cert *x509.Certificate
	key  crypto.Signer
}

// newCA generates a self-signed ECDSA P-256 CA valid for CALifetime. It may
// sign only end-entity certificates (MaxPathLenZero): the webhook needs no
// intermediate CA, so none may chain below this one.
func newCA(now time.Time) (*authority, []byte, error) {
	ca, err := certgen.Sign(x509.Certificate{
		Subject:               pkix.Name{CommonName: fmt.Sprintf("ogx-controller-webhook-ca@%d", now.Unix())},
		NotBefore:             now.Add(-backdate),
		NotAfter:              now.Add(CALifetime),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true,
	}, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("generating CA: %w", err)
	}
	keyPEM, err := ca.KeyPEM()
	if err != nil {
		return nil, nil, err
	}
	return &authority{cert: ca.Cert, key: ca.Key}, keyPEM, nil
}

// issue signs a serving certificate for the given names with a fresh ECDSA
// P-256 key, valid for ServingLifetime but not beyond the CA. It returns the
// PEM certificate and key.
func (ca *authority) issue(now time.Time, commonName string, dnsNames []string, ips []net.IP) (certPEM, keyPEM []byte, err error) {
	notAfter := now.Add(ServingLifetime)
	if notAfter.After(ca.cert.NotAfter) {
		notAfter = ca.cert.NotAfter
	}
	leaf, err := certgen.Sign(x509.Certificate{
		Subject:     pkix.Name{CommonName: commonName},
		NotBefore:   now.Add(-backdate),
		NotAfter:    notAfter,
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:    dnsNames,
		IPAddresses: ips,
	}, &certgen.KeyPair{Cert: ca.cert, Key: ca.key})
	if err != nil {
		return nil, nil, fmt.Errorf("generating serving certificate: %w", err)
	}
	if keyPEM, err = leaf.KeyPEM(); err != nil {
		return nil, nil, err
	}
	return leaf.CertPEM(), keyPEM, nil
}

// parseCertificates decodes a PEM bundle in which every block must be a
// certificate; an empty bundle is an error.
func parseCertificates(data []byte) ([]*x509.Certificate, error) {
	var certs []*x509.Certificate
	rest := bytes.TrimSpace(data)
	for len(rest) > 0 {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil && len(certs) == 0 {
			return nil, errors.New("no PEM certificate")
		}
		if block == nil {
			return nil, errors.New("data after the last PEM block")
		}
		if block.Type != certgen.CertificateBlockType {
			return nil, fmt.Errorf("unexpected PEM block %q", block.Type)
		}
		c, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, err
		}
		certs = append(certs, c)
		rest = bytes.TrimSpace(rest)
	}
	if len(certs) == 0 {
		return nil, errors.New("no certificate")
	}
	return certs, nil
}

// parsePrivateKey decodes a single PEM private key (PKCS #8, SEC 1 or
// PKCS #1). client-go's parser, which the API server uses too, does the
// decoding; this adds the strictness a Secret we own deserves: one block,
// nothing after it, and a key that can sign.
func parsePrivateKey(data []byte) (crypto.Signer, error) {
	block, rest := pem.Decode(data)
	if block == nil {
		return nil, errors.New("no PEM block")
	}
	if len(bytes.TrimSpace(rest)) > 0 {
		return nil, errors.New("data after the private key")
	}
	key, err := keyutil.ParsePrivateKeyPEM(data)
	if err != nil {
		return nil, fmt.Errorf("parsing the private key: %w", err)
	}
	signer, ok := key.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("unsupported private key type %T", key)
	}
	return signer, nil
}

// samePublicKey reports whether the certificate's key is the signer's.
func samePublicKey(c *x509.Certificate, key crypto.Signer) bool {
	pub, ok := c.PublicKey.(interface{ Equal(crypto.PublicKey) bool })
	return ok && pub.Equal(key.Public())
}

// validAt reports whether now lies within c's validity period.
func validAt(c *x509.Certificate, now time.Time) bool {
	return !now.Before(c.NotBefore) && now.Before(c.NotAfter)
}

// renewalDue reports whether less than a third of c's lifetime remains.
func renewalDue(c *x509.Certificate, now time.Time) bool {
	return c.NotAfter.Sub(now) < c.NotAfter.Sub(c.NotBefore)/3
}

// verifyServing checks that leaf is a server certificate chaining to one of
// roots at now.
func verifyServing(leaf *x509.Certificate, roots []*x509.Certificate, now time.Time) error {
	pool := x509.NewCertPool()
	for _, r := range roots {
		pool.AddCert(r)
	}
	_, err := leaf.Verify(x509.VerifyOptions{Roots: pool, CurrentTime: now, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}})
	return err
}

// sameNames reports whether leaf carries exactly the given SANs.
func sameNames(leaf *x509.Certificate, dnsNames []string, ips []net.IP) bool {
	got := slices.Clone(leaf.DNSNames)
	want := slices.Clone(dnsNames)
	slices.Sort(got)
	slices.Sort(want)
	return slices.Equal(got, want) && slices.Equal(ipStrings(leaf.IPAddresses), ipStrings(ips))
}

func ipStrings(ips []net.IP) []string {
	out := make([]string, 0, len(ips))
	for _, ip := range ips {
		out = append(out, ip.String())
	}
	slices.Sort(out)
	return slices.Compact(out)
}
