package status

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/ogx-k8s/ogx-controller/pkg/controller/caches"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/record"
)

func TestPodImageDigest(t *testing.T) {
	const img = "docker.io/ogxai/distribution-starter:latest"
	const id = "docker.io/ogxai/distribution-starter@sha256:" + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	// pod is the view of a pod whose only container is name.
	pod := func(name, image, imageID string, ready bool) *caches.PodView {
		v, err := caches.NewPodView(&corev1.Pod{Status: corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{
			{Name: name, Image: image, ImageID: imageID, Ready: ready}}}})
		if err != nil {
			t.Fatal(err)
		}
		return v.(*caches.PodView)
	}
	for _, tc := range []struct {
		name string
		pods []*caches.PodView
		want string
	}{
		{"ready ogx container", []*caches.PodView{pod("ogx", img, id, true)}, "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"},
		{"normalised image name", []*caches.PodView{pod("ogx", "ogxai/distribution-starter:latest", id, true)}, "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"},
		{"not ready", []*caches.PodView{pod("ogx", img, id, false)}, ""},
		{"another container", []*caches.PodView{pod("sidecar", img, id, true)}, ""},
		{"an older image", []*caches.PodView{pod("ogx", "docker.io/ogxai/distribution-starter:0.1", id, true)}, ""},
		{"no digest reported", []*caches.PodView{pod("ogx", img, "", true)}, ""},
	} {
		if got := podImageDigest(tc.pods, img); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestPodDigestsFromCache: the digest comes from the transformed pod cache,
// with no request, and only from pods of the named instance.
func TestPodDigestsFromCache(t *testing.T) {
	const img = "docker.io/ogxai/distribution-starter:latest"
	const digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	full := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "demo-1", Namespace: "ns", UID: "p1", ResourceVersion: "7",
			Labels:        map[string]string{"app": "ogx", "app.kubernetes.io/instance": "demo"},
			Annotations:   map[string]string{"big": "annotation"},
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubelet"}}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "ogx", Image: img}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{
			{Name: "ogx", Image: img, ImageID: "docker.io/ogxai/distribution-starter@" + digest, Ready: true},
			{Name: "sidecar", Image: "x", Ready: true},
		}},
	}
	view, err := caches.NewPodView(full.DeepCopy())
	if err != nil {
		t.Fatal(err)
	}
	want := &caches.PodView{
		ObjectMeta: metav1.ObjectMeta{Name: "demo-1", Namespace: "ns", UID: "p1", ResourceVersion: "7"},
		Instance:   "demo", Image: img, ImageID: "docker.io/ogxai/distribution-starter@" + digest, Ready: true,
	}
	if d := cmp.Diff(want, view); d != "" {
		t.Errorf("caches.NewPodView (-want +got):\n%s", d)
	}
	if c := view.(*caches.PodView).DeepCopyObject(); !cmp.Equal(c, view) {
		t.Errorf("DeepCopyObject: %s", cmp.Diff(view, c))
	}
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, caches.InstanceIndexers())
	if err := indexer.Add(view); err != nil {
		t.Fatal(err)
	}
	p := newPodDigests(func(ns, instance string) []*caches.PodView {
		objs, err := indexer.ByIndex(caches.IndexInstance, caches.Key(ns, instance))
		if err != nil {
			t.Fatal(err)
		}
		var pods []*caches.PodView
		for _, o := range objs {
			pods = append(pods, o.(*caches.PodView))
		}
		return pods
	}, record.New())
	if got := p.Lookup("u1", "ns", "demo", img); got != digest {
		t.Errorf("lookup(demo) = %q, want %q", got, digest)
	}
	if got := p.Lookup("u2", "ns", "other", img); got != "" {
		t.Errorf("lookup(other) = %q, want none", got)
	}
}
