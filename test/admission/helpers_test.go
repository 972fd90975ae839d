package admission

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2/ktesting"
	"sigs.k8s.io/yaml"

	"github.com/ogx-k8s/ogx-controller/pkg/admission"
	"github.com/ogx-k8s/ogx-controller/pkg/admission/admissiontest"
	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	ogxclient "github.com/ogx-k8s/ogx-controller/pkg/generated/clientset/versioned/typed/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/testcerts"
)

const (
	// deniedPrefix is how the API server introduces our denials.
	deniedPrefix = `admission webhook "vogxserver.kb.io" denied the request: `
	// failedCall is how the API server reports a webhook it could not call.
	failedCall = `failed calling webhook "vogxserver.kb.io"`

	pollInterval = 100 * time.Millisecond
	pollTimeout  = 30 * time.Second
)

// env is one test's webhook: a namespace, an admission server on a free
// loopback port with its own CA, and (after register) a webhook
// configuration sending that namespace's OGXServer writes to the server.
type env struct {
	ns      string
	certDir string
	ca      *testcerts.CA
	server  *admission.Server
	servers ogxclient.OGXServerInterface
}

// newEnv creates the namespace and starts the server; the server is shut
// down when the test ends.
func newEnv(t *testing.T) *env {
	t.Helper()
	e := &env{ns: cp.CreateNamespace(t, "adm"), certDir: filepath.Join(t.TempDir(), "admission-tls")}
	e.servers = ogx.OgxV1beta1().OGXServers(e.ns)
	var err error
	if e.ca, err = testcerts.NewCA("ogx-admission-test-ca"); err != nil {
		t.Fatal(err)
	}
	e.rotate(t)
	e.server, err = admission.NewServer(admission.ServerOptions{
		Addr:           "127.0.0.1:0",
		CertDir:        e.certDir,
		ReloadInterval: 200 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	_, ctx := ktesting.NewTestContext(t)
	if err := e.server.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := e.server.Shutdown(context.Background()); err != nil {
			t.Errorf("shutting down the admission server: %v", err)
		}
	})
	if !e.server.Ready() {
		t.Fatal("admission server not ready after start")
	}
	return e
}

// rotate writes a new serving pair for 127.0.0.1 signed by the env's CA into
// the certificate directory, as a Secret volume update, and returns it.
func (e *env) rotate(t *testing.T) *testcerts.Pair {
	t.Helper()
	pair, err := e.ca.Issue(testcerts.Leaf{CommonName: "ogx-admission-test", IPs: []net.IP{net.IPv4(127, 0, 0, 1)}})
	if err != nil {
		t.Fatal(err)
	}
	if err := admissiontest.WriteSecretVolume(e.certDir, pair.Files()); err != nil {
		t.Fatal(err)
	}
	return pair
}

func (e *env) url() string {
	return "https://" + e.server.Addr().String() + admission.ValidatePath
}

// servedCert does a TLS handshake with the server, trusting only the env's
// CA, and returns the certificate it presented.
func (e *env) servedCert() (*x509.Certificate, error) {
	d := &net.Dialer{Timeout: 5 * time.Second}
	conn, err := tls.DialWithDialer(d, "tcp", e.server.Addr().String(), &tls.Config{RootCAs: e.ca.Pool(), ServerName: "127.0.0.1"})
	if err != nil {
		return nil, err
	}
	defer func() { _ = conn.Close() }()
	return conn.ConnectionState().PeerCertificates[0], nil
}

