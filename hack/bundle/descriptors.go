package main

import (
	"maps"
	"slices"
	"strings"
	"unicode"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// specDepth is how deep spec descriptors go: the top-level sections and
// their fields (workload.replicas, network.port, ...), which is what a
// console form can show usefully; deeper fields are reached through YAML.
const specDepth = 2

// descriptors derives OLM spec and status descriptors from a CRD version's
// schema, so they follow the API without being maintained by hand: the
// display name comes from the field name, the description from the first
// sentence of the field's doc comment, and the x-descriptors from the
// field's type and role.
func descriptors(schema *apiextensionsv1.JSONSchemaProps) (spec, status []descriptor) {
	if s, ok := schema.Properties["spec"]; ok {
		spec = walk(s, "", specDepth)
	}
	if s, ok := schema.Properties["status"]; ok {
		status = walk(s, "", 1)
	}
	return spec, status
}

func walk(s apiextensionsv1.JSONSchemaProps, prefix string, depth int) []descriptor {
	var out []descriptor
	for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
		p := s.Properties[name]
		path := prefix + name
		out = append(out, descriptor{
			Path:         path,
			DisplayName:  displayName(name),
			Description:  firstSentence(p.Description),
			XDescriptors: xDescriptors(name, p),
		})
		if depth > 1 && p.Type == "object" && len(p.Properties) > 0 {
			out = append(out, walk(p, path+".", depth-1)...)
		}
	}
	return out
}

// xDescriptors picks the console widgets OLM defines for a field's role.
func xDescriptors(name string, p apiextensionsv1.JSONSchemaProps) []string {
	const ui = "urn:alm:descriptor:com.tectonic.ui:"
	switch {
	case name == "conditions":
		return []string{"urn:alm:descriptor:io.kubernetes.conditions"}
	case name == "phase":
		return []string{"urn:alm:descriptor:io.kubernetes.phase"}
	case name == "replicas" || name == "availableReplicas":
		return []string{ui + "podCount"}
	case name == "resources" && p.Properties["limits"].Type != "" && p.Properties["requests"].Type != "":
		return []string{ui + "resourceRequirements"}
	case strings.HasSuffix(strings.ToLower(name), "url"):
		return []string{"urn:alm:descriptor:org.w3:link"}
	case p.Type == "boolean":
		return []string{ui + "booleanSwitch"}
	case p.Type == "integer" || p.Type == "number":
		return []string{ui + "number"}
	case p.Type == "string" && len(p.Enum) > 0:
		opts := []string{}
		for _, e := range p.Enum {
			opts = append(opts, ui+"select:"+strings.Trim(string(e.Raw), `"`))
		}
		return opts
	case p.Type == "string":
		return []string{ui + "text"}
	}
	return nil
}

// displayName turns a JSON field name into words: overrideConfig becomes
// "Override Config", externalURL "External URL", disabledAPIs "Disabled
// APIs".
// acronyms are words that the API spells in lower case (tls, kv) and a
// display name in capitals.
var acronyms = map[string]bool{"tls": true, "kv": true, "sql": true, "url": true, "id": true, "api": true, "ca": true}

func displayName(name string) string {
	var words []string
	runes := []rune(name)
	start := 0
	for i := 1; i < len(runes); i++ {
		upper := unicode.IsUpper(runes[i])
		// An upper-case run ends before a capital that starts a word
		// (URLPath: URL Path), but a plural s stays with it (APIs).
		pluralS := i+1 < len(runes) && runes[i+1] == 's' && (i+2 == len(runes) || unicode.IsUpper(runes[i+2]))
		nextLower := i+1 < len(runes) && unicode.IsLower(runes[i+1]) && !pluralS
		if upper && (!unicode.IsUpper(runes[i-1]) || nextLower) {
			words = append(words, string(runes[start:i]))
			start = i
		}
	}
	words = append(words, string(runes[start:]))
	for i, w := range words {
		if acronyms[w] {
			words[i] = strings.ToUpper(w)
			continue
		}
		r := []rune(w)
		r[0] = unicode.ToUpper(r[0])
		words[i] = string(r)
	}
	return strings.Join(words, " ")
}

// firstSentence is the first sentence of a doc comment, on one line.
func firstSentence(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if i := strings.Index(s, ". "); i >= 0 {
		return s[:i+1]
	}
	return s
}
