package caches

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

// PodView is what the pod cache keeps of one of our pods: its identity,
// its instance label (the index and the event handler map it to its
// OGXServer) and the ogx container's image, imageID and readiness, about
// 400 bytes where a corev1.Pod struct alone is three times that. Tombstones
// and handlers see the same type.
type PodView struct {
	metav1.TypeMeta
	metav1.ObjectMeta
	// Instance is the pod's instance label.
	Instance string
	// Image, ImageID and Ready are the ogx container's, from its status.
	Image, ImageID string
	Ready          bool
}

// DeepCopyObject makes PodView a runtime.Object, as caches need.
func (p *PodView) DeepCopyObject() runtime.Object {
	c := *p
	p.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	return &c
}

// NewPodView is the pod cache transform (see PodView). Objects of other
// types (a tombstone) pass unchanged. Exported for the status tests, which
// build pod caches of their own.
func NewPodView(obj any) (any, error) {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return obj, nil
	}
	out := &PodView{
		ObjectMeta: metav1.ObjectMeta{Name: pod.Name, Namespace: intern(pod.Namespace), UID: pod.UID, ResourceVersion: pod.ResourceVersion},
		Instance:   intern(pod.Labels[render.LabelInstance]),
	}
	for _, cs := range pod.Status.ContainerStatuses {
		if cs.Name == render.ContainerName {
			out.Image, out.ImageID, out.Ready = intern(cs.Image), cs.ImageID, cs.Ready
			break
		}
	}
	return out, nil
}

// PodViewChanged filters pod updates to those the image digest can see.
func PodViewChanged(old, cur any) bool {
	o, ok1 := old.(*PodView)
	c, ok2 := cur.(*PodView)
	if !ok1 || !ok2 {
		return true
	}
	return o.Image != c.Image || o.ImageID != c.ImageID || o.Ready != c.Ready
}
