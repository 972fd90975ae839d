package framework

import (
	"context"
	"net"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// Poll waits until cond returns true, checking every 250 ms, and fails the
// test after timeout with what and cond's last error. An error from cond
// does not end the wait: the API server may be briefly unavailable.
func Poll(t testing.TB, timeout time.Duration, what string, cond func(ctx context.Context) (bool, error)) {
	t.Helper()
	var last error
	err := wait.PollUntilContextTimeout(t.Context(), 250*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		ok, err := cond(ctx)
		if err != nil {
			last = err
			return false, nil
		}
		return ok, nil
	})
	if err != nil {
		t.Fatalf("timed out after %s waiting for %s (last error: %v)", timeout, what, last)
	}
}

// FreeAddr returns a loopback address with a port that was free a moment
// ago, for a listener of a process the test starts.
func FreeAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// BuildController builds ogx-controller from the repository at root into
// the test's temporary directory and returns the binary's path.
func BuildController(t testing.TB, root string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "ogx-controller")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/ogx-controller")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building ogx-controller: %v\n%s", err, out)
	}
	return bin
}
