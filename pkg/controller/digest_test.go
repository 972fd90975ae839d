package controller

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/ogx-k8s/ogx-controller/pkg/controller/record"
)

func TestPodImageDigest(t *testing.T) {
	const img = "docker.io/ogxai/distribution-starter:latest"
	const id = "docker.io/ogxai/distribution-starter@sha256:" + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	// pod is the view of a pod whose only container is name.
	pod := func(name, image, imageID string, ready bool) *podView {
		v, err := newPodView(&corev1.Pod{Status: corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{
			{Name: name, Image: image, ImageID: imageID, Ready: ready}}}})
		if err != nil {
			t.Fatal(err)
		}
		return v.(*podView)
	}
	for _, tc := range []struct {
		name string
		pods []*podView
		want string
	}{
		{"ready ogx container", []*podView{pod("ogx", img, id, true)}, "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"},
		{"normalised image name", []*podView{pod("ogx", "ogxai/distribution-starter:latest", id, true)}, "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"},
		{"not ready", []*podView{pod("ogx", img, id, false)}, ""},
		{"another container", []*podView{pod("sidecar", img, id, true)}, ""},
		{"an older image", []*podView{pod("ogx", "docker.io/ogxai/distribution-starter:0.1", id, true)}, ""},
		{"no digest reported", []*podView{pod("ogx", img, "", true)}, ""},
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
	view, err := newPodView(full.DeepCopy())
	if err != nil {
		t.Fatal(err)
	}
	want := &podView{
		ObjectMeta: metav1.ObjectMeta{Name: "demo-1", Namespace: "ns", UID: "p1", ResourceVersion: "7"},
		Instance:   "demo", Image: img, ImageID: "docker.io/ogxai/distribution-starter@" + digest, Ready: true,
	}
	if d := cmp.Diff(want, view); d != "" {
		t.Errorf("newPodView (-want +got):\n%s", d)
	}
	if c := view.(*podView).DeepCopyObject(); !cmp.Equal(c, view) {
		t.Errorf("DeepCopyObject: %s", cmp.Diff(view, c))
	}
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, instanceIndexers())
	if err := indexer.Add(view); err != nil {
		t.Fatal(err)
	}
	p := newPodDigests(func(ns, instance string) []*podView {
		objs, err := indexer.ByIndex(indexInstance, Key(ns, instance))
		if err != nil {
			t.Fatal(err)
		}
		var pods []*podView
		for _, o := range objs {
			pods = append(pods, o.(*podView))
		}
		return pods
	}, record.New())
	if got := p.lookup("u1", "ns", "demo", img); got != digest {
		t.Errorf("lookup(demo) = %q, want %q", got, digest)
	}
	if got := p.lookup("u2", "ns", "other", img); got != "" {
		t.Errorf("lookup(other) = %q, want none", got)
	}
}

func TestPodViewChanged(t *testing.T) {
	base := podView{Instance: "demo", Image: "i", ImageID: "i@sha256:1", Ready: true}
	for _, tc := range []struct {
		name   string
		change func(*podView)
		want   bool
	}{
		{"resourceVersion only", func(p *podView) { p.ResourceVersion = "9" }, false},
		{"readiness", func(p *podView) { p.Ready = false }, true},
		{"image", func(p *podView) { p.Image = "j" }, true},
		{"imageID", func(p *podView) { p.ImageID = "i@sha256:2" }, true},
	} {
		cur := base
		tc.change(&cur)
		if got := podViewChanged(&base, &cur); got != tc.want {
			t.Errorf("%s: changed = %v, want %v", tc.name, got, tc.want)
		}
	}
	if !podViewChanged(&base, &corev1.Pod{}) {
		t.Errorf("an object of another type must count as a change")
	}
	if got := byInstance(&base); len(got) != 1 || got[0] != "/demo" {
		t.Errorf("byInstance = %v", got)
	}
}
