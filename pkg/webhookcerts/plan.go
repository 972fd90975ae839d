package webhookcerts

import (
	"bytes"
	"crypto"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/ogx-k8s/ogx-controller/pkg/certgen"
)

// Secret data keys.
const (
	TLSCertKey = corev1.TLSCertKey       // tls.crt: the serving certificate
	TLSKeyKey  = corev1.TLSPrivateKeyKey // tls.key: its key
	CACertKey  = "ca.crt"                // the trusted CAs, current first
	CAKeyKey   = "ca.key"                // the current CA's key
)

// plan is what EnsureSecret should store, derived from what is stored.
type plan struct {
	data map[string][]byte
	// caReason and servingReason say why the CA or the serving certificate
	// is (re)generated; empty when it is kept.
	caReason, servingReason string
	// pruned counts previous CAs dropped from ca.crt (expired, or over
	// maxPreviousCAs).
	pruned int
	// ca and serving are the certificates of the result, for logging.
	ca, serving *x509.Certificate
}

// changed reports whether the plan differs from cur.
func (p *plan) changed(cur map[string][]byte) bool {
	for k, v := range p.data {
		if !bytes.Equal(cur[k], v) {
			return true
		}
	}
	return false
}

// subject is the serving certificate's identity.
type subject struct {
	commonName string
	dnsNames   []string
	ips        []net.IP
}

// makePlan decides, from the stored data cur and the time now, what the
// Secret should hold. It is a pure function apart from key generation.
func makePlan(cur map[string][]byte, now time.Time, sub subject) (*plan, error) {
	p := &plan{data: map[string][]byte{}}
	ca, previous, err := p.planCA(cur, now)
	if err != nil {
		return nil, err
	}
	if err := p.planServing(cur, now, sub, ca, previous); err != nil {
		return nil, err
	}
	return p, nil
}

// planCA keeps the stored CA or makes a new one, and fills ca.crt (the
// current CA first, then the earlier ones still trusted) and ca.key. It
// returns the current CA and the earlier ones.
func (p *plan) planCA(cur map[string][]byte, now time.Time) (*authority, []*x509.Certificate, error) {
	bundle, bundleErr := parseCertificates(cur[CACertKey])
	caKey, caKeyErr := parsePrivateKey(cur[CAKeyKey])
	var ca *authority
	if bundleErr == nil && caKeyErr == nil {
		ca = currentCA(bundle, caKey, now)
	}
	var previous []*x509.Certificate
	if bundleErr == nil {
		previous = p.previousCAs(bundle, ca, now)
	}
	switch {
	case cur[CACertKey] == nil && cur[CAKeyKey] == nil:
		p.caReason = "no CA"
	case bundleErr != nil:
		p.caReason = fmt.Sprintf("%s does not parse: %v", CACertKey, bundleErr)
	case caKeyErr != nil:
		p.caReason = fmt.Sprintf("%s does not parse: %v", CAKeyKey, caKeyErr)
	case ca == nil:
		p.caReason = fmt.Sprintf("no valid CA certificate in %s matches %s", CACertKey, CAKeyKey)
	case renewalDue(ca.cert, now):
		p.caReason = "CA renewal due"
	}
	if p.caReason != "" {
		if ca != nil {
			previous = append([]*x509.Certificate{ca.cert}, previous...)
		}
		var keyPEM []byte
		var err error
		if ca, keyPEM, err = newCA(now); err != nil {
			return nil, nil, err
		}
		p.data[CAKeyKey] = keyPEM
	} else {
		p.data[CAKeyKey] = cur[CAKeyKey]
	}
	if len(previous) > maxPreviousCAs {
		p.pruned += len(previous) - maxPreviousCAs
		previous = previous[:maxPreviousCAs]
	}
	p.ca = ca.cert
	p.data[CACertKey] = certgen.EncodeCertificates(append([]*x509.Certificate{ca.cert}, previous...)...)
	return ca, previous, nil
}

