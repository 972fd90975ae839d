package v1beta1

import (
	"maps"
	"slices"
	"strings"
)

// ActiveDistributionCustom is status.distributionConfig.activeDistribution
// when spec.distribution.image is used.
const ActiveDistributionCustom = "custom"

// Distributions returns the built-in distribution registry: name to default
// image. Names are compiled in; nothing adds one at run time. A fresh map is
// returned each call so callers may change it.
func Distributions() map[string]string {
	return map[string]string{
		"starter":            "docker.io/ogxai/distribution-starter:latest",
		"remote-vllm":        "docker.io/ogxai/distribution-remote-vllm:latest",
		"meta-reference-gpu": "docker.io/ogxai/distribution-meta-reference-gpu:latest",
		"postgres-demo":      "docker.io/ogxai/distribution-postgres-demo:latest",
	}
}

// DistributionNames returns the registry's names, sorted.
func DistributionNames() []string {
	return slices.Sorted(maps.Keys(Distributions()))
}

// RelatedImageEnv is the environment variable that overrides the image of a
// registry name: RELATED_IMAGE_ followed by the name upper-cased with "-"
// turned into "_".
func RelatedImageEnv(name string) string {
	return "RELATED_IMAGE_" + strings.ReplaceAll(strings.ToUpper(name), "-", "_")
}
