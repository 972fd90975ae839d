package webhookcerts

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"time"

	corev1 "k8s.io/api/core/v1"
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

	// The CA: the certificate of ca.crt whose key is ca.key, if valid.
	bundle, bundleErr := parseCertificates(cur[CACertKey])
	caKey, caKeyErr := parsePrivateKey(cur[CAKeyKey])
	var ca *authority
	if bundleErr == nil && caKeyErr == nil {
		for _, c := range bundle {
			if c.IsCA && samePublicKey(c, caKey) && validAt(c, now) {
				ca = &authority{cert: c, key: caKey}
				break
			}
		}
	}
	// Earlier CAs stay trusted until they expire.
	var previous []*x509.Certificate
	if bundleErr == nil {
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
			return nil, err
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
	p.data[CACertKey] = encodeCertificates(append([]*x509.Certificate{ca.cert}, previous...))

	// The serving certificate.
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
		return p, nil
	}
	certPEM, keyPEM, err := ca.issue(now, sub.commonName, sub.dnsNames, sub.ips)
	if err != nil {
		return nil, err
	}
	p.data[TLSCertKey], p.data[TLSKeyKey] = certPEM, keyPEM
	if p.serving, err = firstCertificate(certPEM); err != nil {
		return nil, err
	}
	return p, nil
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
