package metrics

import (
	"os"
	"testing"

	"k8s.io/client-go/kubernetes"

	ogxmetrics "github.com/ogx-k8s/ogx-controller/pkg/metrics"
	"github.com/ogx-k8s/ogx-controller/test/framework"
)

var (
	// cp is the package's control plane (etcd and kube-apiserver only).
	cp *framework.ControlPlane
	// kube is an admin client without client-side rate limiting.
	kube kubernetes.Interface
	// moduleRoot is the repository root, for config/ files.
	moduleRoot string
	// restMetrics receives the client-go REST client metrics of this
	// process; it is installed once here because client-go's hooks are
	// process-wide.
	restMetrics *ogxmetrics.Metrics
)

func TestMain(m *testing.M) {
	os.Exit(framework.RunMain(m, framework.Options{}, setup))
}

func setup(c *framework.ControlPlane) error {
	cp = c
	root, err := framework.ModuleRoot()
	if err != nil {
		return err
	}
	moduleRoot = root
	restMetrics = ogxmetrics.New("integration")
	restMetrics.RegisterClientGoMetrics()
	cfg := c.Config()
	cfg.QPS = -1
	cfg.UserAgent = "ogx-metrics-test"
	kube, err = kubernetes.NewForConfig(cfg)
	return err
}
