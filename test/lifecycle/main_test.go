package lifecycle

import (
	"os"
	"testing"

	"github.com/ogx-k8s/ogx-controller/test/framework"
)

// cp is the package's control plane, in Full mode: deleting a Namespace
// needs kube-controller-manager's namespace controller to finish.
var cp *framework.ControlPlane

func TestMain(m *testing.M) {
	os.Exit(framework.RunMain(m, framework.Options{Full: true}, func(c *framework.ControlPlane) error {
		cp = c
		return nil
	}))
}
