package e2e

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ogx-k8s/ogx-controller/test/framework"
)

// cp is the package's control plane.
var cp *framework.ControlPlane

// root is the repository root.
var root string

func TestMain(m *testing.M) {
	os.Exit(framework.RunMain(m, framework.Options{Full: true, Nodes: 2,
		// The high-availability tests run each replica as a user of its
		// own and read what each wrote from the audit log.
		// The RBAC test reads what the operator's ServiceAccount did.
		Users: replicaUsers, AuditPolicy: framework.AuditPolicyForUsers(append([]string{rbacUser}, replicaUsers...)...),
		ExtraArgs: map[string][]string{
			// Setting blockOwnerDeletion then needs update on ogxservers/finalizers,
			// so the RBAC test proves that rule is shipped.
			framework.APIServer: {"--enable-admission-plugins=OwnerReferencesPermissionEnforcement"},
		}}, func(c *framework.ControlPlane) error {
		cp = c
		var err error
		if root, err = framework.ModuleRoot(); err != nil {
			return err
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		// The legacy CRD stands in for clusters that still have the
		// llama-stack operator's objects (adoption tests).
		return cp.InstallCRDs(ctx, filepath.Join(root, "config", "crd", "bases", "ogx.io_ogxservers.yaml"),
			filepath.Join(root, "config", "crd", "bases", "llamastack.io_llamastackdistributions.yaml"))
	}))
}
