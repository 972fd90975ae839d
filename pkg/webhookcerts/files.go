package webhookcerts

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
)

// WriteFiles copies tls.crt and tls.key from the Secret into CertDir,
// replacing each file atomically and only when its content differs, and
// reports whether it wrote. A missing Secret leaves the files as they are.
// Every replica calls it.
func (m *Manager) WriteFiles(ctx context.Context) (bool, error) {
	changed, _, err := m.writeFiles(ctx)
	return changed, err
}

// writeFiles is WriteFiles; present reports whether the Secret's pair is
// on disk afterwards.
func (m *Manager) writeFiles(ctx context.Context) (changed, present bool, err error) {
	logger := klog.FromContext(ctx)
	if m.opts.CertDir == "" {
		return false, false, errors.New("webhookcerts: no certificate directory")
	}
	sec, err := m.opts.Kube.CoreV1().Secrets(m.opts.Namespace).Get(ctx, m.opts.SecretName, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		if !m.secretMissing.Swap(true) {
			logger.Info("Webhook certificate Secret not found (the leader creates it); certificate files left as they are",
				"secret", m.secretRef(), "certDir", m.opts.CertDir)
		}
		return false, false, nil
	}
	if err != nil {
		return false, false, fmt.Errorf("webhookcerts: reading Secret %s: %w", m.secretRef(), err)
	}
	m.secretMissing.Store(false)
	certPEM, keyPEM := sec.Data[TLSCertKey], sec.Data[TLSKeyKey]
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return false, false, fmt.Errorf("webhookcerts: Secret %s holds no valid serving pair: %w", m.secretRef(), err)
	}
	// The key first: a reader seeing the new certificate then finds its key.
	keyChanged, err := writeFileIfChanged(m.opts.CertDir, TLSKeyKey, keyPEM, 0o600)
	if err != nil {
		return false, false, fmt.Errorf("webhookcerts: %w", err)
	}
	certChanged, err := writeFileIfChanged(m.opts.CertDir, TLSCertKey, certPEM, 0o644)
	if err != nil {
		return keyChanged, false, fmt.Errorf("webhookcerts: %w", err)
	}
	changed = keyChanged || certChanged
	if changed {
		leaf, perr := x509.ParseCertificate(pair.Certificate[0])
		if perr == nil {
			logger.Info("Wrote the serving certificate files", "certDir", m.opts.CertDir,
				"serial", leaf.SerialNumber.String(), "notAfter", leaf.NotAfter.UTC().Format(time.RFC3339))
		}
	}
	return changed, true, nil
}

// writeFileIfChanged replaces dir/name with data unless it already holds
// exactly that. The new content goes to a temporary file in dir, is synced
// and then renamed over the old file, so a reader sees the old or the new
// content, never a partial one. It reports whether it wrote.
func writeFileIfChanged(dir, name string, data []byte, perm os.FileMode) (written bool, err error) {
	path := filepath.Join(dir, name)
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		return false, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, fmt.Errorf("creating certificate directory: %w", err)
	}
	f, err := os.CreateTemp(dir, "."+name+".tmp-*")
	if err != nil {
		return false, fmt.Errorf("writing %s: %w", path, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			_ = os.Remove(tmp)
		}
	}()
	if err = f.Chmod(perm); err == nil {
		_, err = f.Write(data)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return false, fmt.Errorf("writing %s: %w", tmp, err)
	}
	if err = os.Rename(tmp, path); err != nil {
		return false, fmt.Errorf("replacing %s: %w", path, err)
	}
	return true, nil
}
