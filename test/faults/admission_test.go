//go:build faults

package faults

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/yaml"

	"github.com/ogx-k8s/ogx-controller/pkg/admission"
	"github.com/ogx-k8s/ogx-controller/pkg/admission/admissiontest"
	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/testcerts"
	"github.com/ogx-k8s/ogx-controller/test/framework"
)

// How the API server words a denial of ours and a webhook it could not
// call (failurePolicy Fail).
const (
	deniedByWebhook = `admission webhook "vogxserver.kb.io" denied the request`
	webhookFailed   = `failed calling webhook "vogxserver.kb.io"`
)

// admissionEndpoint is one loopback admission listener with a serving
// certificate from its own CA, as cert-manager would provide it
// (--admission-cert-management=external).
type admissionEndpoint struct {
	addr, certDir string
	caPEM         []byte
}

func newAdmissionEndpoint(t *testing.T) admissionEndpoint {
	t.Helper()
	ca, err := testcerts.NewCA("ogx-faults-admission-ca")
	if err != nil {
		t.Fatal(err)
	}
	pair, err := ca.Issue(testcerts.Leaf{CommonName: "ogx-faults-admission", IPs: []net.IP{net.IPv4(127, 0, 0, 1)}})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "admission-tls")
	if err := admissiontest.WriteSecretVolume(dir, pair.Files()); err != nil {
		t.Fatal(err)
	}
	return admissionEndpoint{addr: framework.FreeAddr(t), certDir: dir, caPEM: ca.PEM}
}

// flags turn a replica's admission listener on, on this endpoint.
func (e admissionEndpoint) flags() []string {
	return []string{"--admission-bind-address=" + e.addr, "--admission-cert-dir=" + e.certDir,
		"--admission-cert-management=external"}
}

// register installs the shipped webhook configuration pointed at the
// endpoint and limited to namespace ns, and waits until the API server
// calls it (an invalid dry-run create is denied by us).
func (e admissionEndpoint) register(t *testing.T, ns string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(s.root, "config", "webhook", "manifests.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	vwc := &admissionregistrationv1.ValidatingWebhookConfiguration{}
	if err := yaml.UnmarshalStrict(data, vwc); err != nil {
		t.Fatalf("decoding config/webhook/manifests.yaml: %v", err)
	}
	vwc.Name = "faults-" + ns
	url := "https://" + e.addr + admission.ValidatePath
	wh := &vwc.Webhooks[0]
	wh.ClientConfig = admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: e.caPEM}
	wh.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": ns}}
	api := s.cp.Client().AdmissionregistrationV1().ValidatingWebhookConfigurations()
	if _, err := api.Create(t.Context(), vwc, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating the webhook configuration: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := api.Delete(ctx, vwc.Name, metav1.DeleteOptions{}); err != nil {
			t.Errorf("deleting the webhook configuration: %v", err)
		}
	})
	waitAdmission(t, ns, deniedByWebhook, "the webhook to deny an invalid server")
}

// invalidServer names a distribution that does not exist, which only the
// webhook rejects (the CRD schema accepts any name).
func invalidServer(ns, name string) *ogxv1beta1.OGXServer {
	srv := newServer(ns, name, "v1")
	unknown := "no-such-distribution"
	srv.Spec.Distribution.Name = &unknown
	return srv
}

