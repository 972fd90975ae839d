package caches

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/ogx-k8s/ogx-controller/pkg/controller/apply"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

// TestDeploymentNonStatusChanged: only updates of what the deployment pass
// reads pass the filter; kube-controller-manager's status writes do not.
func TestDeploymentNonStatusChanged(t *testing.T) {
	view := func(change func(*apply.CachedChild, *deploymentBody)) *apply.CachedChild {
		body := &deploymentBody{replicas: ptr.To[int32](1), strategy: appsv1.RollingUpdateDeploymentStrategyType}
		c := &apply.CachedChild{Body: body, OwnedDigest: testDigest("owned"), Meta: metav1.ObjectMeta{
			Namespace: "ns", Name: "demo", UID: "u", Generation: 1, ResourceVersion: "10",
			Labels:          map[string]string{"app": "demo"},
			Annotations:     map[string]string{"ours": "x"},
			OwnerReferences: []metav1.OwnerReference{{Kind: "OGXServer", Name: "demo", UID: "s", Controller: ptr.To(true)}},
			ManagedFields:   []metav1.ManagedFieldsEntry{{Manager: "ogx-controller", Operation: metav1.ManagedFieldsOperationApply, APIVersion: "apps/v1", FieldsType: "FieldsV1"}},
		}}
		if change != nil {
			change(c, body)
		}
		return c
	}
	old := view(nil)
	for _, tc := range []struct {
		name   string
		change func(*apply.CachedChild, *deploymentBody)
		want   bool
	}{
		{"nothing", nil, false},
		{"status, resourceVersion, an annotation of another's, a /status entry", func(c *apply.CachedChild, b *deploymentBody) {
			b.status = appsv1.DeploymentStatus{ObservedGeneration: 1, Replicas: 1}
			c.Meta.ResourceVersion = "11"
			c.Meta.Annotations = map[string]string{"ours": "x", "deployment.kubernetes.io/revision": "1"}
			c.Meta.ManagedFields = append(c.Meta.ManagedFields, metav1.ManagedFieldsEntry{Manager: "kube-controller-manager",
				Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "apps/v1", FieldsType: "FieldsV1", Subresource: "status"})
		}, false},
		{"owned digest", func(c *apply.CachedChild, _ *deploymentBody) { c.OwnedDigest = testDigest("other") }, true},
		{"replica ownership", func(c *apply.CachedChild, _ *deploymentBody) { c.OwnsReplicas = true }, true},
		{"generation", func(c *apply.CachedChild, _ *deploymentBody) { c.Meta.Generation = 2 }, true},
		{"UID", func(c *apply.CachedChild, _ *deploymentBody) { c.Meta.UID = "v" }, true},
		{"labels", func(c *apply.CachedChild, _ *deploymentBody) { c.Meta.Labels = map[string]string{"app": "other"} }, true},
		{"finalizers", func(c *apply.CachedChild, _ *deploymentBody) { c.Meta.Finalizers = []string{"f"} }, true},
		{"owner", func(c *apply.CachedChild, _ *deploymentBody) { c.Meta.OwnerReferences = nil }, true},
		{"deletion", func(c *apply.CachedChild, _ *deploymentBody) { c.Meta.DeletionTimestamp = &metav1.Time{} }, true},
		{"another manager outside /status", func(c *apply.CachedChild, _ *deploymentBody) {
			c.Meta.ManagedFields = append(c.Meta.ManagedFields, metav1.ManagedFieldsEntry{Manager: render.StrategyFieldManager,
				Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "apps/v1", FieldsType: "FieldsV1"})
		}, true},
		{"replicas", func(_ *apply.CachedChild, b *deploymentBody) { b.replicas = ptr.To[int32](2) }, true},
		{"strategy", func(_ *apply.CachedChild, b *deploymentBody) { b.strategy = appsv1.RecreateDeploymentStrategyType }, true},
		{"kept whole", func(c *apply.CachedChild, _ *deploymentBody) { c.Whole = &appsv1.Deployment{} }, true},
	} {
		if got := DeploymentNonStatusChanged(old, view(tc.change)); got != tc.want {
			t.Errorf("%s: changed = %v, want %v", tc.name, got, tc.want)
		}
	}
}
