package admission

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/pem"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2/ktesting"

	"github.com/ogx-k8s/ogx-controller/pkg/admission"
	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/webhookcerts"
)

// TestSelfManagedCertificates runs the webhook with certificates from
// pkg/webhookcerts instead of a test CA: the Manager creates the Secret,
// writes the serving pair into the admission server's directory and sets
// the caBundle, and the API server then calls the webhook, so it trusts the
// self-managed CA. A deleted Secret is replaced by a new CA that files and
// caBundle follow.
func TestSelfManagedCertificates(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	ns := cp.CreateNamespace(t, "certs")
	dir := filepath.Join(t.TempDir(), "admission-tls")

	srv, err := admission.NewServer(admission.ServerOptions{Addr: "127.0.0.1:0", CertDir: dir, ReloadInterval: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Shutdown(context.Background()); err != nil {
			t.Errorf("shutting down the admission server: %v", err)
		}
	})
	if srv.Ready() {
		t.Fatal("admission server ready before any certificate was written")
	}

	// The shipped configuration, called by URL, without a caBundle, for
	// this namespace only.
	vwc := shippedWebhookConfiguration(t)
	vwc.Name = "ogx-webhookcerts-test-" + ns
	wh := &vwc.Webhooks[0]
	wh.ClientConfig = admissionregistrationv1.WebhookClientConfig{URL: ptr("https://" + srv.Addr().String() + admission.ValidatePath)}
	wh.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": ns}}
	vwcAPI := kube.AdmissionregistrationV1().ValidatingWebhookConfigurations()
	if _, err := vwcAPI.Create(ctx, vwc, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating webhook configuration: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := vwcAPI.Delete(ctx, vwc.Name, metav1.DeleteOptions{}); err != nil {
			t.Errorf("deleting webhook configuration %s: %v", vwc.Name, err)
		}
	})

	m, err := webhookcerts.New(webhookcerts.Options{
		Kube:                     kube,
		Namespace:                ns,
		WebhookConfigurationName: vwc.Name,
		CertDir:                  dir,
		ExtraIPs:                 []net.IP{net.IPv4(127, 0, 0, 1)},
	})
	if err != nil {
		t.Fatal(err)
	}
	secrets := kube.CoreV1().Secrets(ns)
	servers := ogx.OgxV1beta1().OGXServers(ns)
	invalid := func(name string) *ogxv1beta1.OGXServer {
		return newServer(name, func(s *ogxv1beta1.OGXServer) { s.Spec.Distribution.Name = ptr("nope") })
	}
	dryRun := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}
	var last error
	lastErr := func() string { return "last error: " + errString(last) }

	// Until the caBundle is set the API server cannot call the webhook, and
	// with failurePolicy Fail it refuses the write.
	poll(t, "the API server to fail calling the not yet trusted webhook", func() bool {
		_, last = servers.Create(ctx, invalid("probe"), dryRun)
		return last != nil && strings.Contains(last.Error(), failedCall)
	}, lastErr)

	// One round of the loops: leader, then replica, then leader; want
	// says which steps must write.
	round := func(want ...bool) {
		t.Helper()
		for i, step := range []struct {
			name string
			f    func(context.Context) (bool, error)
		}{{"EnsureSecret", m.EnsureSecret}, {"WriteFiles", m.WriteFiles}, {"SyncCABundle", m.SyncCABundle}} {
			changed, err := step.f(ctx)
			if err != nil {
				t.Fatalf("%s: %v", step.name, err)
			}
			if changed != want[i] {
				t.Fatalf("%s changed = %v, want %v", step.name, changed, want[i])
			}
		}
	}
	round(true, true, true)
	first := checkSecret(t, ctx, ns)
	expectWebhookWorks(t, ctx, srv, first, vwc.Name, ns)

	// Steady state: another round writes nothing.
	vwcBefore, err := vwcAPI.Get(ctx, vwc.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	round(false, false, false)
	if s, err := secrets.Get(ctx, webhookcerts.DefaultSecretName, metav1.GetOptions{}); err != nil || s.ResourceVersion != first.ResourceVersion {
		t.Errorf("the Secret changed in a steady round (%v)", err)
	}
	if cur, err := vwcAPI.Get(ctx, vwc.Name, metav1.GetOptions{}); err != nil || cur.ResourceVersion != vwcBefore.ResourceVersion {
		t.Errorf("the webhook configuration changed in a steady round (%v)", err)
	}

	// A deleted Secret: the next round makes a new CA, and the files and
	// the caBundle follow.
	if err := secrets.Delete(ctx, webhookcerts.DefaultSecretName, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	round(true, true, true)
	second := checkSecret(t, ctx, ns)
	if bytes.Equal(first.Data["ca.crt"], second.Data["ca.crt"]) || bytes.Equal(first.Data["tls.crt"], second.Data["tls.crt"]) {
		t.Fatal("the recreated Secret kept the old CA or serving certificate")
	}
	expectWebhookWorks(t, ctx, srv, second, vwc.Name, ns)
	round(false, false, false)

	// A corrupted serving certificate is repaired in place (a patch with
	// the resourceVersion precondition) under the same CA, so the caBundle
	// stays; the admission server keeps the last good pair meanwhile.
	if _, err := secrets.Patch(ctx, webhookcerts.DefaultSecretName, types.MergePatchType,
		[]byte(`{"data":{"tls.crt":"Z2FyYmFnZQ=="}}`), metav1.PatchOptions{FieldManager: "corrupter"}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.WriteFiles(ctx); err == nil {
		t.Error("WriteFiles copied a broken pair")
	}
	round(true, true, false)
	third := checkSecret(t, ctx, ns)
	if !bytes.Equal(third.Data["ca.crt"], second.Data["ca.crt"]) || !bytes.Equal(third.Data["ca.key"], second.Data["ca.key"]) {
		t.Fatal("the repair changed the CA")
	}
	expectWebhookWorks(t, ctx, srv, third, vwc.Name, ns)
	round(false, false, false)
}

// checkSecret reads the Manager's Secret and checks what the API server
// stored: type, field manager and a serving certificate that verifies
// against ca.crt for the Service name and for 127.0.0.1.
func checkSecret(t *testing.T, ctx context.Context, ns string) *corev1.Secret {
	t.Helper()
	s, err := kube.CoreV1().Secrets(ns).Get(ctx, webhookcerts.DefaultSecretName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Type != corev1.SecretTypeTLS {
		t.Errorf("Secret type %q", s.Type)
	}
	managers := map[string]bool{}
	for _, mf := range s.ManagedFields {
		managers[mf.Manager] = true
	}
	if !managers[webhookcerts.FieldManager] || len(managers) != 1 {
		t.Errorf("Secret field managers %v, want %s only", managers, webhookcerts.FieldManager)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(s.Data["ca.crt"]) {
		t.Fatal("ca.crt holds no certificate")
	}
	leaf := leafOf(t, s)
	for _, name := range []string{webhookcerts.DefaultServiceName + "." + ns + ".svc", "127.0.0.1"} {
		if _, err := leaf.Verify(x509.VerifyOptions{Roots: pool, DNSName: name}); err != nil {
			t.Errorf("serving certificate does not verify for %s: %v", name, err)
		}
	}
	return s
}

func leafOf(t *testing.T, s *corev1.Secret) *x509.Certificate {
	t.Helper()
	block, _ := pem.Decode(s.Data["tls.crt"])
	if block == nil {
		t.Fatal("tls.crt holds no PEM block")
	}
	leaf, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return leaf
}

// expectWebhookWorks waits until the admission server serves the Secret's
// certificate and the configuration carries its ca.crt, then checks that
// the API server calls the webhook: an invalid OGXServer is denied with
// the webhook's message, a valid one is admitted.
func expectWebhookWorks(t *testing.T, ctx context.Context, srv *admission.Server, s *corev1.Secret, vwcName, ns string) {
	t.Helper()
	leaf := leafOf(t, s)
	poll(t, "the admission server to load the new certificate", func() bool {
		c := srv.Certificates().Certificate()
		return c != nil && c.Equal(leaf)
	}, nil)
	vwc, err := kube.AdmissionregistrationV1().ValidatingWebhookConfigurations().Get(ctx, vwcName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := vwc.Webhooks[0].ClientConfig.CABundle; !bytes.Equal(got, s.Data["ca.crt"]) {
		t.Fatalf("caBundle %q, want the Secret's ca.crt", got)
	}

	servers := ogx.OgxV1beta1().OGXServers(ns)
	bad := newServer("bad", func(o *ogxv1beta1.OGXServer) { o.Spec.Distribution.Name = ptr("nope") })
	var last error
	poll(t, "the API server to call the webhook with the new caBundle", func() bool {
		_, last = servers.Create(ctx, bad, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		return last != nil && strings.HasPrefix(last.Error(), deniedPrefix)
	}, func() string { return "last error: " + errString(last) })
	_, err = servers.Create(ctx, bad, metav1.CreateOptions{})
	expectDenied(t, err, "bad", `spec.distribution.name: Invalid value: "nope": `+unknownDistribution,
		cause{metav1.CauseTypeFieldValueInvalid, "spec.distribution.name"})
	if _, err := servers.Create(ctx, newServer("good"), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}); err != nil {
		t.Errorf("valid OGXServer refused: %v", err)
	}
}
