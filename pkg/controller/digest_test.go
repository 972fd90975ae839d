package controller

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

func TestPodImageDigest(t *testing.T) {
	const img = "docker.io/ogxai/distribution-starter:latest"
	const id = "docker.io/ogxai/distribution-starter@sha256:" + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	pod := func(name, image, imageID string, ready bool) *corev1.Pod {
		return &corev1.Pod{Status: corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{
			{Name: name, Image: image, ImageID: imageID, Ready: ready}}}}
	}
	for _, tc := range []struct {
		name string
		pods []*corev1.Pod
		want string
	}{
		{"ready ogx container", []*corev1.Pod{pod("ogx", img, id, true)}, "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"},
		{"normalised image name", []*corev1.Pod{pod("ogx", "ogxai/distribution-starter:latest", id, true)}, "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"},
		{"not ready", []*corev1.Pod{pod("ogx", img, id, false)}, ""},
		{"another container", []*corev1.Pod{pod("sidecar", img, id, true)}, ""},
		{"an older image", []*corev1.Pod{pod("ogx", "docker.io/ogxai/distribution-starter:0.1", id, true)}, ""},
		{"no digest reported", []*corev1.Pod{pod("ogx", img, "", true)}, ""},
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
	view, err := digestView(full.DeepCopy())
	if err != nil {
		t.Fatal(err)
	}
	want := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "demo-1", Namespace: "ns", UID: "p1", ResourceVersion: "7",
			Labels: map[string]string{"app.kubernetes.io/instance": "demo"}},
		Status: corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{
			{Name: "ogx", Image: img, ImageID: "docker.io/ogxai/distribution-starter@" + digest, Ready: true}}},
	}
	if d := cmp.Diff(want, view); d != "" {
		t.Errorf("digestView (-want +got):\n%s", d)
	}
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, instanceIndexers())
	if err := indexer.Add(view); err != nil {
		t.Fatal(err)
	}
	p := newPodDigests(func(ns, instance string) []*corev1.Pod {
		objs, err := indexer.ByIndex(indexInstance, Key(ns, instance))
		if err != nil {
			t.Fatal(err)
		}
		var pods []*corev1.Pod
		for _, o := range objs {
			pods = append(pods, o.(*corev1.Pod))
		}
		return pods
	})
	if got := p.lookup("u1", "ns", "demo", img); got != digest {
		t.Errorf("lookup(demo) = %q, want %q", got, digest)
	}
	if got := p.lookup("u2", "ns", "other", img); got != "" {
		t.Errorf("lookup(other) = %q, want none", got)
	}
}
