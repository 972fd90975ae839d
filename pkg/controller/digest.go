package controller

import (
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ogx-k8s/ogx-controller/pkg/controller/render"
)

// podDigests learns the digest of the image an OGXServer's pods run from a
// ready pod's container status, for status.resolvedDistribution.image, when
// neither the reference nor the base-config resolution gave one. Pods come
// from a label-filtered cache holding only what this needs (digestView), so
// a lookup costs no request and does not grow with the namespace; a found
// digest is kept per OGXServer and image.
type podDigests struct {
	// pods returns the cached pods of one instance.
	pods func(namespace, instance string) []*corev1.Pod

	mu    sync.Mutex
	found map[types.UID]digestRecord
}

type digestRecord struct{ image, digest string }

func newPodDigests(pods func(namespace, instance string) []*corev1.Pod) *podDigests {
	return &podDigests{pods: pods, found: map[types.UID]digestRecord{}}
}

// lookup returns the digest of image for the OGXServer, or "".
func (p *podDigests) lookup(uid types.UID, namespace, name, image string) string {
	p.mu.Lock()
	if r, ok := p.found[uid]; ok && r.image == image {
		p.mu.Unlock()
		return r.digest
	}
	p.mu.Unlock()
	digest := podImageDigest(p.pods(namespace, name), image)
	if digest != "" {
		p.mu.Lock()
		p.found[uid] = digestRecord{image: image, digest: digest}
		p.mu.Unlock()
	}
	return digest
}

func (p *podDigests) forget(uid types.UID) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.found, uid)
}

// podImageDigest returns the sha256 digest of the ogx container's imageID in
// a ready pod running image, or "".
func podImageDigest(pods []*corev1.Pod, image string) string {
	for _, pod := range pods {
		for _, cs := range pod.Status.ContainerStatuses {
			if cs.Name != render.ContainerName || !cs.Ready || !sameImage(cs.Image, image) {
				continue
			}
			if at := strings.LastIndex(cs.ImageID, "@sha256:"); at >= 0 {
				return cs.ImageID[at+1:]
			}
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