// currentCA is the certificate of ca.crt whose key is ca.key, if valid.
func currentCA(bundle []*x509.Certificate, caKey crypto.Signer, now time.Time) *authority {
	for _, c := range bundle {
		if c.IsCA && samePublicKey(c, caKey) && validAt(c, now) {
			return &authority{cert: c, key: caKey}
		}
	}
	return nil
}

// previousCAs are the other CAs of ca.crt, which stay trusted until they
// expire; it counts the ones dropped in p.pruned.
func (p *plan) previousCAs(bundle []*x509.Certificate, ca *authority, now time.Time) []*x509.Certificate {
	var previous []*x509.Certificate
	for _, c := range bundle {
		if (ca != nil && ca.cert.Equal(c)) || containsCert(previous, c) {
			continue
		}
		if c.IsCA && validAt(c, now) {
			previous = append(previous, c)
		} else {
			p.pruned++
		}
	}
	return previous
}

// planServing keeps the stored serving pair or issues a new one under ca.
// During the first step of a CA rotation, previous are the CAs the API
// server still trusts.
func (p *plan) planServing(cur map[string][]byte, now time.Time, sub subject, ca *authority, previous []*x509.Certificate) error {
	leaf, problem := checkServing(cur, now, sub)
	switch {
	case problem != "":
		p.servingReason = problem
	case p.caReason != "":
		// First step of a CA rotation: keep a serving certificate that the
		// API server trusts today, as long as it stays valid long enough;
		// the next call reissues it under the new CA.
		if verifyServing(leaf, previous, now) != nil || leaf.NotAfter.Sub(now) < minKeepDuringRotation {
			p.servingReason = "new CA"
		}
	case verifyServing(leaf, []*x509.Certificate{ca.cert}, now) != nil:
		p.servingReason = "not signed by the current CA"
	case renewalDue(leaf, now):
		p.servingReason = "renewal due"
	}
	if p.servingReason == "" {
		p.data[TLSCertKey], p.data[TLSKeyKey] = cur[TLSCertKey], cur[TLSKeyKey]
		p.serving = leaf
		return nil
	}
	certPEM, keyPEM, err := ca.issue(now, sub.commonName, sub.dnsNames, sub.ips)
	if err != nil {
		return err
	}
	p.data[TLSCertKey], p.data[TLSKeyKey] = certPEM, keyPEM
	if p.serving, err = firstCertificate(certPEM); err != nil {
		return err
	}
	return nil
}

// checkServing parses the stored serving pair and returns its certificate,
// or why it cannot be kept whatever the CA.
func checkServing(cur map[string][]byte, now time.Time, sub subject) (*x509.Certificate, string) {
	if cur[TLSCertKey] == nil && cur[TLSKeyKey] == nil {
		return nil, "no serving certificate"
	}
	certs, err := parseCertificates(cur[TLSCertKey])
	if err != nil {
		return nil, fmt.Sprintf("%s does not parse: %v", TLSCertKey, err)
	}
	if len(certs) != 1 {
		return nil, fmt.Sprintf("%s holds %d certificates", TLSCertKey, len(certs))
	}
	if _, err := tls.X509KeyPair(cur[TLSCertKey], cur[TLSKeyKey]); err != nil {
		return nil, fmt.Sprintf("%s and %s do not form a pair: %v", TLSCertKey, TLSKeyKey, err)
	}
	leaf := certs[0]
	if !validAt(leaf, now) {
		return nil, "outside its validity period"
	}
	if !sameNames(leaf, sub.dnsNames, sub.ips) {
		return nil, "subject alternative names differ"
	}
	return leaf, ""
}

func firstCertificate(data []byte) (*x509.Certificate, error) {
	certs, err := parseCertificates(data)
	if err != nil {
		return nil, err
	}
	return certs[0], nil
}

func containsCert(certs []*x509.Certificate, c *x509.Certificate) bool {
	for _, x := range certs {
		if x.Equal(c) {
			return true
		}
	}
	return false
}
