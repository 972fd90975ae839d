package admission

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/generated/clientset/versioned"
	"github.com/ogx-k8s/ogx-controller/test/framework"
)

var (
	// cp is the package's control plane (etcd and kube-apiserver only),
	// started once by TestMain with the OGXServer CRD installed.
	cp *framework.ControlPlane
	// kube and ogx are admin clients without client-side rate limiting.
	kube kubernetes.Interface
	ogx  versioned.Interface
	// moduleRoot is the repository root, for config/ files.
	moduleRoot string
)

const setupTimeout = 2 * time.Minute

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
	ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
	defer cancel()
	if err := c.InstallCRDs(ctx, filepath.Join(root, "config", "crd", "bases", "ogx.io_ogxservers.yaml")); err != nil {
		return fmt.Errorf("installing CRDs: %w", err)
	}
	cfg := c.Config()
	cfg.QPS = -1
	cfg.UserAgent = "ogx-admission-test"
	if kube, err = kubernetes.NewForConfig(cfg); err != nil {
		return err
	}
	if ogx, err = versioned.NewForConfig(cfg); err != nil {
		return err
	}

	// Established means served; wait until creates go through too.
	var last error
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, setupTimeout, true, func(ctx context.Context) (bool, error) {
		_, last = ogx.OgxV1beta1().OGXServers(metav1.NamespaceDefault).Create(ctx, &ogxv1beta1.OGXServer{
			ObjectMeta: metav1.ObjectMeta{Name: "probe"},
			Spec:       ogxv1beta1.OGXServerSpec{Distribution: ogxv1beta1.DistributionSpec{Name: ptr("starter")}},
		}, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		return last == nil, nil
	})
	if err != nil {
		return fmt.Errorf("waiting for OGXServer dry-run creates to succeed (last error: %v): %w", last, err)
	}
	return nil
}

func ptr[T any](v T) *T { return &v }
