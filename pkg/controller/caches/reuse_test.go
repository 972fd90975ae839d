package caches

import (
	"context"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"

	"github.com/ogx-k8s/ogx-controller/pkg/controller/apply"
	ogxfake "github.com/ogx-k8s/ogx-controller/pkg/generated/clientset/versioned/fake"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

// TestDeploymentDigestReuse: a Deployment event that changes nothing the
// owned digest reads reuses the cached view's digest, and any change to
// what it reads extracts again. Every case also edits an owned spec value
// without raising the generation (which the API server never does), so a
// reused digest shows as the old one.
func TestDeploymentDigestReuse(t *testing.T) {
	stored := storedDeployment(t, viewDeploymentAC("img:1", nil).WithAnnotations(map[string]string{"a": "1"}))
	for _, tc := range []struct {
		name   string
		change func(d *appsv1.Deployment)
		reuse  bool
	}{
		{"status write", func(d *appsv1.Deployment) { d.Status.ReadyReplicas = 1 }, true},
		{"last-applied annotation added", func(d *appsv1.Deployment) {
			d.Annotations[corev1.LastAppliedConfigAnnotation] = "{}"
		}, true},
		{"generation raised", func(d *appsv1.Deployment) { d.Generation = 2 }, false},

		{"new UID", func(d *appsv1.Deployment) { d.UID = "other" }, false},
		{"annotation of another manager added", func(d *appsv1.Deployment) {
			d.Annotations["deployment.kubernetes.io/revision"] = "1"
		}, true},
		{"label value changed", func(d *appsv1.Deployment) { d.Labels[render.LabelManagedBy] = "other" }, false},
		{"label removed", func(d *appsv1.Deployment) { delete(d.Labels, render.LabelManagedBy) }, false},
		// A webhook may drop one of our annotations without our field set
		// showing it.
		{"annotation of ours removed", func(d *appsv1.Deployment) { d.Annotations = nil }, false},
		{"annotation value changed", func(d *appsv1.Deployment) { d.Annotations["a"] = "2" }, false},
		{"owner references changed", func(d *appsv1.Deployment) { d.OwnerReferences = nil }, false},
		{"finalizer added", func(d *appsv1.Deployment) { d.Finalizers = []string{"x"} }, false},
		{"our field set changed", func(d *appsv1.Deployment) {
			raw := strings.Replace(string(d.ManagedFields[0].FieldsV1.Raw), `"f:spec":{`, `"f:spec":{"f:paused":{},`, 1)
			d.ManagedFields[0].FieldsV1 = &metav1.FieldsV1{Raw: []byte(raw)}
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			next := stored.DeepCopy()
			tc.change(next)
			if reused := transformTwice(t, stored, next, nil); reused != tc.reuse {
				t.Errorf("digest reused = %v, want %v", reused, tc.reuse)
			}
		})
	}
}

// TestDeploymentDigestReuseNeedsAStoredView: no reuse without a stored
// object, our Apply entry, or a digest in the view replaced; a reused view
// keeps whether we own the replicas.
func TestDeploymentDigestReuseNeedsAStoredView(t *testing.T) {
	replicas := int32(2)
	stored := storedDeployment(t, viewDeploymentAC("img:1", &replicas))
	never := stored.DeepCopy()
	never.Generation = 0
	if transformTwice(t, never, never.DeepCopy(), nil) {
		t.Error("reused the digest of an object of generation 0")
	}
	noEntry := stored.DeepCopy()
	noEntry.ManagedFields = nil
	if transformTwice(t, stored, noEntry, nil) {
		t.Error("reused a digest without our Apply entry")
	}
	whole := func(c *apply.CachedChild) { c.OwnedDigest = apply.Digest{} }
	if transformTwice(t, stored, stored.DeepCopy(), whole) {
		t.Error("reused the digest of a view without one")
	}
	views := testViews()
	views.prior = &priorViews{deployments: cache.NewIndexer(cache.MetaNamespaceKeyFunc, nil)}
	first, _ := views.transform(stored.DeepCopy())
	if err := views.prior.deployments.Add(first); err != nil {
		t.Fatal(err)
	}
	next := stored.DeepCopy()
	next.Spec.Replicas = nil // as a foreign edit would, had it kept our field set
	out, _ := views.transform(next)
	if owns, err := OwnsReplicas(knownDeployment(t, out)); err != nil || !owns {
		t.Errorf("a reused view says we own the replicas: %v, %v; want true", owns, err)
	}
}

// storedDeployment is ac applied on a fake, as an API server stores it
// (generation 1).
func storedDeployment(t *testing.T, ac *appsv1ac.DeploymentApplyConfiguration) *appsv1.Deployment {
	t.Helper()
	ctx := context.Background()
	deployments := kubefake.NewClientset().AppsV1().Deployments("team-a")
	if _, err := deployments.Apply(ctx, ac, apply.ApplyOptions()); err != nil {
		t.Fatal(err)
	}
	stored, err := deployments.Get(ctx, "demo", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	stored.Generation = 1
	return stored
}

// transformTwice caches the view of first (after edit, when given), then
// transforms next with an owned spec value changed without raising the
// generation, which the API server never does: a reused digest shows as
// the first view's.
func transformTwice(t *testing.T, first, next *appsv1.Deployment, edit func(*apply.CachedChild)) (reused bool) {
	t.Helper()
	views := testViews()
	views.prior = &priorViews{deployments: cache.NewIndexer(cache.MetaNamespaceKeyFunc, nil)}
	cached, err := views.transform(first.DeepCopy())
	if err != nil {
		t.Fatal(err)
	}
	c := cached.(*apply.CachedChild)
	digest := c.OwnedDigest
	if edit != nil {
		edit(c)
	}
	if err := views.prior.deployments.Add(c); err != nil {
		t.Fatal(err)
	}
	next = next.DeepCopy()
	next.Spec.Template.Spec.Containers[0].Image = "img:changed"
	out, err := views.transform(next)
	if err != nil {
		t.Fatal(err)
	}
	return !digest.IsZero() && knownDeployment(t, out).Digest == digest
}

// TestScopesReadPriorDeploymentViews: every scope's child transform reads
// the views its own Deployment cache holds; without that, reuse would stop
// silently.
func TestScopesReadPriorDeploymentViews(t *testing.T) {
	c := NewCaches(kubefake.NewClientset(), ogxfake.NewSimpleClientset(), []string{"a", "b"}, "ogx-system", nil, nil)
	for _, ns := range []string{"a", "b"} {
		s := c.For(ns)
		if s.prior == nil || s.prior.deployments == nil || s.prior.deployments != s.ChildIndexers["Deployment"] {
			t.Errorf("scope %s: the transform does not read its Deployment cache", ns)
		}
	}
}
