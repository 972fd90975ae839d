// Package validation holds the OGXServer checks that need more than the
// CRD schema and its CEL rules: the admission webhook runs them before an
// object is stored, the controllers again on every pass (an object stored
// while the webhook was down must not be acted on), and migrate on what it
// converts. It depends on the API types only.
package validation

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

// MaxNameLength is the longest OGXServer name: "<name>-prometheus-rules", the
// longest child name, must fit in 63 characters.
const MaxNameLength = 46

var (
	rfc1123LabelRE = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	rfc1035LabelRE = regexp.MustCompile(`^[a-z]([-a-z0-9]*[a-z0-9])?$`)
)

// Validate runs every admission check on obj and returns all failures, in
// report order: A1, A2, A3, A4/A5 (adopt-storage, then adopt-networking), A6,
// A7, A8, A9, A10, A11. The check IDs are those of docs/admission.md, Checks.
func Validate(obj *ogxv1beta1.OGXServer) field.ErrorList {
	return validate(obj, true)
}

// ValidateSpec is Validate without the adoption checks A4/A5: what the
// controllers re-validate on every pass, since a failure of those only
// disables adoption (ValidateAdoption).
func ValidateSpec(obj *ogxv1beta1.OGXServer) field.ErrorList {
	return validate(obj, false)
}

func validate(obj *ogxv1beta1.OGXServer, adoption bool) field.ErrorList {
	var errs field.ErrorList
	spec := &obj.Spec
	entries := spec.Providers.Entries()
	errs = append(errs, validateDistributionName(spec)...)
	errs = append(errs, validateProviderIDs(entries)...)
	errs = append(errs, validateModelProviders(spec, entries)...)
	if adoption {
		errs = append(errs, ValidateAdoption(obj)...)
	}
	errs = append(errs, validateDistributionValues(spec)...)
	errs = append(errs, validateName(obj.Name)...)
	_, envErrs := ogxv1beta1.SecretEnv(spec)
	errs = append(errs, envErrs...)
	errs = append(errs, validateRedisEndpoint(spec)...)
	errs = append(errs, validateCustomTypes(entries)...)
	errs = append(errs, validateCustomSettings(entries)...)
	return errs
}

// A1: a distribution name must be a registry name.
func validateDistributionName(spec *ogxv1beta1.OGXServerSpec) field.ErrorList {
	name := spec.DistributionName()
	if name == "" {
		return nil
	}
	if _, ok := ogxv1beta1.Distributions()[name]; ok {
		return nil
	}
	return field.ErrorList{field.Invalid(field.NewPath("spec", "distribution", "name"), name,
		fmt.Sprintf("unknown distribution %q; available distributions: %s", name,
			strings.Join(ogxv1beta1.DistributionNames(), ", ")))}
}

// A2: derived provider IDs are unique across all APIs; every repeat is
// reported at the repeating item, naming the first occurrence.
func validateProviderIDs(entries []ogxv1beta1.ProviderEntry) field.ErrorList {
	var errs field.ErrorList
	first := map[string]*field.Path{}
	for _, e := range entries {
		if p, ok := first[e.ID]; ok {
			errs = append(errs, field.Invalid(e.IDPath(), e.ID,
				fmt.Sprintf("duplicate provider ID %q (first defined at %s)", e.ID, p)))
			continue
		}
		first[e.ID] = e.IDPath()
	}
	return errs
}