// waitAdmission dry-runs the create of an invalid server until its error
// contains want: the API server's webhook configuration and its clients
// change asynchronously.
func waitAdmission(t *testing.T, ns, want, what string) {
	t.Helper()
	ogx := ogxClient(t)
	poll(t, time.Minute, 100*time.Millisecond, what, func(ctx context.Context) (bool, error) {
		_, err := ogx.OgxV1beta1().OGXServers(ns).Create(ctx, invalidServer(ns, "probe"),
			metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err == nil || !strings.Contains(err.Error(), want) {
			return false, errorf("dry-run create: %v, want an error containing %q", err, want)
		}
		return true, nil
	})
}

// TestAdmissionServerOutage stops the replica that serves admission (the
// follower, so that leadership does not move) in the middle of a rollout.
// While it is down, creates and spec updates must be refused
// (failurePolicy Fail) and nothing refused may be stored, while every path
// that does not go through the webhook keeps working: the rollout
// converges, status is written, a server is deleted and its children
// collected. Once a replica serves admission again on the same address,
// creates succeed, invalid ones are denied again, and new servers converge.
func TestAdmissionServerOutage(t *testing.T) {
	n := s.fleet
	ns := s.cp.CreateNamespace(t, "admission")
	ogx := ogxClient(t)
	ctx := t.Context()
	ep := newAdmissionEndpoint(t)

	leader := startReplicas(t, ns, "replica-a")["replica-a"]
	waitLeader(t, ns, time.Minute, "replica-a")
	webhook := startReplicasWith(t, ns, ep.flags(), "replica-b")["replica-b"]
	ep.register(t, ns)
	createFleet(t, ns, n, "v1")
	waitConverged(t, ns, n, "v1", fleetTimeout(n))

	rollout(t, ns, n, "v2")
	at := waitUpdated(t, ns, "v2", 1, time.Minute)
	webhook.Stop()
	waitAdmission(t, ns, webhookFailed, "creates to fail with the admission server stopped")
	t.Logf("admission server stopped with %d/%d Deployments updated", at, n)

	if _, err := ogx.OgxV1beta1().OGXServers(ns).Create(ctx, newServer(ns, "unchecked", "v2"), metav1.CreateOptions{}); err == nil ||
		!strings.Contains(err.Error(), webhookFailed) {
		t.Errorf("create with the admission server stopped = %v, want an error containing %q", err, webhookFailed)
	}
	if _, err := ogx.OgxV1beta1().OGXServers(ns).Get(ctx, "unchecked", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("a server was stored although the webhook was down (get: %v)", err)
	}
	// A status write between the read and the update makes the API server
	// answer 409 before it calls the webhook: read again and retry then.
	var before *ogxv1beta1.OGXServer
	err := retry.OnError(retry.DefaultRetry, apierrors.IsConflict, func() error {
		cur, err := ogx.OgxV1beta1().OGXServers(ns).Get(ctx, serverName(0), metav1.GetOptions{})
		if err != nil {
			return err
		}
		before = cur.DeepCopy()
		cur.Spec.Workload.Overrides.Env[0].Value = "unchecked"
		_, err = ogx.OgxV1beta1().OGXServers(ns).Update(ctx, cur, metav1.UpdateOptions{})
		return err
	})
	if err == nil || !strings.Contains(err.Error(), webhookFailed) {
		t.Errorf("spec update with the admission server stopped = %v, want an error containing %q", err, webhookFailed)
	}
	after, err := ogx.OgxV1beta1().OGXServers(ns).Get(ctx, serverName(0), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if after.Generation != before.Generation || after.Spec.Workload.Overrides.Env[0].Value == "unchecked" {
		t.Errorf("the refused spec update was stored: generation %d -> %d, %s=%s", before.Generation, after.Generation,
			rolloutEnv, after.Spec.Workload.Overrides.Env[0].Value)
	}

	// Deletes are not admitted by the webhook: the last server goes, and
	// its children with it; the rest converge on the rollout.
	last := serverName(n - 1)
	if err := ogx.OgxV1beta1().OGXServers(ns).Delete(ctx, last, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("deleting %s with the admission server stopped: %v", last, err)
	}
	poll(t, 2*time.Minute, 500*time.Millisecond, "the deleted server's Deployment to be collected", func(ctx context.Context) (bool, error) {
		_, err := s.cp.Client().AppsV1().Deployments(ns).Get(ctx, last, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, errorf("Deployment %s still exists (err %v)", last, err)
	})
	took := waitConverged(t, ns, n-1, "v2", fleetTimeout(n))
	t.Logf("rollout converged %s after the admission server stopped", took.Round(time.Second))

	back := time.Now()
	startReplicasWith(t, ns, ep.flags(), "replica-c")
	waitAdmission(t, ns, deniedByWebhook, "the restarted admission server to deny an invalid server")
	t.Logf("admission back %s after the replica started", time.Since(back).Round(100*time.Millisecond))
	if _, err := ogx.OgxV1beta1().OGXServers(ns).Create(ctx, newServer(ns, last, "v2"), metav1.CreateOptions{}); err != nil {
		t.Fatalf("create with the admission server back: %v", err)
	}
	waitConverged(t, ns, n, "v2", fleetTimeout(n))
	if r := leader.Restarts(); r != 0 {
		t.Errorf("the leader restarted %d times during the admission outage", r)
	}
}
