package webhookcerts

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"slices"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"
	"k8s.io/klog/v2"
)

// Defaults of Options, matching config/.
const (
	DefaultSecretName               = "ogx-controller-webhook-tls"
	DefaultServiceName              = "ogx-k8s-operator-webhook-service"
	DefaultWebhookConfigurationName = "ogx-controller-validating-webhook-configuration"
	DefaultClusterDomain            = "cluster.local"

	// DefaultInterval is the period of RunLeader and RunReplica.
	DefaultInterval = time.Minute

	// FieldManager is the field manager of every write.
	FieldManager = "ogx-controller"

	// ManagedByLabel marks the Secret as ogx-controller's.
	ManagedByLabel = "app.kubernetes.io/managed-by"

	// CertManagerAnnotation marks a Secret that cert-manager issues.
	CertManagerAnnotation = "cert-manager.io/certificate-name"

	// firstFilesDelay is RunReplica's first retry delay while no serving
	// pair has been written yet; it doubles up to the loop interval.
	firstFilesDelay = time.Second
)

// ErrExternallyManaged is returned (wrapped) by EnsureSecret and
// SyncCABundle when the Secret carries CertManagerAnnotation: its
// certificates belong to cert-manager, so ogx-controller writes nothing.
// Switch self-management off instead.
var ErrExternallyManaged = errors.New("the Secret is issued by cert-manager; ogx-controller leaves it alone")

