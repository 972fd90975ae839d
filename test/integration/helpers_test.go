package integration

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"
)

var (
	ogxServerGVR = schema.GroupVersionResource{Group: "ogx.io", Version: "v1beta1", Resource: "ogxservers"}
	llsdGVR      = schema.GroupVersionResource{Group: "llamastack.io", Version: "v1alpha1", Resource: "llamastackdistributions"}
)

// dryRunCreate validates, defaults and admits a create without storing it.
// Strict field validation turns an unknown (misspelt) field into an error,
// so a typo in a test manifest cannot silently be pruned away and make a
// case test something other than it claims.
var dryRunCreate = metav1.CreateOptions{
	DryRun:          []string{metav1.DryRunAll},
	FieldValidation: metav1.FieldValidationStrict,
}

// notCheckedNote is the extra cause the apiserver appends when a blocking
// schema error (required, enum, too long, too many, wrong type) made it skip
// the CEL rules; it names no rule of the API, so assertions ignore it.
const notCheckedNote = "some validation rules were not checked"

// parseYAMLMap decodes a YAML (or JSON) mapping.
func parseYAMLMap(doc string) (map[string]any, error) {
	out := map[string]any{}
	if strings.TrimSpace(doc) == "" {
		return out, nil
	}
	if err := yaml.Unmarshal([]byte(doc), &out); err != nil {
		return nil, fmt.Errorf("decoding YAML %q: %w", doc, err)
	}
	return out, nil
}

// mergePatch applies patch to target with JSON merge-patch (RFC 7386)
// semantics: objects merge key by key, null deletes a key, anything else
// (scalars, lists) replaces. target may be modified.
func mergePatch(target, patch any) any {
	p, ok := patch.(map[string]any)
	if !ok {
		return patch
	}
	t, ok := target.(map[string]any)
	if !ok {
		t = map[string]any{}
	}
	for k, v := range p {
		if v == nil {
			delete(t, k)
			continue
		}
		t[k] = mergePatch(t[k], v)
	}
	return t
}

// newOGXServer builds an OGXServer whose spec is the YAML specYAML.
func newOGXServer(name, specYAML string) (*unstructured.Unstructured, error) {
	spec, err := parseYAMLMap(specYAML)
	if err != nil {
		return nil, err
	}
	return newObject("ogx.io/v1beta1", "OGXServer", name, spec)
}

// newObject builds an unstructured object with the given spec. It goes
// through JSON so numbers become int64 or float64 as they do in objects
// returned by the apiserver, which makes the two directly comparable.
func newObject(apiVersion, kind, name string, spec map[string]any) (*unstructured.Unstructured, error) {
	raw, err := json.Marshal(map[string]any{
		"apiVersion": apiVersion,
		"kind":       kind,
		"metadata":   map[string]any{"name": name},
		"spec":       spec,
	})
	if err != nil {
		return nil, fmt.Errorf("encoding %s %s: %w", kind, name, err)
	}
	obj := &unstructured.Unstructured{}
	if err := obj.UnmarshalJSON(raw); err != nil {
		return nil, fmt.Errorf("decoding %s %s: %w", kind, name, err)
	}
	return obj, nil
}

// nest wraps v in one single-key map per dot-separated element of path, so
// nest("a.b", v) is {a: {b: v}}.
func nest(path string, v any) map[string]any {
	parts := strings.Split(path, ".")
	out := map[string]any{parts[len(parts)-1]: v}
	for i := len(parts) - 2; i >= 0; i-- {
		out = map[string]any{parts[i]: out}
	}
	return out
}

// mustJSON encodes v for a case's patch; the values come from the test
// tables, so a failure is a bug in the test itself.
func mustJSON(v any) string {
	raw, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("encoding test patch: %v", err))
	}
	return string(raw)
}

// apiCauses returns the causes of an API error, and whether err is one.
func apiCauses(err error) ([]metav1.StatusCause, bool) {
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		return nil, false
	}
	if d := status.Status().Details; d != nil {
		return d.Causes, true
	}
	return nil, true
}

// describeAPIError renders an error with every cause on its own line, so a
// failing case shows the complete answer of the apiserver.
func describeAPIError(err error) string {
	if err == nil {
		return "<nil>"
	}
	var b strings.Builder
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		s := status.Status()
		fmt.Fprintf(&b, "%s (HTTP %d, reason %s)", s.Message, s.Code, s.Reason)
		if s.Details != nil {
			for _, c := range s.Details.Causes {
				fmt.Fprintf(&b, "\n\t\tcause: type=%s field=%q message=%q", c.Type, c.Field, c.Message)
			}
		}
		return b.String()
	}
	return err.Error()
}

// lookup returns the value at a dot-separated path of obj.
func lookup(obj map[string]any, path string) (any, bool, error) {
	return unstructured.NestedFieldNoCopy(obj, strings.Split(path, ".")...)
}

// subsetDiff lists the places where want is not contained in got: every key
// of every object in want must be in got with a contained value; lists must
// have the same length and contained elements; scalars must be equal. got may
// have more keys (schema defaults). It returns nil when want ⊆ got.
func subsetDiff(path string, want, got any) []string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("%s: sent an object, got back %T %v", path, got, got)}
		}
		keys := make([]string, 0, len(w))
		for k := range w {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var out []string
		for _, k := range keys {
			gv, ok := g[k]
			if !ok {
				out = append(out, fmt.Sprintf("%s.%s: sent %v, missing in the returned object (pruned?)", path, k, w[k]))
				continue
			}
			out = append(out, subsetDiff(path+"."+k, w[k], gv)...)
		}
		return out
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return []string{fmt.Sprintf("%s: sent %v, got back %v", path, w, got)}
		}
		var out []string
		for i := range w {
			out = append(out, subsetDiff(fmt.Sprintf("%s[%d]", path, i), w[i], g[i])...)
		}
		return out
	default:
		if !reflect.DeepEqual(want, got) {
			return []string{fmt.Sprintf("%s: sent %#v, got back %#v", path, want, got)}
		}
		return nil
	}
}
