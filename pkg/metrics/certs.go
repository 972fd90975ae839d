package metrics

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/klog/v2"
)

const (
	// CertFileName and KeyFileName are the names of the serving pair in
	// Options.CertDir (the keys of a kubernetes.io/tls Secret).
	CertFileName = "tls.crt"
	KeyFileName  = "tls.key"

	// DefaultCertReloadInterval is how often the files in Options.CertDir
	// are re-read; the spec asks for at least every 10 s.
	DefaultCertReloadInterval = 5 * time.Second

	// selfSignedValidity is the lifetime of the in-memory certificate. Its
	// clients cannot verify it anyway (nothing else knows it), so this only
	// needs to outlast the process comfortably.
	selfSignedValidity = 365 * 24 * time.Hour
)

// errNoCertificate fails TLS handshakes while no pair has been loaded.
var errNoCertificate = errors.New("metrics: no serving certificate loaded")

// selfSignedCommonName is the subject of the in-memory certificate.
const selfSignedCommonName = "ogx-controller-metrics"

// selfSignedCertificate makes an ECDSA P-256 certificate for localhost, the
// loopback addresses and the host name, signed by its own key, valid from an
// hour before now.
func selfSignedCertificate(now time.Time, commonName string) (*tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generating a key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		return nil, fmt.Errorf("generating a serial number: %w", err)
	}
	dnsNames := []string{"localhost"}
	if host, err := os.Hostname(); err == nil && host != "" && host != "localhost" {
		dnsNames = append(dnsNames, host)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: commonName},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(selfSignedValidity),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		DNSNames:              dnsNames,
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return nil, fmt.Errorf("signing the certificate: %w", err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, nil
}

// fileCertificate serves a pair read from two files and polls them for
// changes. It compares contents, so in-place writes, renames and the
// kubelet's symlink swap of a Secret volume are all seen. A pair that cannot
// be read or parsed is logged (once per distinct content) and the previous
// one stays in use.
type fileCertificate struct {
	certFile, keyFile string
	interval          time.Duration

	current atomic.Pointer[tls.Certificate]

	mu sync.Mutex // guards the fields below
	// seen says seenCert and seenKey hold the contents of the last
	// successful read of both files.
	seen              bool
	seenCert, seenKey []byte
	// seenErr is the last error logged, "" after a successful load.
	seenErr string
}

func newFileCertificate(certFile, keyFile string, interval time.Duration) *fileCertificate {
	if interval <= 0 {
		interval = DefaultCertReloadInterval
	}
	return &fileCertificate{certFile: certFile, keyFile: keyFile, interval: interval}
}

// reload reads both files and swaps in their pair when the contents changed
// and are valid. It returns the problem with the current contents, if any.
func (f *fileCertificate) reload(logger klog.Logger) error {
	certPEM, errCert := os.ReadFile(f.certFile)
	keyPEM, errKey := os.ReadFile(f.keyFile)

	f.mu.Lock()
	defer f.mu.Unlock()
	if err := errors.Join(errCert, errKey); err != nil {
		err = fmt.Errorf("reading the metrics serving certificate: %w", err)
		f.seen, f.seenCert, f.seenKey = false, nil, nil
		f.report(logger, err)
		return err
	}
	if f.seen && bytes.Equal(certPEM, f.seenCert) && bytes.Equal(keyPEM, f.seenKey) {
		if f.seenErr != "" {
			return errors.New(f.seenErr)
		}
		return nil
	}
	f.seen, f.seenCert, f.seenKey = true, certPEM, keyPEM

	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err == nil {
		pair.Leaf, err = x509.ParseCertificate(pair.Certificate[0])
	}
	if err != nil {
		err = fmt.Errorf("loading the metrics serving certificate from %s and %s: %w", f.certFile, f.keyFile, err)
		f.report(logger, err)
		return err
	}
	f.seenErr = ""
	previous := f.current.Swap(&pair)
	logger.Info("Loaded metrics serving certificate", "certFile", f.certFile, "replaced", previous != nil,
		"subject", pair.Leaf.Subject.String(), "notAfter", pair.Leaf.NotAfter.UTC().Format(time.RFC3339))
	return nil
}

// report logs err unless the same error was the last one logged. Called
// with f.mu held.
func (f *fileCertificate) report(logger klog.Logger, err error) {
	if err.Error() == f.seenErr {
		return
	}
	f.seenErr = err.Error()
	msg := "Keeping the previous metrics serving certificate"
	if f.current.Load() == nil {
		msg = "No metrics serving certificate loaded; TLS handshakes fail until a valid pair appears"
	}
	logger.Error(err, msg)
}

// poll reloads every interval until ctx is done.
func (f *fileCertificate) poll(ctx context.Context, logger klog.Logger) {
	t := time.NewTicker(f.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			_ = f.reload(logger)
		}
	}
}

// getCertificate is the tls.Config callback.
func (f *fileCertificate) getCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	if c := f.current.Load(); c != nil {
		return c, nil
	}
	return nil, errNoCertificate
}