// shippedWebhookConfiguration reads config/webhook/manifests.yaml.
func shippedWebhookConfiguration(t *testing.T) *admissionregistrationv1.ValidatingWebhookConfiguration {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(moduleRoot, "config", "webhook", "manifests.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	vwc := &admissionregistrationv1.ValidatingWebhookConfiguration{}
	if err := yaml.UnmarshalStrict(data, vwc); err != nil {
		t.Fatalf("decoding config/webhook/manifests.yaml: %v", err)
	}
	return vwc
}

// register installs the shipped webhook configuration, re-pointed at the
// env's server (URL and caBundle instead of the Service) and limited to the
// env's namespace, and waits until the API server calls it.
func (e *env) register(t *testing.T) {
	t.Helper()
	vwc := shippedWebhookConfiguration(t)
	vwc.Name = "ogx-admission-test-" + e.ns
	wh := &vwc.Webhooks[0]
	wh.ClientConfig = admissionregistrationv1.WebhookClientConfig{URL: ptr(e.url()), CABundle: e.ca.PEM}
	wh.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": e.ns}}

	ctx := t.Context()
	api := kube.AdmissionregistrationV1().ValidatingWebhookConfigurations()
	if _, err := api.Create(ctx, vwc, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating webhook configuration: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := api.Delete(ctx, vwc.Name, metav1.DeleteOptions{}); err != nil {
			t.Errorf("deleting webhook configuration %s: %v", vwc.Name, err)
		}
	})

	// The API server picks the configuration up asynchronously: dry-run an
	// invalid object until our denial comes back.
	probe := newServer("probe", func(s *ogxv1beta1.OGXServer) { s.Spec.Distribution.Name = ptr("nope") })
	var last error
	poll(t, "the webhook to be called", func() bool {
		_, last = e.servers.Create(ctx, probe, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		return last != nil && strings.HasPrefix(last.Error(), deniedPrefix)
	}, func() string { return "last error: " + errString(last) })
}

// poll checks cond until it holds or pollTimeout passes; detail, if set,
// adds context to the failure.
func poll(t *testing.T, what string, cond func() bool, detail func() string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), pollTimeout)
	defer cancel()
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	for !cond() {
		select {
		case <-ctx.Done():
			msg := "timed out waiting for " + what
			if detail != nil {
				msg += "; " + detail()
			}
			t.Fatal(msg)
		case <-tick.C:
		}
	}
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// newServer returns a valid OGXServer that mutate may change.
func newServer(name string, mutate ...func(*ogxv1beta1.OGXServer)) *ogxv1beta1.OGXServer {
	s := &ogxv1beta1.OGXServer{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       ogxv1beta1.OGXServerSpec{Distribution: ogxv1beta1.DistributionSpec{Name: ptr("starter")}},
	}
	for _, m := range mutate {
		m(s)
	}
	return s
}

// cause is the part of a StatusCause a test checks.
type cause struct {
	Type  metav1.CauseType
	Field string
}

// expectDenied checks that err is our webhook's 422 denial with the given
// aggregated message and causes, naming the object name.
func expectDenied(t *testing.T, err error, name, message string, causes ...cause) {
	t.Helper()
	if err == nil {
		t.Fatal("request succeeded, want a denial")
	}
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		t.Fatalf("error %v (%T) carries no API status", err, err)
	}
	st := status.Status()
	if want := deniedPrefix + message; st.Message != want {
		t.Errorf("message = %q\nwant      %q", st.Message, want)
	}
	if st.Code != 422 || st.Reason != metav1.StatusReasonInvalid || st.Status != metav1.StatusFailure {
		t.Errorf("code/reason/status = %d/%s/%s, want 422/Invalid/Failure", st.Code, st.Reason, st.Status)
	}
	if !apierrors.IsInvalid(err) {
		t.Errorf("apierrors.IsInvalid(%v) = false", err)
	}
	d := st.Details
	if d == nil {
		t.Fatalf("denial has no details: %+v", st)
	}
	if d.Group != "ogx.io" || d.Kind != "OGXServer" || d.Name != name {
		t.Errorf("details group/kind/name = %q/%q/%q, want ogx.io/OGXServer/%q", d.Group, d.Kind, d.Name, name)
	}
	var got []cause
	for _, c := range d.Causes {
		got = append(got, cause{Type: c.Type, Field: c.Field})
		if c.Message == "" {
			t.Errorf("cause for %s has no message", c.Field)
		}
	}
	if len(got) != len(causes) {
		t.Fatalf("causes = %+v, want %+v", got, causes)
	}
	for i := range causes {
		if got[i] != causes[i] {
			t.Errorf("cause %d = %+v, want %+v", i, got[i], causes[i])
		}
	}
}
