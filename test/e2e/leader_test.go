package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/test/framework"
)

// buildController builds the ogx-controller binary once per test binary.
var buildController = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "ogx-controller-bin-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "ogx-controller")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/ogx-controller")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", &buildError{out: string(out), err: err}
	}
	return bin, nil
})

type buildError struct {
	out string
	err error
}

func (e *buildError) Error() string { return e.err.Error() + ": " + e.out }

// process is one ogx-controller process started by a test.
type process struct {
	cmd  *exec.Cmd
	log  *bytes.Buffer
	mu   *sync.Mutex
	done chan error
}

type lockedWriter struct {
	mu *sync.Mutex
	b  *bytes.Buffer
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (p *process) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.log.String()
}

// startProcess runs the real binary as admin with leader election on.
func startProcess(t *testing.T, bin, ns, identity string) *process {
	t.Helper()
	return startProcessWith(t, bin, identity,
		"--kubeconfig="+cp.KubeconfigPath(),
		"--leader-elect=true",
		"--leader-election-lease-duration=4s", "--leader-election-renew-deadline=3s", "--leader-election-retry-period=1s",
		"--operator-namespace="+ns, "--watch-namespaces="+ns,
		"--metrics-bind-address=0", "--admission-bind-address=0", "--health-probe-bind-address=0",
		"--server-probe=false", "-v=2")
}

// startProcessWith runs the real binary with the given flags; it is stopped
// with SIGTERM when the test ends and its output is shown if the test failed.
func startProcessWith(t *testing.T, bin, identity string, flags ...string) *process {
	t.Helper()
	p := &process{log: &bytes.Buffer{}, mu: &sync.Mutex{}, done: make(chan error, 1)}
	p.cmd = exec.Command(bin, append([]string{"run"}, flags...)...)
	p.cmd.Env = append(os.Environ(), "HOSTNAME="+identity)
	w := lockedWriter{mu: p.mu, b: p.log}
	p.cmd.Stdout, p.cmd.Stderr = w, w
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("starting ogx-controller: %v", err)
	}
	go func() { p.done <- p.cmd.Wait() }()
	t.Cleanup(func() {
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(15 * time.Second):
			_ = p.cmd.Process.Kill()
		}
		if t.Failed() {
			t.Logf("%s output:\n%s", identity, p.output())
		}
	})
	return p
}

// TestLeaderElectionFailover runs two ogx-controller processes: one leads
// and converges an OGXServer; when it stops, the other takes over within a
// lease duration and converges a spec change made after the hand-over.
func TestLeaderElectionFailover(t *testing.T) {
	bin, err := buildController()
	if err != nil {
		t.Fatalf("building ogx-controller: %v", err)
	}
	ns := cp.CreateNamespace(t, "leader")
	kube, ogx := clients(t)
	ctx := t.Context()
	procs := map[string]*process{
		"replica-a": startProcess(t, bin, ns, "replica-a"),
		"replica-b": startProcess(t, bin, ns, "replica-b"),
	}
	var leader string
	framework.Poll(t, 60*time.Second, "a leader", func(ctx context.Context) (bool, error) {
		l, err := kube.CoordinationV1().Leases(ns).Get(ctx, "ogx-controller-leader", metav1.GetOptions{})
		if err != nil || l.Spec.HolderIdentity == nil {
			return false, err
		}
		for id := range procs {
			if len(*l.Spec.HolderIdentity) > len(id) && (*l.Spec.HolderIdentity)[:len(id)] == id {
				leader = id
			}
		}
		return leader != "", nil
	})
	t.Logf("leader: %s", leader)
	if _, err := ogx.OgxV1beta1().OGXServers(ns).Create(ctx, newServer(ns, "ha"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitReady(t, ogx, ns, "ha", 2*time.Minute)

	// Stop the leader; the follower takes over.
	stopped := time.Now()
	if err := procs[leader].cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-procs[leader].done:
		if err != nil {
			t.Errorf("leader exited with %v, want 0 on SIGTERM", err)
		}
		procs[leader].done <- err
	case <-time.After(30 * time.Second):
		t.Fatal("leader did not stop within 30 s of SIGTERM")
	}
	var follower string
	for id := range procs {
		if id != leader {
			follower = id
		}
	}
	framework.Poll(t, 30*time.Second, "the follower to take the lease", func(ctx context.Context) (bool, error) {
		l, err := kube.CoordinationV1().Leases(ns).Get(ctx, "ogx-controller-leader", metav1.GetOptions{})
		if err != nil || l.Spec.HolderIdentity == nil {
			return false, err
		}
		h := *l.Spec.HolderIdentity
		return len(h) > len(follower) && h[:len(follower)] == follower, nil
	})
	t.Logf("failover: %s took the lease %s after the leader got SIGTERM", follower, time.Since(stopped).Round(100*time.Millisecond))

	// A change after the hand-over is converged by the new leader.
	updateServer(t, ogx, ns, "ha", func(cur *ogxv1beta1.OGXServer) {
		cur.Spec.Workload = &ogxv1beta1.WorkloadSpec{Overrides: &ogxv1beta1.WorkloadOverrides{
			Env: []corev1.EnvVar{{Name: "AFTER_FAILOVER", Value: "1"}}}}
	})
	framework.Poll(t, 30*time.Second, "the change converged by the new leader", func(ctx context.Context) (bool, error) {
		d, err := kube.AppsV1().Deployments(ns).Get(ctx, "ha", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for _, e := range d.Spec.Template.Spec.Containers[0].Env {
			if e.Name == "AFTER_FAILOVER" {
				return true, nil
			}
		}
		return false, nil
	})
	waitReady(t, ogx, ns, "ha", time.Minute)
}
