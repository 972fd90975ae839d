package controller

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ogx-k8s/ogx-controller/pkg/controller/record"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

// podView is what the pod cache keeps of one of our pods: its identity,
// its instance label (the index and the event handler map it to its
// OGXServer) and the ogx container's image, imageID and readiness, about
// 400 bytes where a corev1.Pod struct alone is three times that. Tombstones
// and handlers see the same type.
type podView struct {
	metav1.TypeMeta
	metav1.ObjectMeta
	// Instance is the pod's instance label.
	Instance string
	// Image, ImageID and Ready are the ogx container's, from its status.
	Image, ImageID string
	Ready          bool
}

// DeepCopyObject makes podView a runtime.Object, as caches need.
func (p *podView) DeepCopyObject() runtime.Object {
	c := *p
	p.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	return &c
}

// newPodView is the pod cache transform (see podView). Objects of other
// types (a tombstone) pass unchanged.
func newPodView(obj any) (any, error) {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return obj, nil
	}
	out := &podView{
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

// podViewChanged filters pod updates to those the image digest can see.
func podViewChanged(old, cur any) bool {
	o, ok1 := old.(*podView)
	c, ok2 := cur.(*podView)
	if !ok1 || !ok2 {
		return true
	}
	return o.Image != c.Image || o.ImageID != c.ImageID || o.Ready != c.Ready
}

// podDigests learns the digest of the image an OGXServer's pods run from a
// ready pod's container status, for status.resolvedDistribution.image, when
// neither the reference nor the base-config resolution gave one. Pods come
// from a label-filtered cache holding only what this needs (podView), so
// a lookup costs no request and does not grow with the namespace; a found
// digest is kept per OGXServer and image.
type podDigests struct {
	// pods returns the cached pods of one instance.
	pods func(namespace, instance string) []*podView

	record.Slot[digestRecord]
}

type digestRecord struct{ image, digest string }

func newPodDigests(pods func(namespace, instance string) []*podView, r *record.Store) *podDigests {
	return &podDigests{pods: pods, Slot: record.NewSlot[digestRecord](r)}
}

// lookup returns the digest of image for the OGXServer, or "".
func (p *podDigests) lookup(uid types.UID, namespace, name, image string) string {
	if r, ok := p.Get(uid); ok && r.image == image {
		return r.digest
	}
	digest := podImageDigest(p.pods(namespace, name), image)
	if digest != "" {
		p.Set(uid, digestRecord{image: image, digest: digest})
	}
	return digest
}

// podImageDigest returns the sha256 digest of the ogx container's imageID in
// a ready pod running image, or "".
func podImageDigest(pods []*podView, image string) string {
	for _, pod := range pods {
		if !pod.Ready || !sameImage(pod.Image, image) {
			continue
		}
		if at := strings.LastIndex(pod.ImageID, "@sha256:"); at >= 0 {
			return pod.ImageID[at+1:]
		}
	}
	return ""
}

// sameImage compares the image a container status reports with the
// reference in the pod spec; runtimes may report it normalised (docker.io/
// prefix added or removed).
func sameImage(reported, spec string) bool {
	trim := func(s string) string {
		s = strings.TrimPrefix(s, "docker.io/")
		return strings.TrimPrefix(s, "library/")
	}
	return reported == spec || trim(reported) == trim(spec)
}
