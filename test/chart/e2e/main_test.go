package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/ogx-k8s/ogx-controller/test/framework"
)

var (
	// cp is the package's control plane.
	cp *framework.ControlPlane
	// root is the repository root.
	root string
	// proxy is the apiserver's egress proxy (see connectProxy).
	proxy *connectProxy
)

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "ogx-chart-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	sock := filepath.Join(dir, "egress.sock")
	if proxy, err = newConnectProxy(sock); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer proxy.close()
	egress := filepath.Join(dir, "egress-selector.yaml")
	if err := os.WriteFile(egress, []byte(egressConfig(sock)), 0o600); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return framework.RunMain(m, framework.Options{Full: true, Nodes: 2, ExtraArgs: map[string][]string{
		framework.APIServer: {
			"--egress-selector-config-file=" + egress,
			// Setting blockOwnerDeletion then needs update on
			// ogxservers/finalizers, so the chart's ClusterRole is held
			// to that rule too.
			"--enable-admission-plugins=OwnerReferencesPermissionEnforcement",
		},
	}}, func(c *framework.ControlPlane) error {
		cp = c
		var err error
		if root, err = framework.ModuleRoot(); err != nil {
			return err
		}
		// No CRDs: Helm installs the chart's crds/ (TestChartLifecycle).
		return nil
	})
}

// egressConfig routes the apiserver's cluster traffic (webhook calls)
// through the CONNECT proxy on the unix socket sock.
func egressConfig(sock string) string {
	return `apiVersion: apiserver.k8s.io/v1beta1
kind: EgressSelectorConfiguration
egressSelections:
- name: cluster
  connection:
    proxyProtocol: HTTPConnect
    transport:
      uds:
        udsName: ` + sock + "\n"
}
