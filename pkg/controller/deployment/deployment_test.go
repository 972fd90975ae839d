package deployment

// Unit tests of the Deployment strategy switch (deployment.go). The
// rendered strategy itself (Recreate with storage) is pinned in
// render/deployment_test.go; this is the patch that moves a live
// Deployment between the two.

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/controllertest"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

func TestSwitchStrategy(t *testing.T) {
	recreate := appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
	rolling := appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType}
	strategyEntry := func(subresource string) []metav1.ManagedFieldsEntry {
		return []metav1.ManagedFieldsEntry{{Manager: render.StrategyFieldManager, Operation: metav1.ManagedFieldsOperationUpdate, Subresource: subresource}}
	}
	wantRecreate := appsv1ac.Deployment(controllertest.Name, controllertest.Namespace).WithSpec(appsv1ac.DeploymentSpec().
		WithStrategy(appsv1ac.DeploymentStrategy().WithType(appsv1.RecreateDeploymentStrategyType)))
	wantDefault := appsv1ac.Deployment(controllertest.Name, controllertest.Namespace).WithSpec(appsv1ac.DeploymentSpec())
	cases := []struct {
		name    string
		live    appsv1.DeploymentStrategy
		entries []metav1.ManagedFieldsEntry
		desired *appsv1ac.DeploymentApplyConfiguration
		// patch is the merge patch sent; "" for none.
		patch string
	}{
		{"storage added: to Recreate, rollingUpdate cleared", rolling, nil, wantRecreate,
			`{"metadata":{"resourceVersion":"9"},"spec":{"strategy":{"rollingUpdate":null,"type":"Recreate"}}}`},
		{"already Recreate", recreate, strategyEntry(""), wantRecreate, ""},
		{"storage removed: back to RollingUpdate", recreate, strategyEntry(""), wantDefault,
			`{"metadata":{"resourceVersion":"9"},"spec":{"strategy":{"type":"RollingUpdate"}}}`},
		{"Recreate set by someone else is left alone", recreate, nil, wantDefault, ""},
		{"a status entry of the strategy manager does not count", recreate, strategyEntry("status"), wantDefault, ""},
		{"RollingUpdate stays", rolling, nil, wantDefault, ""},
		{"desired without spec", rolling, nil, appsv1ac.Deployment(controllertest.Name, controllertest.Namespace), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			live := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: controllertest.Name, Namespace: controllertest.Namespace, ResourceVersion: "9",
				ManagedFields: c.entries}, Spec: appsv1.DeploymentSpec{Strategy: c.live}}
			kube := kubefake.NewClientset(live.DeepCopy())
			deps := &base.Deps{Kube: kube, Caches: controllertest.AdoptedCaches(t)}
			if err := switchStrategy(context.Background(), deps, live, c.desired); err != nil {
				t.Fatal(err)
			}
			var patches []string
			for _, a := range controllertest.Writes(kube.Actions()) {
				p, ok := a.(clienttesting.PatchActionImpl)
				if !ok || p.GetName() != controllertest.Name || p.GetResource() != appsv1.SchemeGroupVersion.WithResource("deployments") || p.PatchOptions.FieldManager != render.StrategyFieldManager {
					t.Errorf("unexpected write %s", controllertest.ActionString(a))
					continue
				}
				patches = append(patches, string(p.GetPatch()))
			}
			var want []string
			if c.patch != "" {
				want = []string{c.patch}
			}
			if d := cmp.Diff(want, patches); d != "" {
				t.Errorf("patches (-want +got):\n%s", d)
			}
		})
	}
}
