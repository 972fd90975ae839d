package e2e

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/test/framework"
	"github.com/ogx-k8s/ogx-controller/test/framework/auditlog"
)

// replicaUsers are the API users the high-availability tests run their two
// replicas as. A user per replica is how the audit log tells them apart:
// the authenticated user cannot be mistaken, whereas both replicas'
// user agents differ only in the identity they carry (a deployment whose
// replicas share a ServiceAccount has only that: docs/high-availability.md).
var replicaUsers = []string{"ogx-replica-a", "ogx-replica-b"}

// replicaFlags are the flags of a replica in these tests: short Lease
// timings (the fence closes 3 s after the last renewal, a follower may
// take the Lease 4 s after it) and a health listener for /readyz.
func replicaFlags(ns, user, healthAddr string, extra ...string) []string {
	return append([]string{
		"--kubeconfig=" + cp.UserKubeconfigPath(user),
		"--leader-elect=true",
		"--leader-election-lease-duration=4s", "--leader-election-renew-deadline=3s", "--leader-election-retry-period=1s",
		"--operator-namespace=" + ns, "--watch-namespaces=" + ns,
		"--metrics-bind-address=0", "--admission-bind-address=0", "--health-probe-bind-address=" + healthAddr,
		"--server-probe=false", "-v=2",
	}, extra...)
}

// replica is one of the two processes of a test, named by its user.
type replica struct {
	user   string
	health string
	*process
}

// startReplicas starts two replicas and returns them with the one that
// took the Lease first.
func startReplicas(t *testing.T, kube kubernetes.Interface, ns string, extra ...string) (leader, follower *replica) {
	t.Helper()
	bin, err := buildController()
	if err != nil {
		t.Fatalf("building ogx-controller: %v", err)
	}
	var rs []*replica
	for _, user := range replicaUsers {
		r := &replica{user: user, health: framework.FreeAddr(t)}
		// HOSTNAME is the identity's prefix, the user its API identity.
		r.process = startProcessWith(t, bin, user, replicaFlags(ns, user, r.health, extra...)...)
		rs = append(rs, r)
	}
	framework.Poll(t, time.Minute, "a leader", func(ctx context.Context) (bool, error) {
		h, _, err := leaseHolder(ctx, kube, ns)
		for _, r := range rs {
			if strings.HasPrefix(h, r.user+"_") {
				leader = r
			}
		}
		return leader != nil, err
	})
	for _, r := range rs {
		if r != leader {
			follower = r
		}
	}
	return leader, follower
}

// leaseHolder returns the holder of the operator's Lease and when it
// acquired it.
func leaseHolder(ctx context.Context, kube kubernetes.Interface, ns string) (string, time.Time, error) {
	l, err := kube.CoordinationV1().Leases(ns).Get(ctx, "ogx-controller-leader", metav1.GetOptions{})
	if err != nil || l.Spec.HolderIdentity == nil {
		return "", time.Time{}, client404(err)
	}
	var acquired time.Time
	if l.Spec.AcquireTime != nil {
		acquired = l.Spec.AcquireTime.Time
	}
	return *l.Spec.HolderIdentity, acquired, nil
}

// client404 treats a Lease not yet created as no holder.
func client404(err error) error {
	if err != nil && strings.Contains(err.Error(), "not found") {
		return nil
	}
	return err
}

// readyz returns the status code of a replica's /readyz, or 0 when it does
// not answer.
func readyz(addr string) int {
	c := &http.Client{Timeout: 2 * time.Second}
	resp, err := c.Get("http://" + addr + "/readyz")
	if err != nil {
		return 0
	}
	_ = resp.Body.Close()
	return resp.StatusCode
}

// exited waits for p to exit and returns its exit code.
func exited(t *testing.T, p *process, within time.Duration) int {
	t.Helper()
	select {
	case err := <-p.done:
		p.done <- err
		var exit *exec.ExitError
		switch {
		case err == nil:
			return 0
		case errors.As(err, &exit):
			return exit.ExitCode()
		}
		t.Fatalf("waiting for the process: %v", err)
	case <-time.After(within):
		t.Fatalf("the process did not exit within %s", within)
	}
	return -1
}

// generatedServer is an OGXServer in generated mode whose base config comes
// from the labels of an image on reg, so that its passes wait on reg.
func generatedServer(ns, name string, reg *gatedRegistry) *ogxv1beta1.OGXServer {
	return labelledServer(ns, name, reg.host()+"/ogx/distribution:v1")
}

