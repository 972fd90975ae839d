// Package live runs the real ogx-controller binary against the local
// control plane (test/framework, full mode: the controller manager fills the
// scraper's token Secret and kwok runs the pods), makes an OGXServer Ready
// and sends it admission reviews, then scrapes /metrics the way
// config/monitoring's ServiceMonitor does (HTTPS, the scraper
// ServiceAccount's token) and checks that every series the dashboard and
// the alerting rules select exists.
//
// It needs the control-plane programs (make tools) and the binary:
// make bin/ogx-controller, or OGX_CONTROLLER_BIN=<path>.
package live

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ogx-k8s/ogx-controller/test/framework"
	"github.com/ogx-k8s/ogx-controller/test/monitoring"
)

var (
	// cp is the package's control plane.
	cp *framework.ControlPlane
	// root is the repository root.
	root string
	// controllerBin is the ogx-controller binary under test.
	controllerBin string
)

func TestMain(m *testing.M) {
	os.Exit(framework.RunMain(m, framework.Options{Full: true}, setup))
}

func setup(c *framework.ControlPlane) error {
	cp = c
	var err error
	if root, err = monitoring.RepoRoot(); err != nil {
		return err
	}
	controllerBin = os.Getenv("OGX_CONTROLLER_BIN")
	if controllerBin == "" {
		controllerBin = filepath.Join(root, "bin", "ogx-controller")
	}
	if _, err := os.Stat(controllerBin); errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("no ogx-controller binary at %s: run make bin/ogx-controller (or set OGX_CONTROLLER_BIN)", controllerBin)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return cp.InstallCRDs(ctx, filepath.Join(root, "config", "crd", "bases", "ogx.io_ogxservers.yaml"))
}
