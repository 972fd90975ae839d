package controller

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestPodImageDigest(t *testing.T) {
	const img = "docker.io/ogxai/distribution-starter:latest"
	const id = "docker.io/ogxai/distribution-starter@sha256:" + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	pod := func(name, image, imageID string, ready bool) corev1.Pod {
		return corev1.Pod{Status: corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{
			{Name: name, Image: image, ImageID: imageID, Ready: ready}}}}
	}
	for _, tc := range []struct {
		name string
		pods []corev1.Pod
		want string
	}{
		{"ready ogx container", []corev1.Pod{pod("ogx", img, id, true)}, "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"},
		{"normalised image name", []corev1.Pod{pod("ogx", "ogxai/distribution-starter:latest", id, true)}, "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"},
		{"not ready", []corev1.Pod{pod("ogx", img, id, false)}, ""},
		{"another container", []corev1.Pod{pod("sidecar", img, id, true)}, ""},
		{"an older image", []corev1.Pod{pod("ogx", "docker.io/ogxai/distribution-starter:0.1", id, true)}, ""},
		{"no digest reported", []corev1.Pod{pod("ogx", img, "", true)}, ""},
	} {
		if got := podImageDigest(tc.pods, img); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}
