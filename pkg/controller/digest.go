package controller

import (
	"context"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/ogx-k8s/ogx-controller/pkg/controller/render"
)

// digestLookupInterval bounds the live pod LISTs made to learn an image
// digest: at most one per OGXServer per interval until it is found.
const digestLookupInterval = 30 * time.Second

// podDigests learns the digest of the image an OGXServer's pods run from a
// ready pod's container status (controller spec §4.2), for
// status.resolvedDistribution.image, when neither the reference nor the
// base-config resolution gave one. Found digests are kept per OGXServer and
// image; pods are never cached, so the lookup is a live LIST, rate-limited.
type podDigests struct {
	kube kubernetes.Interface
	now  func() time.Time

	mu    sync.Mutex
	found map[types.UID]digestRecord
	tried map[types.UID]time.Time
}

type digestRecord struct{ image, digest string }

func newPodDigests(kube kubernetes.Interface) *podDigests {
	return &podDigests{kube: kube, now: time.Now, found: map[types.UID]digestRecord{}, tried: map[types.UID]time.Time{}}
}

// lookup returns the digest of image for the OGXServer, or "".
func (p *podDigests) lookup(ctx context.Context, uid types.UID, namespace, name, image string) string {
	p.mu.Lock()
	if r, ok := p.found[uid]; ok && r.image == image {
		p.mu.Unlock()
		return r.digest
	}
	if t, ok := p.tried[uid]; ok && p.now().Sub(t) < digestLookupInterval {
		p.mu.Unlock()
		return ""
	}
	p.tried[uid] = p.now()
	p.mu.Unlock()

	sel := labels.SelectorFromSet(labels.Set{render.LabelInstance: name}).String()
	pods, err := p.kube.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{LabelSelector: sel})
	if err != nil {
		return ""
	}
	digest := podImageDigest(pods.Items, image)
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
	delete(p.tried, uid)
}

// podImageDigest returns the sha256 digest of the ogx container's imageID in
// a ready pod running image, or "".
func podImageDigest(pods []corev1.Pod, image string) string {
	for i := range pods {
		pod := &pods[i]
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
