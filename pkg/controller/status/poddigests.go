package status

import (
	"strings"

	"k8s.io/apimachinery/pkg/types"

	"github.com/ogx-k8s/ogx-controller/pkg/controller/caches"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/record"
)

// podDigests learns the digest of the image an OGXServer's pods run from a
// ready pod's container status, for status.resolvedDistribution.image, when
// neither the reference nor the base-config resolution gave one. Pods come
// from a label-filtered cache holding only what this needs (PodView), so
// a lookup costs no request and does not grow with the namespace; a found
// digest is kept per OGXServer and image.
type podDigests struct {
	// pods returns the cached pods of one instance.
	pods func(namespace, instance string) []*caches.PodView

	record.Slot[digestRecord]
}

type digestRecord struct{ image, digest string }

// newPodDigests keeps its digests in r; pods lists an instance's cached pods.
func newPodDigests(pods func(namespace, instance string) []*caches.PodView, r *record.Store) *podDigests {
	return &podDigests{pods: pods, Slot: record.NewSlot[digestRecord](r)}
}

// Lookup returns the digest of image for the OGXServer, or "".
func (p *podDigests) Lookup(uid types.UID, namespace, name, image string) string {
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
func podImageDigest(pods []*caches.PodView, image string) string {
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
