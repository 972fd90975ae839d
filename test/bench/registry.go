package main

import (
	"fmt"

	"k8s.io/utils/ptr"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/configgen/oci/ocitest"
)

// Distribution variants of the servers the bench creates (-distribution).
const (
	// distributionName servers name the starter distribution: image and
	// config come from the operator's table, no registry is involved.
	distributionName = "name"
	// distributionOCILabel servers name an image by a moving tag on a
	// loopback registry and add one provider, so the operator generates
	// their config from the image's labels and pins the tag to a digest:
	// the fleet case of docs/config-generation.md's digest pinning, where
	// all servers share one resolution of the tag.
	distributionOCILabel = "oci-label"
)

// benchRepo and benchTag are the image every oci-label server names.
const benchRepo, benchTag = "ogx/distribution-starter", "latest"

// fleetImage is the registry of the oci-label variant and the image the
// servers name.
type fleetImage struct {
	reg    *ocitest.Registry
	image  string
	digest string
}

// startRegistry starts the loopback registry and pushes the image.
func startRegistry() (*fleetImage, error) {
	reg := ocitest.New()
	d, err := reg.Push(benchRepo, benchTag, ocitest.StarterBase)
	if err != nil {
		reg.Close()
		return nil, fmt.Errorf("pushing the bench image: %w", err)
	}
	return &fleetImage{reg: reg, image: reg.Image(benchRepo, benchTag), digest: d}, nil
}

// tagResolutions is how many times the tag was resolved, and how many
// requests the registry answered in all.
func (f *fleetImage) tagResolutions() (tag, all int) {
	return f.reg.TagRequests(benchRepo, benchTag), f.reg.Requests()
}

// serverSpec is the spec of every bench server: the starter distribution
// by name, or, with an image, that image and one vLLM provider.
func serverSpec(img *fleetImage) ogxv1beta1.OGXServerSpec {
	if img == nil {
		return ogxv1beta1.OGXServerSpec{Distribution: ogxv1beta1.DistributionSpec{Name: ptr.To("starter")}}
	}
	return ogxv1beta1.OGXServerSpec{
		Distribution: ogxv1beta1.DistributionSpec{Image: ptr.To(img.image)},
		Providers: &ogxv1beta1.ProvidersSpec{Inference: &ogxv1beta1.InferenceProviders{Remote: &ogxv1beta1.RemoteInferenceProviders{
			Vllm: []ogxv1beta1.VLLMProvider{{Endpoint: "http://vllm:8000/v1"}}}}},
	}
}
