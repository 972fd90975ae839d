package controller

import (
	"context"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"

	ogxfake "github.com/ogx-k8s/ogx-controller/pkg/generated/clientset/versioned/fake"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

// appliedDeployment returns a Deployment as the API server stores it after
// our apply of desired: with our Apply entry and its field set.
func appliedDeployment(t *testing.T, kube *kubefake.Clientset, replicas *int32) *appsv1.Deployment {
	t.Helper()
	ctx := context.Background()
	deployments := kube.AppsV1().Deployments("team-a")
	if _, err := deployments.Apply(ctx, viewDeploymentAC("img:1", replicas), applyOptions()); err != nil {
		t.Fatal(err)
	}
	d, err := deployments.Get(ctx, "demo", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d.Generation = 1
	return d
}

// tamperedDigest is a digest no extraction gives: a view carrying it shows
// that the transform reused the cached view instead of extracting.
var tamperedDigest = strings.Repeat("f", digestLen)

// withTamperedDigest returns a copy of the view v whose digest is
// tamperedDigest, its source fingerprint kept.
func withTamperedDigest(v *appsv1.Deployment) *appsv1.Deployment {
	out := v.DeepCopy()
	for i, e := range out.ManagedFields {
		if e.FieldsType == viewDigestFieldsType {
			out.ManagedFields[i] = digestEntry(tamperedDigest + viewSource(v))
		}
	}
	return out
}

// TestDeploymentViewReuse: the transform reuses the cached view's digest
// when only what the digest does not read changed, and extracts again on
// any change to the identity, the metadata we may own, the spec or our
// field set.
func TestDeploymentViewReuse(t *testing.T) {
	kube := kubefake.NewClientset()
	base := appliedDeployment(t, kube, ptr.To[int32](2))
	out, err := testViews().transform(base.DeepCopy())
	if err != nil {
		t.Fatal(err)
	}
	cached := out.(*appsv1.Deployment)
	if viewSource(cached) == "" || viewSource(cached) != deploymentSource(base) {
		t.Fatalf("view source %q, want the fingerprint of our entry %q", viewSource(cached), deploymentSource(base))
	}
	// The cached view as a lookup would return it, with a digest only reuse
	// can produce.
	tampered := withTamperedDigest(cached)
	reapplied := appliedDeployment(t, kube, nil) // our field set without spec.replicas

	tests := []struct {
		name   string
		cached any // nil: nothing cached under the key
		change func(d *appsv1.Deployment) *appsv1.Deployment
		reuse  bool
	}{
		{"status only", tampered, func(d *appsv1.Deployment) *appsv1.Deployment {
			d.Status.AvailableReplicas, d.ResourceVersion = 2, "99"
			return d
		}, true},
		{"another manager's entry and the last-applied annotation", tampered, func(d *appsv1.Deployment) *appsv1.Deployment {
			d.ManagedFields = append(d.ManagedFields, metav1.ManagedFieldsEntry{Manager: "kube-controller-manager",
				Operation: metav1.ManagedFieldsOperationUpdate, Subresource: "status"})
			d.Annotations = map[string]string{"kubectl.kubernetes.io/last-applied-configuration": "{}"}
			return d
		}, true},
		{"generation raised alone", tampered, func(d *appsv1.Deployment) *appsv1.Deployment {
			d.Generation++
			return d
		}, true},
		{"spec changed, by us or anyone, with the same field set and generation", tampered, func(d *appsv1.Deployment) *appsv1.Deployment {
			d.Spec.Template.Spec.Containers[0].Image = "img:2"
			return d
		}, false},
		{"label changed", tampered, func(d *appsv1.Deployment) *appsv1.Deployment {
			d.Labels = map[string]string{render.LabelManagedBy: "someone-else"}
			return d
		}, false},
		{"annotation added", tampered, func(d *appsv1.Deployment) *appsv1.Deployment {
			d.Annotations = map[string]string{"note": "x"}
			return d
		}, false},
		{"owner reference changed", tampered, func(d *appsv1.Deployment) *appsv1.Deployment {
			d.OwnerReferences[0].Controller = ptr.To(false)
			return d
		}, false},
		{"finalizer added", tampered, func(d *appsv1.Deployment) *appsv1.Deployment {
			d.Finalizers = []string{"example.com/hold"}
			return d
		}, false},
		{"our field set changed, nothing else", tampered, func(d *appsv1.Deployment) *appsv1.Deployment {
			ourApplyEntry(d.ManagedFields).FieldsV1 = ourApplyEntry(reapplied.ManagedFields).FieldsV1.DeepCopy()
			return d
		}, false},
		{"another object under the name", tampered, func(d *appsv1.Deployment) *appsv1.Deployment {
			d.UID = "other"
			return d
		}, false},
		{"nothing cached", nil, func(d *appsv1.Deployment) *appsv1.Deployment { return d }, false},
		{"cached whole, not as a view", base.DeepCopy(), func(d *appsv1.Deployment) *appsv1.Deployment { return d }, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := tc.change(base.DeepCopy())
			fresh, err := testViews().transform(d.DeepCopy())
			if err != nil {
				t.Fatal(err)
			}
			extracted, _ := viewDigest(fresh.(*appsv1.Deployment))

			views := testViews()
			views.prior = &viewLookup{deployment: func(key string) (any, bool, error) {
				if key != "team-a/demo" {
					t.Errorf("looked up %q", key)
				}
				return tc.cached, tc.cached != nil, nil
			}}
			out, err := views.transform(d)
			if err != nil {
				t.Fatal(err)
			}
			view := out.(*appsv1.Deployment)
			got, _ := viewDigest(view)
			want := extracted
			if tc.reuse {
				want = tamperedDigest
			}
			if got != want {
				t.Errorf("digest %.12s…, want %.12s… (reuse %v)", got, want, tc.reuse)
			}
			if viewSource(view) != deploymentSource(d) {
				t.Errorf("view source %q, want %q", viewSource(view), deploymentSource(d))
			}
			owns, _ := ownsReplicas(view)
			wantOwns, _ := ownsReplicas(fresh.(*appsv1.Deployment))
			if owns != wantOwns {
				t.Errorf("ownsReplicas %v, want %v", owns, wantOwns)
			}
		})
	}
}

// TestCachesReuseDeploymentViews: the caches wire the Deployment informer's
// own store as the transform's lookup, so a status-only change keeps the
// cached digest (made recognisable here) without extracting again.
func TestCachesReuseDeploymentViews(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	kube := kubefake.NewClientset()
	appliedDeployment(t, kube, ptr.To[int32](1))
	caches := NewCaches(kube, ogxfake.NewSimpleClientset(), []string{"team-a"}, "ogx-system",
		[]string{render.FieldManager}, nil)
	caches.Start(ctx)
	if err := caches.WaitForSync(ctx, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	indexer := caches.For("team-a").childIndexers["Deployment"]
	obj, exists, err := indexer.GetByKey("team-a/demo")
	if err != nil || !exists {
		t.Fatalf("Deployment not cached: %v", err)
	}
	tampered := withTamperedDigest(obj.(*appsv1.Deployment))
	if err := indexer.Update(tampered); err != nil {
		t.Fatal(err)
	}

	d, err := kube.AppsV1().Deployments("team-a").Get(ctx, "demo", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d.Status.AvailableReplicas = 1
	if _, err := kube.AppsV1().Deployments("team-a").UpdateStatus(ctx, d, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	err = wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		obj, _, _ := indexer.GetByKey("team-a/demo")
		v := obj.(*appsv1.Deployment)
		return v.Status.AvailableReplicas == 1, nil
	})
	if err != nil {
		t.Fatal("the status change never reached the cache")
	}
	obj, _, _ = indexer.GetByKey("team-a/demo")
	if got, _ := viewDigest(obj.(*appsv1.Deployment)); got != tamperedDigest {
		t.Errorf("digest after a status change %.12s…: extracted again instead of reusing the cached view's", got)
	}
}
