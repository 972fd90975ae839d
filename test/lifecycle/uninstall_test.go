package lifecycle

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"

	"github.com/ogx-k8s/ogx-controller/test/framework"
)

// keepServersCommand is the guide's command that removes the operator and
// keeps the CRD and the servers (docs/lifecycle.md, Uninstalling).
const keepServersCommand = "kubectl delete -f release/ogx-controller.yaml -l app.kubernetes.io/name=ogx-controller"

// TestUninstallKeepsServers installs release/ogx-controller.yaml as the
// guide says, with a server created while no webhook is registered (the
// operator's pods do not run on kwok nodes), runs the guide's uninstall
// command from the repository root and checks: every object of the release
// file but the CRD and the namespace is gone, and the CRD and the
// OGXServers (one in the operator's namespace) are still there with their
// UIDs.
func TestUninstallKeepsServers(t *testing.T) {
	root, err := framework.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	guide, err := os.ReadFile(filepath.Join(root, "docs", "lifecycle.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(guide, []byte(keepServersCommand)) {
		t.Fatalf("docs/lifecycle.md no longer gives %q: update the guide and this test together", keepServersCommand)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	kubectl := func(stdin []byte, args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(ctx, kubectlPath(t), args...)
		cmd.Dir = root
		cmd.Env = []string{"HOME=" + t.TempDir(), "KUBECONFIG=" + cp.KubeconfigPath()}
		if stdin != nil {
			cmd.Stdin = bytes.NewReader(stdin)
		}
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		if err := cmd.Run(); err != nil {
			t.Fatalf("kubectl %s: %v\n%s%s", strings.Join(args, " "), err, out.String(), errOut.String())
		}
		return out.String()
	}

	kubectl(nil, "apply", "--server-side", "-f", "config/crd/bases/ogx.io_ogxservers.yaml")
	// Not kubectl wait: it fails at once while the new CRD has no
	// conditions yet, instead of waiting for them.
	waitEstablished(t, "ogxservers.ogx.io")
	kubectl(nil, "create", "namespace", "apps")
	kubectl([]byte(server), "apply", "--server-side", "-n", "apps", "-f", "-")
	serverUID := kubectl(nil, "get", "ogxserver", "kept", "-n", "apps", "-o", "jsonpath={.metadata.uid}")
	crdUID := kubectl(nil, "get", "crd", "ogxservers.ogx.io", "-o", "jsonpath={.metadata.uid}")

	kubectl(nil, "apply", "--server-side", "-f", "release/ogx-controller.yaml")
	// A server in the operator's own namespace, created after the install
	// (the webhook has no endpoints: it is deregistered for the create and
	// re-applied after it), must survive as well.
	kubectl(nil, "delete", "validatingwebhookconfiguration", "ogx-controller-validating-webhook-configuration")
	kubectl([]byte(server), "apply", "--server-side", "-n", "ogx-system", "-f", "-")
	kubectl(nil, "apply", "--server-side", "-f", "release/ogx-controller.yaml")
	systemUID := kubectl(nil, "get", "ogxserver", "kept", "-n", "ogx-system", "-o", "jsonpath={.metadata.uid}")
	objs, err := framework.ReadObjects(filepath.Join(root, "release", "ogx-controller.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) < 20 {
		t.Fatalf("the release file has %d objects; is it the install?", len(objs))
	}

	args := strings.Fields(keepServersCommand)[1:]
	kubectl(nil, append(args, "--timeout=3m")...)

	if got := kubectl(nil, "get", "crd", "ogxservers.ogx.io", "-o", "jsonpath={.metadata.uid}"); got != crdUID {
		t.Errorf("CRD UID %q after uninstall, was %q (deleted and recreated?)", got, crdUID)
	}
	if got := kubectl(nil, "get", "ogxserver", "kept", "-n", "apps", "-o", "jsonpath={.metadata.uid}"); got != serverUID {
		t.Errorf("OGXServer UID %q after uninstall, was %q", got, serverUID)
	}
	if got := kubectl(nil, "get", "ogxserver", "kept", "-n", "ogx-system", "-o", "jsonpath={.metadata.uid}"); got != systemUID {
		t.Errorf("the OGXServer in ogx-system has UID %q after uninstall, was %q", got, systemUID)
	}
	dyn, mapper := clients(t)
	for _, o := range objs {
		gvk := o.GroupVersionKind()
		if gvk.Kind == "CustomResourceDefinition" || gvk.Kind == "Namespace" {
			// Kept: the CRD holds the servers, the namespace may.
			continue
		}
		m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			t.Fatalf("%s: %v", gvk, err)
		}
		var ri dynamic.ResourceInterface = dyn.Resource(m.Resource)
		if o.GetNamespace() != "" {
			ri = dyn.Resource(m.Resource).Namespace(o.GetNamespace())
		}
		got, err := ri.Get(ctx, o.GetName(), metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
		case err != nil:
			t.Errorf("%s %s/%s: %v", gvk.Kind, o.GetNamespace(), o.GetName(), err)
		default:
			t.Errorf("%s %s/%s is still there after the uninstall (deletionTimestamp %v)", gvk.Kind, o.GetNamespace(), o.GetName(), got.GetDeletionTimestamp())
		}
	}
}

// server is a minimal OGXServer; no controller runs, so it only has to be
// stored.
const server = `apiVersion: ogx.io/v1beta1
kind: OGXServer
metadata:
  name: kept
spec:
  distribution:
    name: starter
`

// kubectlPath is framework.KubectlPath, failing the test when it is missing.
func kubectlPath(t *testing.T) string {
	t.Helper()
	p, err := framework.KubectlPath()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// clients are a dynamic client and a REST mapper for the control plane.
func clients(t *testing.T) (*dynamic.DynamicClient, meta.RESTMapper) {
	t.Helper()
	cfg := cp.Config()
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return dyn, restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))
}

// waitEstablished waits until the CRD named name reports Established.
func waitEstablished(t *testing.T, name string) {
	t.Helper()
	dyn, err := dynamic.NewForConfig(cp.Config())
	if err != nil {
		t.Fatal(err)
	}
	crds := dyn.Resource(apiextensionsv1.SchemeGroupVersion.WithResource("customresourcedefinitions"))
	framework.Poll(t, time.Minute, "CRD "+name+" to be Established", func(ctx context.Context) (bool, error) {
		crd, err := crds.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		conditions, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
		for _, c := range conditions {
			if m, ok := c.(map[string]any); ok && m["type"] == string(apiextensionsv1.Established) && m["status"] == "True" {
				return true, nil
			}
		}
		return false, nil
	})
}
