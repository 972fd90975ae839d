package admission

import (
	"time"

	"github.com/ogx-k8s/ogx-controller/pkg/tlsserve"
)

const (
	// CertFileName and KeyFileName are the serving pair's file names in a
	// certificate directory (the keys of a kubernetes.io/tls Secret).
	CertFileName = tlsserve.CertFileName
	KeyFileName  = tlsserve.KeyFileName

	// DefaultReloadInterval is how often a CertReloader re-reads its files.
	// The spec requires at least every 10 s.
	DefaultReloadInterval = tlsserve.DefaultReloadInterval
)

// ErrNoCertificate is returned to TLS handshakes while no serving
// certificate has been loaded yet.
var ErrNoCertificate = tlsserve.ErrNoCertificate

// CertReloader serves a certificate/key pair read from two files and
// re-reads them; it is shared with the metrics server, hence defined in
// tlsserve (see tlsserve.CertReloader).
type CertReloader = tlsserve.CertReloader

// NewCertReloader returns a reloader for the given files, polled every
// interval (DefaultReloadInterval when interval ≤ 0). Nothing is read until
// Load or Run is called.
func NewCertReloader(certFile, keyFile string, interval time.Duration) *CertReloader {
	return tlsserve.NewCertReloader(certFile, keyFile, interval)
}
