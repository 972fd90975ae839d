package integration

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/ogx-k8s/ogx-controller/test/framework"
)

var (
	// cp is the package's control plane (etcd and kube-apiserver only),
	// started once by TestMain with both CRDs installed.
	cp *framework.ControlPlane
	// restConfig is cp's admin configuration without client-side rate
	// limiting: the tables below send a few hundred requests.
	restConfig *rest.Config
	// dyn sends unstructured objects, so manifests can hold values the Go
	// types cannot express (an empty string in an omitempty field, a bare
	// integer quantity, an explicit empty list).
	dyn dynamic.Interface
)

// setupTimeout bounds installing the CRDs and waiting until they serve.
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
	ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
	defer cancel()
	if err := c.InstallCRDs(ctx, filepath.Join(root, "config", "crd", "bases")); err != nil {
		return fmt.Errorf("installing CRDs: %w", err)
	}

	restConfig = c.Config()
	restConfig.QPS = -1 // no client-side throttling
	restConfig.UserAgent = "ogx-integration-test"
	dyn, err = dynamic.NewForConfig(restConfig)
	if err != nil {
		return fmt.Errorf("creating dynamic client: %w", err)
	}

	// Established means the apiserver serves the resource; make sure the
	// validation path (schema, defaults, CEL) answers too before any test
	// depends on it, by dry-running a minimal object until it is accepted.
	var last error
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, setupTimeout, true, func(ctx context.Context) (bool, error) {
		obj, berr := newOGXServer("probe", "distribution: {name: starter}")
		if berr != nil {
			return false, berr
		}
		_, last = dyn.Resource(ogxServerGVR).Namespace(metav1.NamespaceDefault).Create(ctx, obj, dryRunCreate)
		return last == nil, nil
	})
	if err != nil {
		return fmt.Errorf("waiting for OGXServer dry-run creates to succeed (last error: %v): %w", last, err)
	}
	return nil
}
