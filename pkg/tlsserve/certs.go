package tlsserve

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/klog/v2"
)

const (
	// CertFileName and KeyFileName are the serving pair's file names in a
	// certificate directory (the keys of a kubernetes.io/tls Secret).
	CertFileName = "tls.crt"
	KeyFileName  = "tls.key"

	// DefaultReloadInterval is how often a CertReloader re-reads its files.
	// The spec requires at least every 10 s.
	DefaultReloadInterval = 5 * time.Second
)

// ErrNoCertificate is returned to TLS handshakes while no serving
// certificate has been loaded yet.
var ErrNoCertificate = errors.New("no serving certificate loaded")

// CertReloader serves a certificate/key pair read from two files and
// re-reads them periodically. It compares file contents rather than
// modification times or inotify events, so it sees every kind of update:
// in-place writes, renames and the symlink swap a kubelet does when a Secret
// volume changes. A pair that cannot be read or does not parse (for example
// a certificate already replaced while its key is not yet) is logged and
// ignored; the previous pair stays in use until a valid one appears.
//
// GetCertificate plugs it into tls.Config; new handshakes see a new pair at
// once, established connections keep theirs.
type CertReloader struct {
	certFile, keyFile string
	interval          time.Duration

	cert atomic.Pointer[tls.Certificate]

	// mu guards the contents last tried, so an unchanged (possibly broken)
	// pair is neither re-parsed nor re-logged on every poll.
	mu                sync.Mutex
	lastCert, lastKey []byte
	lastErr           error
	triedOnce         bool
}

// NewCertReloader returns a reloader for the given files, polled every
// interval (DefaultReloadInterval when interval ≤ 0). Nothing is read until
// Load or Run is called.
func NewCertReloader(certFile, keyFile string, interval time.Duration) *CertReloader {
	if interval <= 0 {
		interval = DefaultReloadInterval
	}
	return &CertReloader{certFile: certFile, keyFile: keyFile, interval: interval}
}

// Load reads the files once and, if their contents changed since the last
// attempt and form a valid pair, makes them the served pair. It returns the
// error of the current contents (nil when they are loaded), so a caller can
// report a missing certificate at start-up; the error is logged only when
// the contents change.
func (c *CertReloader) Load(ctx context.Context) error {
	logger := klog.FromContext(ctx)
	certPEM, certErr := os.ReadFile(c.certFile)
	keyPEM, keyErr := os.ReadFile(c.keyFile)

	c.mu.Lock()
	defer c.mu.Unlock()
	if err := errors.Join(certErr, keyErr); err != nil {
		err = fmt.Errorf("reading serving certificate: %w", err)
		if !c.triedOnce || c.lastErr == nil || c.lastErr.Error() != err.Error() {
			logger.Error(err, c.keepMessage())
		}
		c.triedOnce = true
		c.lastCert, c.lastKey, c.lastErr = nil, nil, err
		return err
	}
	if c.triedOnce && bytes.Equal(certPEM, c.lastCert) && bytes.Equal(keyPEM, c.lastKey) {
		return c.lastErr
	}
	c.triedOnce = true
	c.lastCert, c.lastKey = certPEM, keyPEM

	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err == nil && pair.Leaf == nil {
		pair.Leaf, err = x509.ParseCertificate(pair.Certificate[0])
	}
	if err != nil {
		c.lastErr = fmt.Errorf("loading serving certificate from %s and %s: %w", c.certFile, c.keyFile, err)
		logger.Error(c.lastErr, c.keepMessage())
		return c.lastErr
	}
	c.lastErr = nil
	old := c.cert.Swap(&pair)
	logger.Info("Loaded serving certificate", "certFile", c.certFile, "replaced", old != nil,
		"subject", pair.Leaf.Subject.String(), "serial", pair.Leaf.SerialNumber.String(),
		"dnsNames", pair.Leaf.DNSNames, "notAfter", pair.Leaf.NotAfter.UTC().Format(time.RFC3339))
	if now := time.Now(); now.After(pair.Leaf.NotAfter) {
		logger.Error(nil, "Serving certificate has expired", "notAfter", pair.Leaf.NotAfter)
	}
	return nil
}

func (c *CertReloader) keepMessage() string {
	if c.cert.Load() == nil {
		return "No serving certificate loaded yet; TLS handshakes fail until a valid pair appears"
	}
	return "Keeping the previous serving certificate"
}

// Run calls Load every interval until ctx is done. It loads once at once.
func (c *CertReloader) Run(ctx context.Context) {
	_ = c.Load(ctx)
	c.poll(ctx)
}

// poll re-reads the certificate every interval until ctx is done.
func (c *CertReloader) poll(ctx context.Context) {
	t := time.NewTicker(c.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			_ = c.Load(ctx)
		}
	}
}

// GetCertificate returns the current pair; it is a tls.Config
// GetCertificate callback.
func (c *CertReloader) GetCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	if cert := c.cert.Load(); cert != nil {
		return cert, nil
	}
	return nil, ErrNoCertificate
}

// Certificate returns the leaf of the current pair, or nil before the first
// successful load.
func (c *CertReloader) Certificate() *x509.Certificate {
	if cert := c.cert.Load(); cert != nil {
		return cert.Leaf
	}
	return nil
}

// Ready reports whether a pair has been loaded.
func (c *CertReloader) Ready() bool { return c.cert.Load() != nil }
