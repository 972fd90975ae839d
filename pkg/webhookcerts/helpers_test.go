package webhookcerts

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/tls"
	"crypto/x509"
	"net"
	"sync"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/klog/v2/ktesting"
)

const (
	testNS  = "ogx-system"
	testSvc = DefaultServiceName
)

// start is the fake clock's origin.
var start = time.Date(2030, time.January, 1, 0, 0, 0, 0, time.UTC)

// clock is a settable clock for Options.Now.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: start} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

// fixture is a Manager on a fake clientset with a fake clock.
type fixture struct {
	// ctx logs through t.
	ctx   context.Context
	kube  *fake.Clientset
	clock *clock
	m     *Manager
	dir   string
}

func newFixture(t *testing.T, objects ...any) *fixture {
	t.Helper()
	_, ctx := ktesting.NewTestContext(t)
	kube := fake.NewClientset()
	for _, o := range objects {
		var err error
		switch o := o.(type) {
		case *corev1.Secret:
			_, err = kube.CoreV1().Secrets(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
		case *admissionregistrationv1.ValidatingWebhookConfiguration:
			_, err = kube.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx, o, metav1.CreateOptions{})
		default:
			t.Fatalf("unexpected object %T", o)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	f := &fixture{ctx: ctx, kube: kube, clock: newClock(), dir: t.TempDir()}
	f.m = f.manager(t, Options{})
	kube.ClearActions()
	return f
}

// manager returns a Manager on the fixture's client and clock; opts
// overrides the defaults.
func (f *fixture) manager(t *testing.T, opts Options) *Manager {
	t.Helper()
	opts.Kube = f.kube
	if opts.Namespace == "" {
		opts.Namespace = testNS
	}
	if opts.CertDir == "" {
		opts.CertDir = f.dir
	}
	opts.Now = f.clock.Now
	m, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// writes returns the mutating actions recorded since the last ClearActions.
func (f *fixture) writes() []k8stesting.Action {
	var out []k8stesting.Action
	for _, a := range f.kube.Actions() {
		switch a.GetVerb() {
		case "get", "list", "watch":
		default:
			out = append(out, a)
		}
	}
	return out
}

func (f *fixture) secret(t *testing.T) *corev1.Secret {
	t.Helper()
	s, err := f.kube.CoreV1().Secrets(testNS).Get(f.ctx, DefaultSecretName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (f *fixture) ensure(t *testing.T, wantChanged bool) *corev1.Secret {
	t.Helper()
	changed, err := f.m.EnsureSecret(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if changed != wantChanged {
		t.Fatalf("EnsureSecret changed = %v, want %v", changed, wantChanged)
	}
	return f.secret(t)
}

// expectNoWrites fails if any write was recorded since the last
// ClearActions.
func (f *fixture) expectNoWrites(t *testing.T) {
	t.Helper()
	if w := f.writes(); len(w) > 0 {
		t.Fatalf("unexpected writes: %v", w)
	}
}

// parsed is a Secret's certificates, decoded.
type parsed struct {
	cas     []*x509.Certificate
	caKey   *ecdsa.PrivateKey
	serving *x509.Certificate
}

func parseSecret(t *testing.T, data map[string][]byte) parsed {
	t.Helper()
	var p parsed
	var err error
	if p.cas, err = parseCertificates(data[CACertKey]); err != nil {
		t.Fatalf("ca.crt: %v", err)
	}
	key, err := parsePrivateKey(data[CAKeyKey])
	if err != nil {
		t.Fatalf("ca.key: %v", err)
	}
	var ok bool
	if p.caKey, ok = key.(*ecdsa.PrivateKey); !ok || p.caKey.Curve != elliptic.P256() {
		t.Fatalf("ca.key is %T, want an ECDSA P-256 key", key)
	}
	pair, err := tls.X509KeyPair(data[TLSCertKey], data[TLSKeyKey])
	if err != nil {
		t.Fatalf("tls.crt/tls.key: %v", err)
	}
	if p.serving, err = x509.ParseCertificate(pair.Certificate[0]); err != nil {
		t.Fatal(err)
	}
	if k, ok := pair.PrivateKey.(*ecdsa.PrivateKey); !ok || k.Curve != elliptic.P256() {
		t.Fatalf("tls.key is %T, want an ECDSA P-256 key", pair.PrivateKey)
	}
	return p
}

// current is the CA whose key is ca.key.
func (p parsed) current(t *testing.T) *x509.Certificate {
	t.Helper()
	for _, c := range p.cas {
		if samePublicKey(c, p.caKey) {
			return c
		}
	}
	t.Fatal("no certificate of ca.crt matches ca.key")
	return nil
}

// verifyChain checks that the serving certificate verifies against the
// given PEM bundle at now for every DNS name of the Service and the extra
// IPs.
func verifyChain(t *testing.T, data map[string][]byte, bundle []byte, now time.Time, extraIPs ...net.IP) {
	t.Helper()
	p := parseSecret(t, data)
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(bundle) {
		t.Fatal("bundle holds no certificate")
	}
	names := []string{testSvc, testSvc + "." + testNS, testSvc + "." + testNS + ".svc", testSvc + "." + testNS + ".svc.cluster.local"}
	for _, ip := range extraIPs {
		names = append(names, ip.String())
	}
	for _, name := range names {
		if _, err := p.serving.Verify(x509.VerifyOptions{DNSName: name, Roots: pool, CurrentTime: now,
			KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}); err != nil {
			t.Fatalf("serving certificate does not verify for %s at %s: %v", name, now, err)
		}
	}
}

// webhookConfiguration is a configuration with two webhooks and no caBundle.
func webhookConfiguration() *admissionregistrationv1.ValidatingWebhookConfiguration {
	path := "/validate-ogx-io-v1beta1-ogxserver"
	none := admissionregistrationv1.SideEffectClassNone
	wh := func(name string) admissionregistrationv1.ValidatingWebhook {
		return admissionregistrationv1.ValidatingWebhook{
			Name:                    name,
			AdmissionReviewVersions: []string{"v1"},
			SideEffects:             &none,
			ClientConfig: admissionregistrationv1.WebhookClientConfig{
				Service: &admissionregistrationv1.ServiceReference{Namespace: testNS, Name: testSvc, Path: &path},
			},
		}
	}
	return &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: DefaultWebhookConfigurationName},
		Webhooks:   []admissionregistrationv1.ValidatingWebhook{wh("a.ogx.io"), wh("b.ogx.io")},
	}
}

func (f *fixture) webhookConfiguration(t *testing.T) *admissionregistrationv1.ValidatingWebhookConfiguration {
	t.Helper()
	vwc, err := f.kube.AdmissionregistrationV1().ValidatingWebhookConfigurations().Get(f.ctx, DefaultWebhookConfigurationName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return vwc
}

// years is n years of 365 days.
func years(n float64) time.Duration { return time.Duration(n * float64(365*24*time.Hour)) }
