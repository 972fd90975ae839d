package resolve

import (
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/distribution/reference"
	"sigs.k8s.io/yaml"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

// DistributionTable is the registry of distribution images after the
// RELATED_IMAGE_* environment has been applied; it is read once at start.
type DistributionTable map[string]string

// NewDistributionTable applies RELATED_IMAGE_<NAME> variables (looked up with
// getenv, os.Getenv in production) to the built-in registry.
func NewDistributionTable(getenv func(string) string) DistributionTable {
	if getenv == nil {
		getenv = os.Getenv
	}
	t := DistributionTable(ogxv1beta1.Distributions())
	for name := range t {
		if img := getenv(ogxv1beta1.RelatedImageEnv(name)); img != "" {
			t[name] = img
		}
	}
	return t
}

// ImageOverrides parses the image-overrides key of the operator ConfigMap: a
// YAML map of distribution name to image. Entries whose image is not a valid
// reference are dropped and reported in problems, as is invalid YAML (then no
// override applies).
func ImageOverrides(data string) (overrides map[string]string, problems []string) {
	if data == "" {
		return nil, nil
	}
	var raw map[string]string
	if err := yaml.Unmarshal([]byte(data), &raw); err != nil {
		return nil, []string{fmt.Sprintf("invalid %s YAML: %v", render.ImageOverridesKey, err)}
	}
	names := make([]string, 0, len(raw))
	for n := range raw {
		names = append(names, n)
	}
	sort.Strings(names)
	overrides = map[string]string{}
	for _, n := range names {
		if _, err := reference.ParseAnyReference(raw[n]); err != nil || raw[n] == "" {
			problems = append(problems, fmt.Sprintf("%s[%s]: %q is not a valid image reference", render.ImageOverridesKey, n, raw[n]))
			continue
		}
		overrides[n] = raw[n]
	}
	return overrides, problems
}

// UnknownOverrides returns a problem for each override naming no
// distribution of t, sorted by name. Such an entry never applies (only a
// distribution.name of the table is resolved through the overrides), so it
// is most likely a typo the operator's owner wants to hear about.
func (t DistributionTable) UnknownOverrides(overrides map[string]string) []string {
	var problems []string
	for n := range overrides {
		if _, ok := t[n]; !ok {
			problems = append(problems, fmt.Sprintf("%s[%s]: no distribution is named %q; the entry is ignored", render.ImageOverridesKey, n, n))
		}
	}
	sort.Strings(problems)
	return problems
}

// ResolveImage picks the server image (docs/controllers.md, Image resolution):
// an explicit image verbatim; a distribution name through the overrides, then
// the table.
func (t DistributionTable) ResolveImage(spec *ogxv1beta1.OGXServerSpec, overrides map[string]string) (string, error) {
	if spec.Distribution.Image != nil {
		if *spec.Distribution.Image == "" {
			return "", NewUserError(ogxv1beta1.ReasonInvalidSpec, "spec.distribution.image must not be empty")
		}
		return *spec.Distribution.Image, nil
	}
	name := spec.DistributionName()
	if img, ok := overrides[name]; ok {
		return img, nil
	}
	if img, ok := t[name]; ok {
		return img, nil
	}
	if name == "" {
		// distribution: {} (the CRD refuses it; an object stored before
		// that rule, or render's offline input, can still carry it).
		return "", &UserError{Reason: ogxv1beta1.ReasonInvalidSpec, Event: ogxv1beta1.EventUnknownDistribution,
			Err: fmt.Errorf("spec.distribution: set name (one of: %s) or image", strings.Join(ogxv1beta1.DistributionNames(), ", "))}
	}
	return "", &UserError{Reason: ogxv1beta1.ReasonInvalidSpec, Event: ogxv1beta1.EventUnknownDistribution,
		Err: fmt.Errorf("failed to validate distribution: %s. Distribution name not supported", name)}
}
