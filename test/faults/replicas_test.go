//go:build faults

package faults

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Leader-election timing of the replicas: short, so a failover fits in a
// test, and in the same proportions as the defaults (15s/10s/2s).
const (
	leaseDuration = 4 * time.Second
	renewDeadline = 3 * time.Second
	retryPeriod   = 1 * time.Second
	leaseName     = "ogx-controller-leader"
)

// maxRestarts bounds how often a replica is restarted after it exits on
// its own (for example when it loses the Lease during an apiserver outage,
// where kubelet would restart the container).
const maxRestarts = 5

// buildController builds ogx-controller once per test binary, into the
// control plane's directory, which Stop removes.
var buildController = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp(s.cp.Dir(), "bin-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "ogx-controller")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/ogx-controller")
	cmd.Dir = s.root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building ogx-controller: %w: %s", err, out)
	}
	return bin, nil
})

// replica is one ogx-controller replica, supervised like a container with
// restartPolicy Always: when the process exits on its own it is started
// again, at most maxRestarts times. Kill and Stop end it for good.
type replica struct {
	name, bin string
	args      []string
	logPath   string

	mu       sync.Mutex
	cmd      *exec.Cmd
	ended    bool // Kill or Stop was called
	restarts int
	done     chan struct{} // closed when the supervisor returns
}

// replicaArgs are the flags of a replica managing namespace ns only, with
// its Lease in ns, as the operator user.
func replicaArgs(ns string, extra ...string) []string {
	return append([]string{"run",
		"--kubeconfig=" + s.cp.UserKubeconfigPath(operatorUser),
		"--leader-elect=true",
		"--leader-election-lease-duration=" + leaseDuration.String(),
		"--leader-election-renew-deadline=" + renewDeadline.String(),
		"--leader-election-retry-period=" + retryPeriod.String(),
		"--operator-namespace=" + ns, "--watch-namespaces=" + ns,
		"--metrics-bind-address=0", "--admission-bind-address=0", "--health-probe-bind-address=0",
		"--server-probe=false", "-v=2"}, extra...)
}

// startReplicas starts n replicas named <prefix>-a, <prefix>-b, ... for
// namespace ns; they are stopped when the test ends and their logs shown
// if it failed.
func startReplicas(t *testing.T, ns string, names ...string) map[string]*replica {
	t.Helper()
	return startReplicasWith(t, ns, nil, names...)
}

// startReplicasWith is startReplicas with extra flags.
func startReplicasWith(t *testing.T, ns string, extra []string, names ...string) map[string]*replica {
	t.Helper()
	bin, err := buildController()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*replica{}
	for _, name := range names {
		r := &replica{name: name, bin: bin, args: replicaArgs(ns, extra...),
			logPath: filepath.Join(t.TempDir(), name+".log"), done: make(chan struct{})}
		if err := r.start(); err != nil {
			t.Fatal(err)
		}
		go r.supervise(t)
		out[name] = r
		t.Cleanup(func() {
			r.Stop()
			if t.Failed() {
				t.Logf("%s log (last 80 lines):\n%s", name, r.tail(80))
			}
		})
	}
	return out
}

func (r *replica) start() error {
	log, err := os.OpenFile(r.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer log.Close()
	cmd := exec.Command(r.bin, r.args...)
	cmd.Env = append(os.Environ(), "HOSTNAME="+r.name)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting replica %s: %w", r.name, err)
	}
	r.mu.Lock()
	r.cmd = cmd
	r.mu.Unlock()
	return nil
}

// supervise waits for the process and restarts it when it exited on its
// own, up to maxRestarts times.
func (r *replica) supervise(t *testing.T) {
	defer close(r.done)
	for {
		r.mu.Lock()
		cmd := r.cmd
		r.mu.Unlock()
		err := cmd.Wait()
		r.mu.Lock()
		ended, restarts := r.ended, r.restarts
		if !ended {
			r.restarts++
		}
		r.mu.Unlock()
		if ended {
			return
		}
		if restarts >= maxRestarts {
			t.Errorf("replica %s exited (%v) and was restarted %d times already; giving up", r.name, err, restarts)
			return
		}
		t.Logf("replica %s exited (%v); restarting it as kubelet would", r.name, err)
		if err := r.start(); err != nil {
			t.Error(err)
			return
		}
	}
}

// Kill sends SIGKILL, as a node failure or the OOM killer would, and waits
// until the process is gone; it is not restarted.
func (r *replica) Kill() error {
	r.mu.Lock()
	r.ended = true
	err := r.cmd.Process.Signal(syscall.SIGKILL)
	r.mu.Unlock()
	<-r.done
	return err
}

// Stop sends SIGTERM and SIGKILL 15 s later if the process is still
// running; it is not restarted. Calling it again is a no-op.
func (r *replica) Stop() {
	r.mu.Lock()
	if r.ended {
		r.mu.Unlock()
		<-r.done
		return
	}
	r.ended = true
	_ = r.cmd.Process.Signal(syscall.SIGTERM)
	r.mu.Unlock()
	select {
	case <-r.done:
	case <-time.After(15 * time.Second):
		r.mu.Lock()
		_ = r.cmd.Process.Kill()
		r.mu.Unlock()
		<-r.done
	}
}

// Signal sends sig to the current process, for SIGSTOP and SIGCONT.
func (r *replica) Signal(sig syscall.Signal) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cmd.Process.Signal(sig)
}

// Restarts is how often the supervisor restarted the process.
func (r *replica) Restarts() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.restarts
}

func (r *replica) tail(n int) string {
	data, err := os.ReadFile(r.logPath)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// leaseHolder returns which of names holds the Lease in ns, or "".
func leaseHolder(ctx context.Context, ns string, names []string) (string, error) {
	holder, _, err := leaseRecord(ctx, ns)
	if err != nil {
		return "", err
	}
	for _, n := range names {
		// The identity is <HOSTNAME>_<uuid>.
		if strings.HasPrefix(holder, n+"_") {
			return n, nil
		}
	}
	return "", nil
}

// leaseRecord returns the Lease's holder identity and acquire time in ns.
func leaseRecord(ctx context.Context, ns string) (holder string, acquired time.Time, err error) {
	l, err := s.cp.Client().CoordinationV1().Leases(ns).Get(ctx, leaseName, metav1.GetOptions{})
	if err != nil {
		return "", time.Time{}, err
	}
	if l.Spec.HolderIdentity != nil {
		holder = *l.Spec.HolderIdentity
	}
	if l.Spec.AcquireTime != nil {
		acquired = l.Spec.AcquireTime.Time
	}
	return holder, acquired, nil
}

// waitLeader waits until one of names holds the Lease and returns it.
func waitLeader(t *testing.T, ns string, timeout time.Duration, names ...string) string {
	t.Helper()
	var leader string
	poll(t, timeout, 100*time.Millisecond, "a replica to hold the Lease", func(ctx context.Context) (bool, error) {
		var err error
		leader, err = leaseHolder(ctx, ns, names)
		return leader != "", err
	})
	return leader
}
