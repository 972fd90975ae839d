// Package crdschema applies a CRD's structural OpenAPI schema to an object
// decoded from YAML or JSON, offline: the defaults the API server would set
// and the fields it would drop as unknown. The migrate command uses it so a
// legacy file is read the way the API server reads it: a field the schema
// defaults (replicas: 1) gets its default, and a misspelt field is an error
// naming its path and the nearest valid name instead of being lost.
//
// Objects are what encoding/json or sigs.k8s.io/yaml decode into any:
// map[string]any, []any and scalars.
package crdschema

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// Default sets, in place, every default of schema s the API server would
// set on obj: a property absent from an object (or null where the schema
// does not allow null) gets the property's default, and defaults apply
// inside it in turn, in array items and in map values.
func Default(obj any, s *apiextensionsv1.JSONSchemaProps) error {
	if s == nil {
		return nil
	}
	switch o := obj.(type) {
	case map[string]any:
		for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
			p := s.Properties[name]
			v, present := o[name]
			if p.Default != nil && (!present || (v == nil && !p.Nullable)) {
				var d any
				if err := json.Unmarshal(p.Default.Raw, &d); err != nil {
					return fmt.Errorf("default of %s: %w", name, err)
				}
				o[name] = d
			}
			if err := Default(o[name], &p); err != nil {
				return err
			}
		}
		if ap := s.AdditionalProperties; ap != nil && ap.Schema != nil {
			for _, k := range slices.Sorted(maps.Keys(o)) {
				if err := Default(o[k], ap.Schema); err != nil {
					return err
				}
			}
		}
	case []any:
		if s.Items != nil && s.Items.Schema != nil {
			for _, v := range o {
				if err := Default(v, s.Items.Schema); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// UnknownField is a field of an object that its schema does not define.
type UnknownField struct {
	// Path is the field's path from the object's root, e.g.
	// spec.server.storge or spec.server.containerSpec.env[0].nmae.
	Path string
	// Suggestion is the defined field nearest to the unknown one, or "".
	Suggestion string
}

func (u UnknownField) String() string {
	if u.Suggestion == "" {
		return fmt.Sprintf("%s: unknown field", u.Path)
	}
	return fmt.Sprintf("%s: unknown field (did you mean %s?)", u.Path, u.Suggestion)
}

// Unknown returns every field of obj that schema s does not define, in
// path order. path is obj's own path ("" for a root). Below a property
// that preserves unknown fields or is an embedded resource, nothing is
// unknown.
func Unknown(obj any, s *apiextensionsv1.JSONSchemaProps, path string) []UnknownField {
	if s == nil || s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields || s.XEmbeddedResource {
		return nil
	}
	var out []UnknownField
	switch o := obj.(type) {
	case map[string]any:
		if ap := s.AdditionalProperties; ap != nil {
			if ap.Schema != nil {
				for _, k := range slices.Sorted(maps.Keys(o)) {
					out = append(out, Unknown(o[k], ap.Schema, join(path, k))...)
				}
			}
			return out
		}
		for _, k := range slices.Sorted(maps.Keys(o)) {
			p, ok := s.Properties[k]
			if !ok {
				out = append(out, UnknownField{Path: join(path, k), Suggestion: Nearest(k, s.Properties)})
				continue
			}
			out = append(out, Unknown(o[k], &p, join(path, k))...)
		}
	case []any:
		if s.Items != nil && s.Items.Schema != nil {
			for i, v := range o {
				out = append(out, Unknown(v, s.Items.Schema, fmt.Sprintf("%s[%d]", path, i))...)
			}
		}
	}
	return out
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// Nearest returns the property name closest to name: equal but for case,
// or within an edit distance of about a third of its length; "" if none is.
func Nearest(name string, props map[string]apiextensionsv1.JSONSchemaProps) string {
	best, bestDist := "", len(name)/3+1
	for _, p := range slices.Sorted(maps.Keys(props)) {
		if strings.EqualFold(p, name) {
			return p
		}
		if d := editDistance(strings.ToLower(name), strings.ToLower(p)); d <= bestDist && (best == "" || d < bestDist) {
			best, bestDist = p, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b (bytes).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
