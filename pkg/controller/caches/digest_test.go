package caches

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestPodViewChanged(t *testing.T) {
	base := PodView{Instance: "demo", Image: "i", ImageID: "i@sha256:1", Ready: true}
	for _, tc := range []struct {
		name   string
		change func(*PodView)
		want   bool
	}{
		{"resourceVersion only", func(p *PodView) { p.ResourceVersion = "9" }, false},
		{"readiness", func(p *PodView) { p.Ready = false }, true},
		{"image", func(p *PodView) { p.Image = "j" }, true},
		{"imageID", func(p *PodView) { p.ImageID = "i@sha256:2" }, true},
	} {
		cur := base
		tc.change(&cur)
		if got := PodViewChanged(&base, &cur); got != tc.want {
			t.Errorf("%s: changed = %v, want %v", tc.name, got, tc.want)
		}
	}
	if !PodViewChanged(&base, &corev1.Pod{}) {
		t.Errorf("an object of another type must count as a change")
	}
	if got := ByInstance(&base); len(got) != 1 || got[0] != "/demo" {
		t.Errorf("byInstance = %v", got)
	}
}