// Options configures New.
type Options struct {
	// Kube is the client; required.
	Kube kubernetes.Interface
	// Namespace is the operator namespace, where the Secret and the
	// webhook Service live; required.
	Namespace string
	// SecretName defaults to DefaultSecretName.
	SecretName string
	// ServiceName is the webhook Service, whose DNS names the serving
	// certificate carries; defaults to DefaultServiceName.
	ServiceName string
	// ClusterDomain is the cluster DNS suffix; defaults to
	// DefaultClusterDomain.
	ClusterDomain string
	// WebhookConfigurationName is the ValidatingWebhookConfiguration whose
	// caBundle SyncCABundle keeps; defaults to
	// DefaultWebhookConfigurationName.
	WebhookConfigurationName string
	// CertDir is where WriteFiles puts tls.crt and tls.key (the admission
	// server's certificate directory); required by WriteFiles only.
	CertDir string
	// ExtraIPs are added to the serving certificate as IP SANs (tests on
	// loopback, webhooks called by URL).
	ExtraIPs []net.IP
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Manager keeps the webhook certificates; see the package documentation.
// Its methods are safe for concurrent use.
type Manager struct {
	opts Options
	sub  subject

	// Whether the last look found the Secret or the webhook configuration
	// missing, so that the condition is logged once, not every interval.
	secretMissing, configMissing atomic.Bool
}

// New checks opts, applies the defaults and returns a Manager.
func New(opts Options) (*Manager, error) {
	if opts.Kube == nil {
		return nil, errors.New("webhookcerts: a Kubernetes client is required")
	}
	if opts.Namespace == "" {
		return nil, errors.New("webhookcerts: a namespace is required")
	}
	if opts.SecretName == "" {
		opts.SecretName = DefaultSecretName
	}
	if opts.ServiceName == "" {
		opts.ServiceName = DefaultServiceName
	}
	if opts.ClusterDomain == "" {
		opts.ClusterDomain = DefaultClusterDomain
	}
	if opts.WebhookConfigurationName == "" {
		opts.WebhookConfigurationName = DefaultWebhookConfigurationName
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	opts.ExtraIPs = slices.Clone(opts.ExtraIPs)
	svc := opts.ServiceName + "." + opts.Namespace + ".svc"
	return &Manager{opts: opts, sub: subject{
		commonName: svc,
		dnsNames:   []string{opts.ServiceName, opts.ServiceName + "." + opts.Namespace, svc, svc + "." + opts.ClusterDomain},
		ips:        opts.ExtraIPs,
	}}, nil
}

// DNSNames returns the DNS names the serving certificate carries.
func (m *Manager) DNSNames() []string { return slices.Clone(m.sub.dnsNames) }

func (m *Manager) secretRef() klog.ObjectRef { return klog.KRef(m.opts.Namespace, m.opts.SecretName) }

// EnsureSecret makes the Secret hold a valid CA and serving certificate,
// creating, renewing or repairing them as needed, and reports whether it
// wrote. A Secret that is already fine is not written. Only the leader
// calls it. A write that races another writer is retried on a fresh read.
func (m *Manager) EnsureSecret(ctx context.Context) (bool, error) {
	var changed bool
	err := retry.OnError(retry.DefaultRetry, func(err error) bool {
		return apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err)
	}, func() error {
		var err error
		changed, err = m.ensureSecret(ctx)
		return err
	})
	if err != nil {
		return false, fmt.Errorf("webhookcerts: ensuring Secret %s: %w", m.secretRef(), err)
	}
	return changed, nil
}

func (m *Manager) ensureSecret(ctx context.Context) (bool, error) {
	logger := klog.FromContext(ctx)
	api := m.opts.Kube.CoreV1().Secrets(m.opts.Namespace)
	cur, err := api.Get(ctx, m.opts.SecretName, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		cur = nil
	case err != nil:
		return false, fmt.Errorf("reading: %w", err)
	case cur.Annotations[CertManagerAnnotation] != "":
		return false, ErrExternallyManaged
	}
	var data map[string][]byte
	if cur != nil {
		data = cur.Data
	}
	p, err := makePlan(data, m.opts.Now(), m.sub)
	if err != nil {
		return false, err
	}
	if cur != nil && !p.changed(data) {
		logger.V(4).Info("Webhook certificate Secret is current", "secret", m.secretRef())
		return false, nil
	}

	if cur == nil {
		_, err = api.Create(ctx, &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: m.opts.SecretName, Namespace: m.opts.Namespace,
				Labels: map[string]string{ManagedByLabel: FieldManager}},
			Type: corev1.SecretTypeTLS,
			Data: p.data,
		}, metav1.CreateOptions{FieldManager: FieldManager})
		if err != nil {
			return false, fmt.Errorf("creating: %w", err)
		}
	} else {
		// A merge patch of the four keys; the resourceVersion makes it
		// fail with a conflict if the Secret changed since it was read.
		meta := map[string]any{"labels": map[string]string{ManagedByLabel: FieldManager}}
		if cur.ResourceVersion != "" {
			meta["resourceVersion"] = cur.ResourceVersion
		}
		body, err := json.Marshal(map[string]any{"metadata": meta, "data": p.data})
		if err != nil {
			return false, fmt.Errorf("encoding patch: %w", err)
		}
		if _, err := api.Patch(ctx, m.opts.SecretName, types.MergePatchType, body,
			metav1.PatchOptions{FieldManager: FieldManager}); err != nil {
			return false, fmt.Errorf("patching: %w", err)
		}
	}
	bundle, _ := parseCertificates(p.data[CACertKey])
	logger.Info("Wrote the webhook certificate Secret", "secret", m.secretRef(), "created", cur == nil,
		"caReason", p.caReason, "servingReason", p.servingReason,
		"ca", p.ca.Subject.CommonName, "caNotAfter", p.ca.NotAfter.UTC().Format(time.RFC3339),
		"trustedCAs", len(bundle), "prunedCAs", p.pruned,
		"servingSerial", p.serving.SerialNumber.String(), "servingNotAfter", p.serving.NotAfter.UTC().Format(time.RFC3339))
	return true, nil
}

