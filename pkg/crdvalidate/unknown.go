package crdvalidate

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	"k8s.io/apimachinery/pkg/runtime"
)

// UnknownField is a field of an object that its schema does not define:
// one the API server would drop in silence.
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

// UnknownFields returns the fields of obj that the API server's pruning
// would drop on a create, each with the defined field nearest to it; obj
// is not changed. Top-level fields come first, then the rest in path order
// (keys sorted, array items by index). Like the API server, it leaves
// apiVersion, kind and metadata to their own checks and keeps whatever is
// below x-kubernetes-preserve-unknown-fields. Status is not looked at: with
// the status subresource, the API server drops it from a create anyway.
func (s *Schema) UnknownFields(obj map[string]any) []UnknownField {
	pruned := maps.Clone(obj)
	if _, ok := s.structural.Properties["status"]; ok {
		delete(pruned, "status")
	}
	paths := pruning.PruneWithOptions(runtime.DeepCopyJSON(pruned), s.structural, true,
		structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})
	if len(paths) == 0 {
		return nil
	}

	type located struct {
		steps []any // keys (string) and array indices (int) from the root
		field UnknownField
	}
	all := make([]located, 0, len(paths))
	for _, p := range paths {
		steps, parent, ok := locate(obj, s.structural, p, nil)
		if !ok {
			// Not expected: the pruner only records fields it found.
			all = append(all, located{steps: []any{p}, field: UnknownField{Path: p}})
			continue
		}
		u := UnknownField{Path: p}
		if parent != nil {
			u.Suggestion = nearest(steps[len(steps)-1].(string), parent.Properties)
		}
		all = append(all, located{steps: steps, field: u})
	}
	slices.SortStableFunc(all, func(a, b located) int {
		return cmp.Or(cmp.Compare(min(len(a.steps), 2), min(len(b.steps), 2)), compareSteps(a.steps, b.steps))
	})
	out := make([]UnknownField, 0, len(all))
	for _, l := range all {
		out = append(out, l.field)
	}
	return out
}

// locate finds in x, under schema s, the unknown field the pruner recorded
// as path, and returns the keys and indices that lead to it (appended to
// steps) and the schema of the object that holds it (nil if none). Keys may
// contain dots and brackets, so path is matched against x's own keys rather
// than split.
func locate(x any, s *structuralschema.Structural, path string, steps []any) ([]any, *structuralschema.Structural, bool) {
	switch x := x.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			rest, ok := strings.CutPrefix(path, k)
			if !ok {
				continue
			}
			at := append(slices.Clip(steps), k)
			if rest == "" {
				if s == nil || !defines(s, k) {
					return at, s, true
				}
				continue
			}
			child, ok := childSchema(s, k)
			if rest, more := below(rest); ok && more {
				if st, parent, ok := locate(x[k], child, rest, at); ok {
					return st, parent, true
				}
			}
		}
	case []any:
		index, rest, ok := strings.Cut(strings.TrimPrefix(path, "["), "]")
		i, err := strconv.Atoi(index)
		if !ok || !strings.HasPrefix(path, "[") || err != nil || i < 0 || i >= len(x) {
			return nil, nil, false
		}
		var items *structuralschema.Structural
		if s != nil {
			items = s.Items
		}
		if rest, more := below(rest); more {
			return locate(x[i], items, rest, append(slices.Clip(steps), i))
		}
	}
	return nil, nil, false
}

// below returns the part of a path after one step: past the dot before a
// key, or at the bracket of an index; false if nothing follows.
func below(rest string) (string, bool) {
	if r, ok := strings.CutPrefix(rest, "."); ok {
		return r, true
	}
	return rest, strings.HasPrefix(rest, "[")
}

// defines reports whether schema s defines key k of its objects.
func defines(s *structuralschema.Structural, k string) bool {
	_, ok := s.Properties[k]
	return ok || s.AdditionalProperties != nil
}

// childSchema is the schema of key k of an object of schema s; false if
// the pruner does not descend into k.
func childSchema(s *structuralschema.Structural, k string) (*structuralschema.Structural, bool) {
	if s == nil {
		return nil, false
	}
	if p, ok := s.Properties[k]; ok {
		return &p, true
	}
	if s.AdditionalProperties != nil {
		return s.AdditionalProperties.Structural, true
	}
	return nil, false
}

// compareSteps orders paths as a walk with sorted keys visits them: key by
// key, array indices by number.
func compareSteps(a, b []any) int {
	for i := range min(len(a), len(b)) {
		ka, aKey := a[i].(string)
		kb, bKey := b[i].(string)
		switch {
		case aKey && bKey:
			if c := strings.Compare(ka, kb); c != 0 {
				return c
			}
		case !aKey && !bKey:
			if c := cmp.Compare(a[i].(int), b[i].(int)); c != 0 {
				return c
			}
		case aKey:
			return -1
		default:
			return 1
		}
	}
	return cmp.Compare(len(a), len(b))
}

// nearest returns the property name closest to name: equal but for case,
// or within an edit distance of about a third of its length; "" if none is.
func nearest(name string, props map[string]structuralschema.Structural) string {
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
