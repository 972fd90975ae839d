package metrics

import (
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/ogx-k8s/ogx-controller/pkg/certgen"
)

const (
	// selfSignedValidity is the lifetime of the in-memory certificate. Its
	// clients cannot verify it anyway (nothing else knows it), so this only
	// needs to outlast the process comfortably.
	selfSignedValidity = 365 * 24 * time.Hour
)

// selfSignedCommonName is the subject of the in-memory certificate.
const selfSignedCommonName = "ogx-controller-metrics"

// selfSignedCertificate makes an ECDSA P-256 certificate for localhost, the
// loopback addresses and the host name, signed by its own key, valid from an
// hour before now.
func selfSignedCertificate(now time.Time, commonName string) (*tls.Certificate, error) {
	dnsNames := []string{"localhost"}
	if host, err := os.Hostname(); err == nil && host != "" && host != "localhost" {
		dnsNames = append(dnsNames, host)
	}
	pair, err := certgen.Sign(x509.Certificate{
		Subject:               pkix.Name{CommonName: commonName},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(selfSignedValidity),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		DNSNames:              dnsNames,
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}, nil)
	if err != nil {
		return nil, fmt.Errorf("making the self-signed metrics certificate: %w", err)
	}
	return pair.TLSCertificate(), nil
}