// SyncCABundle sets clientConfig.caBundle of every webhook of the
// ValidatingWebhookConfiguration to the Secret's ca.crt and reports whether
// it wrote. Webhooks that already carry it are not touched. A missing
// Secret or configuration is not an error: it is logged and the next call
// tries again. Only the leader calls it.
func (m *Manager) SyncCABundle(ctx context.Context) (bool, error) {
	logger := klog.FromContext(ctx)
	sec, err := m.opts.Kube.CoreV1().Secrets(m.opts.Namespace).Get(ctx, m.opts.SecretName, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		logger.V(2).Info("No webhook certificate Secret yet; the caBundle waits", "secret", m.secretRef())
		return false, nil
	case err != nil:
		return false, fmt.Errorf("webhookcerts: reading Secret %s: %w", m.secretRef(), err)
	case sec.Annotations[CertManagerAnnotation] != "":
		return false, fmt.Errorf("webhookcerts: Secret %s: %w", m.secretRef(), ErrExternallyManaged)
	}
	bundle := sec.Data[CACertKey]
	if _, err := parseCertificates(bundle); err != nil {
		return false, fmt.Errorf("webhookcerts: %s of Secret %s: %w", CACertKey, m.secretRef(), err)
	}

	name := m.opts.WebhookConfigurationName
	api := m.opts.Kube.AdmissionregistrationV1().ValidatingWebhookConfigurations()
	var changed bool
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		changed = false
		vwc, err := api.Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			if !m.configMissing.Swap(true) {
				logger.Info("ValidatingWebhookConfiguration not found; its caBundle is set once it exists",
					"configuration", name)
			}
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading: %w", err)
		}
		m.configMissing.Store(false)
		var patched []map[string]any
		var names []string
		for _, wh := range vwc.Webhooks {
			if !bytes.Equal(wh.ClientConfig.CABundle, bundle) {
				patched = append(patched, map[string]any{"name": wh.Name, "clientConfig": map[string]any{"caBundle": bundle}})
				names = append(names, wh.Name)
			}
		}
		if len(patched) == 0 {
			logger.V(4).Info("Webhook caBundle is current", "configuration", name)
			return nil
		}
		// A strategic merge patch: webhooks merge by name, so only the
		// caBundle of the listed entries changes.
		meta := map[string]any{}
		if vwc.ResourceVersion != "" {
			meta["resourceVersion"] = vwc.ResourceVersion
		}
		body, err := json.Marshal(map[string]any{"metadata": meta, "webhooks": patched})
		if err != nil {
			return fmt.Errorf("encoding patch: %w", err)
		}
		if _, err := api.Patch(ctx, name, types.StrategicMergePatchType, body,
			metav1.PatchOptions{FieldManager: FieldManager}); err != nil {
			return fmt.Errorf("patching: %w", err)
		}
		changed = true
		logger.Info("Updated the webhook caBundle", "configuration", name, "webhooks", names)
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("webhookcerts: syncing the caBundle of ValidatingWebhookConfiguration %s: %w", name, err)
	}
	return changed, nil
}

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

// RunLeader runs EnsureSecret and then SyncCABundle every interval
// (DefaultInterval if ≤ 0) until ctx is done. Errors are logged.
func (m *Manager) RunLeader(ctx context.Context, interval time.Duration) {
	if interval <= 0 {
		interval = DefaultInterval
	}
	logger := klog.FromContext(ctx).WithName("webhookcerts")
	ctx = klog.NewContext(ctx, logger)
	logger.Info("Managing the webhook certificates", "secret", m.secretRef(),
		"configuration", m.opts.WebhookConfigurationName, "dnsNames", m.sub.dnsNames, "interval", interval)
	var external bool
	wait.UntilWithContext(ctx, func(ctx context.Context) {
		_, err := m.EnsureSecret(ctx)
		if errors.Is(err, ErrExternallyManaged) {
			// Someone else's Secret: neither it nor the caBundle is ours.
			if !external {
				logger.Info("The webhook certificate Secret is issued by cert-manager; leaving it and the caBundle alone",
					"secret", m.secretRef())
				external = true
			}
			return
		}
		external = false
		if err != nil {
			logger.Error(err, "Could not ensure the webhook certificates")
		}
		if _, err := m.SyncCABundle(ctx); err != nil {
			logger.Error(err, "Could not sync the webhook caBundle")
		}
	}, interval)
}

// RunReplica runs WriteFiles until ctx is done: every interval
// (DefaultInterval if ≤ 0), and more often at first, until the serving pair
// is on disk for the first time, so that a new replica gets ready soon
// after the leader created the Secret. Errors are logged.
func (m *Manager) RunReplica(ctx context.Context, interval time.Duration) {
	if interval <= 0 {
		interval = DefaultInterval
	}
	logger := klog.FromContext(ctx).WithName("webhookcerts")
	ctx = klog.NewContext(ctx, logger)
	delay := min(firstFilesDelay, interval)
	for {
		_, present, err := m.writeFiles(ctx)
		if err != nil {
			logger.Error(err, "Could not write the serving certificate files")
		}
		if present {
			break
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		delay = min(2*delay, interval)
	}
	// The pair was just checked; the steady loop starts one interval on.
	t := time.NewTimer(interval)
	select {
	case <-ctx.Done():
		t.Stop()
		return
	case <-t.C:
	}
	wait.UntilWithContext(ctx, func(ctx context.Context) {
		if _, err := m.WriteFiles(ctx); err != nil {
			logger.Error(err, "Could not write the serving certificate files")
		}
	}, interval)
}
