package webhookcerts

import (
	"context"
	"errors"
	"net"
	"slices"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
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