// A3: with both spec.resources and spec.providers set, an explicit model
// provider must be one of the derived IDs. Without spec.providers the
// providers come from the base config, which admission cannot see.
func validateModelProviders(spec *ogxv1beta1.OGXServerSpec, entries []ogxv1beta1.ProviderEntry) field.ErrorList {
	if spec.Resources == nil || spec.Providers == nil {
		return nil
	}
	known := map[string]bool{}
	for _, e := range entries {
		known[e.ID] = true
	}
	ids := make([]string, 0, len(known))
	for id := range known {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var errs field.ErrorList
	for i, m := range spec.Resources.Models {
		if m.Provider == "" || known[m.Provider] {
			continue
		}
		errs = append(errs, field.Invalid(field.NewPath("spec", "resources", "models").Index(i).Child("provider"), m.Provider,
			fmt.Sprintf("references unknown provider ID; available: [%s]", strings.Join(ids, " "))))
	}
	return errs
}

// ValidateAdoption runs checks A4 and A5 on the adoption annotations. The
// controller calls it on its own: unlike the other checks, a failure here
// only skips legacy adoption (condition AdoptionConfigInvalid) instead of
// stopping the object.
func ValidateAdoption(obj *ogxv1beta1.OGXServer) field.ErrorList {
	var errs field.ErrorList
	for _, key := range []string{ogxv1beta1.AnnotationAdoptStorage, ogxv1beta1.AnnotationAdoptNetworking} {
		v, ok := obj.Annotations[key]
		if !ok || v == "" {
			continue
		}
		path := field.NewPath("metadata", "annotations").Key(key)
		switch {
		case v == obj.Name:
			errs = append(errs, field.Invalid(path, v,
				"adoption annotation value must not equal the CR name; same-name adoption causes resource conflicts"))
		case len(v) > 63:
			errs = append(errs, field.Invalid(path, v, fmt.Sprintf("value %q exceeds 63 characters", v)))
		case !rfc1123LabelRE.MatchString(v):
			errs = append(errs, field.Invalid(path, v, fmt.Sprintf("value %q is not a valid RFC 1123 DNS label", v)))
		}
	}
	return errs
}

// A6: a present distribution name or image is non-empty, and an image has no
// surrounding whitespace.
func validateDistributionValues(spec *ogxv1beta1.OGXServerSpec) field.ErrorList {
	var errs field.ErrorList
	d := field.NewPath("spec", "distribution")
	if n := spec.Distribution.Name; n != nil && *n == "" {
		errs = append(errs, field.Required(d.Child("name"), "must not be empty"))
	}
	if img := spec.Distribution.Image; img != nil {
		switch {
		case *img == "":
			errs = append(errs, field.Required(d.Child("image"), "must not be empty"))
		case strings.TrimSpace(*img) != *img:
			errs = append(errs, field.Invalid(d.Child("image"), *img, "must not have leading or trailing whitespace"))
		}
	}
	return errs
}

// A7: the name is an RFC 1035 label short enough for every child name.
func validateName(name string) field.ErrorList {
	path := field.NewPath("metadata", "name")
	if len(name) > MaxNameLength {
		return field.ErrorList{field.Invalid(path, name,
			"must be no more than 46 characters so that every child object name fits in 63 characters")}
	}
	if !rfc1035LabelRE.MatchString(name) {
		return field.ErrorList{field.Invalid(path, name,
			"must be a lowercase RFC 1035 label (start with a letter; letters, digits and '-' only; end with a letter or digit)")}
	}
	return nil
}

// A9: a redis kv store needs a non-empty endpoint.
func validateRedisEndpoint(spec *ogxv1beta1.OGXServerSpec) field.ErrorList {
	if spec.Storage == nil || spec.Storage.KV == nil || spec.Storage.KV.Type != "redis" || spec.Storage.KV.Endpoint != "" {
		return nil
	}
	return field.ErrorList{field.Required(field.NewPath("spec", "storage", "kv", "endpoint"), "must not be empty when type is redis")}
}

// A10: a custom provider's type names a provider after its prefix.
func validateCustomTypes(entries []ogxv1beta1.ProviderEntry) field.ErrorList {
	var errs field.ErrorList
	for _, e := range entries {
		c, ok := e.Provider.(*ogxv1beta1.CustomProvider)
		if !ok {
			continue
		}
		rest, found := strings.CutPrefix(c.Type, "remote::")
		if !found {
			rest, found = strings.CutPrefix(c.Type, "inline::")
		}
		if !found || rest == "" {
			errs = append(errs, field.Invalid(e.Path.Child("type"), c.Type,
				"must name a provider after the 'remote::' or 'inline::' prefix"))
		}
	}
	return errs
}

// A11: custom settings are a JSON object sharing no key with secretRefs.
func validateCustomSettings(entries []ogxv1beta1.ProviderEntry) field.ErrorList {
	var errs field.ErrorList
	for _, e := range entries {
		c, ok := e.Provider.(*ogxv1beta1.CustomProvider)
		if !ok || c.Settings == nil || len(c.Settings.Raw) == 0 || string(c.Settings.Raw) == "null" {
			continue
		}
		path := e.Path.Child("settings")
		var settings map[string]json.RawMessage
		if err := json.Unmarshal(c.Settings.Raw, &settings); err != nil {
			errs = append(errs, field.Invalid(path, string(c.Settings.Raw), "must be a JSON object"))
			continue
		}
		keys := make([]string, 0, len(settings))
		for k := range settings {
			if _, dup := c.SecretRefs[k]; dup {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			errs = append(errs, field.Invalid(path.Key(k), k, fmt.Sprintf("key %q appears in both secretRefs and settings", k)))
		}
	}
	return errs
}
