package caches

import (
	"context"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"

	"github.com/ogx-k8s/ogx-controller/pkg/controller/apply"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

// TestDeploymentDigestReuse: a Deployment event that changes nothing the
// owned digest reads reuses the cached view's digest, and any change to
// what it reads extracts again. Every case also edits an owned spec value
// without raising the generation (which the API server never does), so a
// reused digest shows as the old one.
func TestDeploymentDigestReuse(t *testing.T) {
	ctx := context.Background()
	deployments := kubefake.NewClientset().AppsV1().Deployments("team-a")
	if _, err := deployments.Apply(ctx, viewDeploymentAC("img:1", nil), apply.ApplyOptions()); err != nil {
		t.Fatal(err)
	}
	stored, err := deployments.Get(ctx, "demo", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	stored.Generation = 1
	stored.Annotations = map[string]string{"a": "1"}
	for _, tc := range []struct {
		name   string
		change func(d *appsv1.Deployment)
		reuse  bool
	}{
		{"status write", func(d *appsv1.Deployment) { d.Status.ReadyReplicas = 1 }, true},
		{"last-applied annotation added", func(d *appsv1.Deployment) {
			d.Annotations = map[string]string{corev1.LastAppliedConfigAnnotation: "{}"}
		}, true},
		{"generation raised", func(d *appsv1.Deployment) { d.Generation = 2 }, false},
		{"generation 0 (never stored)", func(d *appsv1.Deployment) { d.Generation = 0 }, false},
		{"new UID", func(d *appsv1.Deployment) { d.UID = "other" }, false},
		{"annotation of another manager added", func(d *appsv1.Deployment) {
			d.Annotations = map[string]string{"deployment.kubernetes.io/revision": "1"}
		}, true},
		{"label value changed", func(d *appsv1.Deployment) { d.Labels[render.LabelManagedBy] = "other" }, false},
		// A key on one side only is the field set's to tell (this one
		// would be, were it ours).
		{"label removed", func(d *appsv1.Deployment) { delete(d.Labels, render.LabelManagedBy) }, true},
		{"annotation value changed", func(d *appsv1.Deployment) { d.Annotations = map[string]string{"a": "2"} }, false},
		{"owner references changed", func(d *appsv1.Deployment) { d.OwnerReferences = nil }, false},
		{"finalizer added", func(d *appsv1.Deployment) { d.Finalizers = []string{"x"} }, false},
		{"our field set changed", func(d *appsv1.Deployment) {
			raw := strings.Replace(string(d.ManagedFields[0].FieldsV1.Raw), `"f:spec":{`, `"f:spec":{"f:paused":{},`, 1)
			d.ManagedFields[0].FieldsV1 = &metav1.FieldsV1{Raw: []byte(raw)}
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			views := testViews()
			views.prior = &priorViews{deployments: cache.NewIndexer(cache.MetaNamespaceKeyFunc, nil)}
			first, err := views.transform(stored.DeepCopy())
			if err != nil {
				t.Fatal(err)
			}
			if err := views.prior.deployments.Add(first); err != nil {
				t.Fatal(err)
			}
			next := stored.DeepCopy()
			next.Spec.Template.Spec.Containers[0].Image = "img:2"
			tc.change(next)
			out, err := views.transform(next)
			if err != nil {
				t.Fatal(err)
			}
			before, after := knownDeployment(t, first).Digest, knownDeployment(t, out).Digest
			if reused := before == after; reused != tc.reuse {
				t.Errorf("digest reused = %v, want %v", reused, tc.reuse)
			}
			if got := out.(*apply.CachedChild).OwnedFieldSet; got == ([32]byte{}) {
				t.Error("the view keeps no field-set sum")
			}
		})
	}
}
