package e2e

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ogx-k8s/ogx-controller/test/framework"
)

// buildPlugin builds kubectl-ogx once per test binary, alone in a
// directory of its own (the PATH of TestKubectlOGXStatus).
var buildPlugin = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "kubectl-ogx-bin-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "kubectl-ogx")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/kubectl-ogx")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", &buildError{out: string(out), err: err}
	}
	return bin, nil
})

// kubectlPath is framework.KubectlPath, failing the test when it is missing.
func kubectlPath(t *testing.T) string {
	t.Helper()
	p, err := framework.KubectlPath()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestKubectlOGXStatus runs `kubectl ogx status` as a user would: the
// real kubectl finds kubectl-ogx on PATH and runs it, with the cluster
// from $KUBECONFIG, for a server the controller made Ready. The output
// names the server's conditions, its children and its Events.
func TestKubectlOGXStatus(t *testing.T) {
	ns := cp.CreateNamespace(t, "plugin")
	kube, ogx := clients(t)
	startController(t, ns)
	if _, err := ogx.OgxV1beta1().OGXServers(ns).Create(t.Context(), newServer(ns, "plugged"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	s := waitReady(t, ogx, ns, "plugged", 3*time.Minute)
	waitEvent(t, kube, ns, "plugged", "PhaseChanged", "Ready")

	plugin, err := buildPlugin()
	if err != nil {
		t.Fatal(err)
	}
	pathDir := filepath.Dir(plugin)
	kubectl := func(args ...string) (string, string, error) {
		cmd := exec.CommandContext(t.Context(), kubectlPath(t), args...)
		// Only the temporary directory on PATH: the plugin found is the
		// one just built. HOME keeps the user's kubeconfig and kubectl's
		// cache out of it.
		cmd.Env = []string{"PATH=" + pathDir, "HOME=" + t.TempDir(), "KUBECONFIG=" + cp.KubeconfigPath()}
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		return out.String(), errOut.String(), err
	}

	list, listErr, err := kubectl("plugin", "list")
	if err != nil || !strings.Contains(list, filepath.Join(pathDir, "kubectl-ogx")) {
		t.Fatalf("kubectl plugin list does not find kubectl-ogx: %v\n%s%s", err, list, listErr)
	}
	out, errOut, err := kubectl("ogx", "status", "plugged", "-n", ns)
	if err != nil {
		t.Fatalf("kubectl ogx status: %v\n%s", err, errOut)
	}
	t.Logf("kubectl ogx status:\n%s", out)
	for _, want := range []string{
		`(?m)^Namespace: +` + regexp.QuoteMeta(ns) + `$`,
		`(?m)^Phase: +Ready$`,
		`(?m)^  Deployment +plugged +yes +1/1$`, `(?m)^  Service +plugged-service +yes `,
		`(?m)^  Normal +PhaseChanged .*Ready`,
		`(?m)^Image: +` + regexp.QuoteMeta(s.Status.ResolvedDistribution.Image) + `$`,
	} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("the output does not match %s", want)
		}
	}
	// Every condition, with its status and reason, one row each.
	for _, c := range s.Status.Conditions {
		row := `(?m)^  ` + regexp.QuoteMeta(c.Type) + ` +` + string(c.Status) + ` +` + regexp.QuoteMeta(c.Reason) + ` `
		if !regexp.MustCompile(row).MatchString(out) {
			t.Errorf("no row for condition %s=%s (%s)", c.Type, c.Status, c.Reason)
		}
	}
	if len(s.Status.Conditions) < 2 {
		t.Errorf("the Ready server has conditions %v, want Ready and the children's", s.Status.Conditions)
	}

	// A server that does not exist: exit 1 and one error line.
	_, errOut, err = kubectl("ogx", "status", "absent", "-n", ns)
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(errOut, `OGXServer "absent" not found`) {
		t.Errorf("status of a missing server: %v, stderr %q", err, errOut)
	}
}
