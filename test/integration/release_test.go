package integration

import (
	"context"
	"path/filepath"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/restmapper"

	"github.com/ogx-k8s/ogx-controller/test/framework"
)

// TestReleaseManifestApplies applies release/ogx-controller.yaml with
// server-side apply, as `kubectl apply --server-side -f` does, and checks
// the API server accepts every object. The webhook registration is removed
// again at once: nothing serves it here, and with failurePolicy Fail it
// would block the other tests' OGXServer writes.
func TestReleaseManifestApplies(t *testing.T) {
	root, err := framework.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	objs, err := framework.ReadObjects(filepath.Join(root, "release", "ogx-controller.yaml"))
	if err != nil {
		t.Fatalf("reading the release file (make release writes it): %v", err)
	}
	ctx := t.Context()
	dc, err := discovery.NewDiscoveryClientForConfig(restConfig)
	if err != nil {
		t.Fatal(err)
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))
	t.Cleanup(func() {
		_ = cp.Client().AdmissionregistrationV1().ValidatingWebhookConfigurations().Delete(context.Background(),
			"ogx-controller-validating-webhook-configuration", metav1.DeleteOptions{})
	})
	applied := map[string]int{}
	for _, obj := range objs {
		gvk := obj.GroupVersionKind()
		mapping, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			t.Fatalf("%s %s: %v", gvk, obj.GetName(), err)
		}
		res := dyn.Resource(mapping.Resource)
		var ri interface {
			Apply(context.Context, string, *unstructured.Unstructured, metav1.ApplyOptions, ...string) (*unstructured.Unstructured, error)
		} = res
		if obj.GetNamespace() != "" {
			ri = res.Namespace(obj.GetNamespace())
		}
		if _, err := ri.Apply(ctx, obj.GetName(), obj, metav1.ApplyOptions{FieldManager: "kubectl", Force: true}); err != nil {
			t.Errorf("applying %s %s/%s: %v", gvk.Kind, obj.GetNamespace(), obj.GetName(), err)
			continue
		}
		applied[gvk.Kind]++
	}
	for _, kind := range []string{"Namespace", "CustomResourceDefinition", "ServiceAccount", "ClusterRole", "ClusterRoleBinding",
		"Role", "RoleBinding", "Deployment", "Service", "PodDisruptionBudget", "ValidatingWebhookConfiguration"} {
		if applied[kind] == 0 {
			t.Errorf("the release file has no %s", kind)
		}
	}
}
