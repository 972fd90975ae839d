package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ogx-k8s/ogx-controller/test/framework"
)

var (
	// cp is the package's control plane, with the bundle's CRDs installed.
	cp *framework.ControlPlane
	// root is the repository root.
	root string
)

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	return framework.RunMain(m, framework.Options{Full: true, ExtraArgs: map[string][]string{
		// Setting blockOwnerDeletion then needs update on
		// ogxservers/finalizers, so the CSV's permissions are held to
		// that rule too.
		framework.APIServer: {"--enable-admission-plugins=OwnerReferencesPermissionEnforcement"},
	}}, func(c *framework.ControlPlane) error {
		cp = c
		var err error
		if root, err = framework.ModuleRoot(); err != nil {
			return err
		}
		b, err := loadBundle(filepath.Join(root, "bundle", "manifests"))
		if err != nil {
			return err
		}
		if len(b.crdFiles) == 0 {
			return fmt.Errorf("bundle/manifests holds no CustomResourceDefinition")
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		// OLM creates the bundle's CRDs before the CSV's Deployment.
		return cp.InstallCRDs(ctx, b.crdFiles...)
	})
}
