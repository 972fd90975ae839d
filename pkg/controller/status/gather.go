package status

import (
	"context"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/configgen"
	"github.com/ogx-k8s/ogx-controller/pkg/configgen/oci"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/caches"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/record"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
	"github.com/ogx-k8s/ogx-controller/pkg/resolve"
)

// reports reads what boardComplete needs: the server, the controllers'
// outcomes and its Deployment.
func (c *Controller) reports(s *ogxv1beta1.OGXServer) statusInputs {
	in := statusInputs{server: s, outcomes: c.d.Board.Get(s.UID), controllers: c.controllers}
	if d, ok := c.d.Children.Deployments.Current(s.Namespace, s.Name); ok && metav1.IsControlledBy(d.Obj, s) {
		in.deployment = d.Obj
	}
	return in
}

// gather reads the rest of what computeStatus needs into in.
func (c *Controller) gather(ctx context.Context, in *statusInputs) {
	s := in.server
	in.facts = c.d.Board.Facts(s.UID)
	in.probeEnabled, in.operatorVersion = c.d.Opts.ProbeEnabled, c.d.Opts.OperatorVersion
	in.clusterDomain, in.table = c.d.Resolver.ClusterDomain, c.d.Resolver.Table
	in.now = metav1.NewTime(c.d.Opts.Clock.Now().Truncate(time.Second))
	in.pvcName, _ = c.d.Resolver.EffectivePVCName(s)
	if svc, ok := c.d.Children.Services.Current(s.Namespace, render.ServiceName(s.Name)); ok && metav1.IsControlledBy(svc.Obj, s) {
		in.serviceExists = true
	}
	if ing, ok := c.d.Children.Ingresses.Current(s.Namespace, render.IngressName(s.Name)); ok && metav1.IsControlledBy(ing.Obj, s) {
		in.ingress = ing.Obj
	}
	in.pvc = c.d.Caches.For(s.Namespace).PVC(s.Namespace, in.pvcName)
	if img, err := c.d.Resolver.Image(s); err == nil {
		in.image = img
	}
	in.lastHandledRecheck = c.d.Resolver.Pins.LastHandled(s)
	switch s.Spec.ConfigMode() {
	case ogxv1beta1.ConfigModeInactive:
		in.configSource = "builtin"
	case ogxv1beta1.ConfigModeOverride:
		in.configSource = "override"
		in.configHash = overrideHash(ctx, c.d.Resolver, s)
	case ogxv1beta1.ConfigModeGenerated:
		// Read only: status shows the config the configmap and deployment
		// controllers generated for this generation, never generates (nor
		// reads a registry) itself.
		if g, ok := c.d.Resolver.Memo.Current(s.UID, s.Generation); ok {
			in.generated = &g
			in.configSource, in.configHash = g.BaseSource, g.BaseHash
			if g.ImageDigest != "" && in.image != "" {
				in.image = oci.PinnedImage(in.image, g.ImageDigest)
			}
		} else {
			keepReportedConfig(s, in)
		}
	}
	// Without a digest from the reference or the base-config resolution, a
	// ready pod tells which image it actually runs.
	if in.image != "" && !strings.Contains(in.image, "@sha256:") && in.deployment != nil && in.deployment.Status.AvailableReplicas > 0 {
		if digest := c.digests.Lookup(s.UID, s.Namespace, s.Name, in.image); digest != "" {
			in.image = oci.PinnedImage(in.image, digest)
		}
	}
	if c.d.Opts.ProbeEnabled && in.deployment != nil && in.deployment.Status.AvailableReplicas > 0 {
		in.probe = c.probe(ctx, s, in.deployment)
	}
}

// keepReportedConfig keeps what status last reported about the generated
// config while the config of a new generation is not generated yet (status
// is queued with the generating controllers and often runs first): the
// fields stay until the new values are known instead of going blank for
// one write. The image keeps its pinned digest only if it is still the
// same image.
func keepReportedConfig(s *ogxv1beta1.OGXServer, in *statusInputs) {
	rd := s.Status.ResolvedDistribution
	// Only a base of the kind the current spec uses is kept: after a switch
	// (from override or inactive mode, or between spec.baseConfig and image
	// labels) the old values would name the wrong source.
	want := configgen.SourceOCILabel
	if s.Spec.BaseConfig != nil {
		want = configgen.SourceConfigMap
	}
	if rd == nil || rd.ConfigSource != want {
		return
	}
	in.configSource, in.configHash = rd.ConfigSource, rd.ConfigHash
	if in.image != "" && strings.HasPrefix(rd.Image, in.image+"@") {
		in.image = rd.Image
	}
}

// overrideHash is sha256:<hex> of the override config content.
func overrideHash(ctx context.Context, r *base.Resolver, s *ogxv1beta1.OGXServer) string {
	text, err := r.ConfigMapKey(ctx, s.Namespace, *s.Spec.OverrideConfig, "spec.overrideConfig", resolve.PrefixConfigMap, "override config")
	if err != nil {
		return ""
	}
	return configgen.ConfigHash([]byte(text))
}

// podDigests learns the digest of the image an OGXServer's pods run (for
// status.resolvedDistribution.image) from a ready pod's container status,
// when neither the reference nor the base-config resolution gave one. Pods
// come from a cache of PodViews, so a lookup sends no request; a found
// digest is kept per OGXServer and image.
type podDigests struct {
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