// TestGracefulShutdownDoesNotWaitForARegistry: SIGTERM reaches the leader
// while a base-config resolution waits on a registry. Resolutions run off
// the controllers' workers (pkg/controller/base/generator.go), so no pass
// is in flight: the leader exits 0 at once, without waiting for the
// registry, and writes nothing after the follower acquires the Lease; the
// follower resolves the image anew and converges the server. (Draining of
// passes in flight is covered by pkg/controller/worker's shutdown tests.)
func TestGracefulShutdownDoesNotWaitForARegistry(t *testing.T) {
	ns := cp.CreateNamespace(t, "drain")
	kube, ogx := clients(t)
	ctx := t.Context()
	reg := newGatedRegistry(t)
	leader, follower := startReplicas(t, kube, ns, "--graceful-shutdown-timeout=20s")
	t.Logf("leader: %s", leader.user)
	framework.Poll(t, 30*time.Second, "the leader to be ready", func(context.Context) (bool, error) {
		return readyz(leader.health) == http.StatusOK, nil
	})

	if _, err := ogx.OgxV1beta1().OGXServers(ns).Create(ctx, generatedServer(ns, "drain", reg), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Poll(t, 30*time.Second, "a resolution waiting on the registry", func(context.Context) (bool, error) {
		return reg.heldCount() >= 1, nil
	})
	sigterm := time.Now()
	if err := leader.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	// Well under the 20 s grace: nothing in flight holds the process.
	if code := exited(t, leader.process, 10*time.Second); code != 0 {
		t.Errorf("leader exit code %d after SIGTERM, want 0", code)
	}
	t.Logf("the leader exited %s after SIGTERM with the registry still held", time.Since(sigterm).Round(10*time.Millisecond))

	reg.release()
	var acquired time.Time
	framework.Poll(t, 30*time.Second, "the follower to take the Lease", func(ctx context.Context) (bool, error) {
		h, at, err := leaseHolder(ctx, kube, ns)
		acquired = at
		return strings.HasPrefix(h, follower.user+"_"), err
	})
	for _, e := range auditWrites(t, leader.user) {
		if e.Resource() != "leases" && !e.StageTimestamp.Before(acquired) {
			t.Errorf("%s wrote after the follower acquired the Lease at %s: %s", leader.user, acquired.Format(time.RFC3339Nano), e)
		}
	}
	framework.Poll(t, time.Minute, "the follower's ConfigGenerated condition", func(ctx context.Context) (bool, error) {
		s, err := ogx.OgxV1beta1().OGXServers(ns).Get(ctx, "drain", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		cg := s.Status.ConfigGeneration
		return cg != nil && cg.ConfigMapName != "", nil
	})
}

// TestFrozenLeaderIsFenced: the leader is frozen (SIGSTOP) with passes in
// flight, past its lease; the follower takes over; the old leader is
// resumed (SIGCONT) with the registry's answers waiting for it. It must not
// write anything after the follower's acquire time (its attempts are
// refused by the fence), and it must exit non-zero.
func TestFrozenLeaderIsFenced(t *testing.T) {
	ns := cp.CreateNamespace(t, "fence")
	kube, ogx := clients(t)
	ctx := t.Context()
	reg := newGatedRegistry(t)
	leader, follower := startReplicas(t, kube, ns, "--graceful-shutdown-timeout=5s")
	t.Logf("leader: %s", leader.user)
	t.Cleanup(func() { _ = leader.cmd.Process.Signal(syscall.SIGCONT) })

	if _, err := ogx.OgxV1beta1().OGXServers(ns).Create(ctx, generatedServer(ns, "frozen", reg), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Poll(t, 30*time.Second, "a pass waiting on the registry", func(context.Context) (bool, error) {
		return reg.heldCount() > 0, nil
	})
	if err := leader.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	// The frozen process sends nothing more; the follower's passes are
	// answered at once, with a different base config.
	reg.open()
	var acquired time.Time
	framework.Poll(t, 30*time.Second, "the follower to take the Lease", func(ctx context.Context) (bool, error) {
		h, at, err := leaseHolder(ctx, kube, ns)
		acquired = at
		return strings.HasPrefix(h, follower.user+"_"), err
	})
	t.Logf("%s acquired the Lease at %s", follower.user, acquired.Format(time.RFC3339Nano))

	// Resumed, the old leader's passes get their answers at once: each
	// would write a config the cluster does not have.
	reg.release()
	if err := leader.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	if code := exited(t, leader.process, 30*time.Second); code == 0 {
		t.Errorf("the fenced leader exited 0, want non-zero")
	}
	if out := leader.output(); !strings.Contains(out, "write refused") {
		t.Errorf("the resumed leader attempted no write (nothing refused by the fence): the test proved nothing")
	}
	writes := auditWrites(t, leader.user)
	for _, e := range writes {
		if e.Resource() != "leases" && !e.StageTimestamp.Before(acquired) {
			t.Errorf("%s wrote after %s acquired the Lease at %s: %s", leader.user, follower.user,
				acquired.Format(time.RFC3339Nano), e)
		}
	}
	// The new leader converges the server.
	framework.Poll(t, time.Minute, "the new leader's generated config", func(ctx context.Context) (bool, error) {
		s, err := ogx.OgxV1beta1().OGXServers(ns).Get(ctx, "frozen", metav1.GetOptions{})
		return err == nil && s.Status.ConfigGeneration != nil && s.Status.ConfigGeneration.ConfigMapName != "", err
	})
}

func describe(es []*auditlog.Event) string {
	var b strings.Builder
	for _, e := range es {
		b.WriteString(e.String() + "\n")
	}
	return b.String()
}

// auditWrites returns every audit event of a write (create, update, patch,
// delete) of user, in log order.
func auditWrites(t *testing.T, user string) []*auditlog.Event {
	t.Helper()
	var out []*auditlog.Event
	err := auditlog.Each(cp.AuditLogPath(), auditlog.Options{Match: auditlog.ByUser(user)}, func(e *auditlog.Event) error {
		if e.IsWrite() {
			out = append(out, e)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// gatedRegistry is an OCI registry on loopback serving one image,
// ogx/distribution:v1, whose tag HEAD can be held: while holding, each HEAD
// waits until release and then resolves to the "held" image; otherwise it
// resolves at once to the "open" image, whose base config differs, so a
// pass that got the held answer generates a config no other pass does.
type gatedRegistry struct {
	srv     *httptest.Server
	objects map[string][]byte // by digest: manifests and config blobs
	heads   map[bool]string   // manifest digest by held

	mu      sync.Mutex
	holding bool
	held    int
	gate    chan struct{}
}

const manifestType = "application/vnd.oci.image.manifest.v1+json"

func newGatedRegistry(t *testing.T) *gatedRegistry {
	t.Helper()
	r := &gatedRegistry{objects: map[string][]byte{}, heads: map[bool]string{}, holding: true, gate: make(chan struct{})}
	for _, held := range []bool{true, false} {
		base := baseConfigYAML
		if held {
			base = strings.Replace(base, "image_name: starter", "image_name: held", 1)
		}
		blob, _ := json.Marshal(map[string]any{"config": map[string]any{"Labels": map[string]string{
			"com.ogx.distribution.default-config": "config.yaml",
			"com.ogx.config.config.yaml":          base64.StdEncoding.EncodeToString([]byte(base)),
		}}})
		manifest, _ := json.Marshal(map[string]any{"schemaVersion": 2, "mediaType": manifestType,
			"config": map[string]any{"mediaType": "application/vnd.oci.image.config.v1+json", "digest": digest(blob), "size": len(blob)},
			"layers": []any{}})
		r.objects[digest(blob)], r.objects[digest(manifest)] = blob, manifest
		r.heads[held] = digest(manifest)
	}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(func() { r.release(); r.srv.Close() })
	return r
}

func digest(b []byte) string { return fmt.Sprintf("sha256:%x", sha256.Sum256(b)) }

func (r *gatedRegistry) host() string { return strings.TrimPrefix(r.srv.URL, "http://") }

func (r *gatedRegistry) serve(w http.ResponseWriter, req *http.Request) {
	const repo = "/v2/ogx/distribution/"
	ref, ok := strings.CutPrefix(req.URL.Path, repo+"manifests/")
	if !ok {
		ref, ok = strings.CutPrefix(req.URL.Path, repo+"blobs/")
	}
	if !ok {
		http.NotFound(w, req)
		return
	}
	if ref == "v1" {
		r.mu.Lock()
		holding, gate := r.holding, r.gate
		if holding {
			r.held++
		}
		r.mu.Unlock()
		if holding {
			select {
			case <-gate:
			case <-req.Context().Done():
				return
			}
		}
		ref = r.heads[holding]
		w.Header().Set("Docker-Content-Digest", ref)
		w.Header().Set("Content-Type", manifestType)
		w.Header().Set("Content-Length", fmt.Sprint(len(r.objects[ref])))
		if req.Method == http.MethodHead {
			return
		}
	}
	body, found := r.objects[ref]
	if !found {
		http.NotFound(w, req)
		return
	}
	if strings.Contains(req.URL.Path, "/manifests/") {
		w.Header().Set("Content-Type", manifestType)
	}
	_, _ = w.Write(body)
}

// heldCount is how many tag requests were held so far.
func (r *gatedRegistry) heldCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.held
}

// open answers later tag requests at once; held ones stay held.
func (r *gatedRegistry) open() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.holding = false
}

// release answers the held requests and opens the registry.
func (r *gatedRegistry) release() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.holding = false
	select {
	case <-r.gate:
	default:
		close(r.gate)
	}
}
