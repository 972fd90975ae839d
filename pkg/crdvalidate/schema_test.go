package crdvalidate

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// testSchema is a small CRD schema with every construct defaulting and
// pruning follow: properties, defaults (also of a whole object), nullable,
// array items, map values, subtrees that preserve unknown fields and
// embedded resources, and a status.
func testSchema(t *testing.T) *Schema {
	t.Helper()
	const spec = `{"type":"object","properties":{
	  "replicas":{"type":"integer","default":1},
	  "name":{"type":"string","default":"llama-stack"},
	  "note":{"type":"string","nullable":true,"default":"n"},
	  "size":{"type":"string"},
	  "storage":{"type":"object","properties":{"size":{"type":"string"},"mountPath":{"type":"string","default":"/data"}}},
	  "policy":{"type":"object","default":{},"properties":{"mode":{"type":"string","default":"strict"}}},
	  "env":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"},"value":{"type":"string","default":""}}}},
	  "labels":{"type":"object","additionalProperties":{"type":"object","properties":{"weight":{"type":"integer","default":5}}}},
	  "config":{"type":"object","x-kubernetes-preserve-unknown-fields":true},
	  "extra":{"type":"object","x-kubernetes-preserve-unknown-fields":true,"properties":{"known":{"type":"object","properties":{"a":{"type":"string"}}}}},
	  "template":{"type":"object","x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true},
	  "pod":{"type":"object","x-kubernetes-embedded-resource":true,"properties":{"spec":{"type":"object","properties":{"image":{"type":"string"}}}}}
	}}`
	root := `{"type":"object","properties":{"apiVersion":{"type":"string"},"kind":{"type":"string"},"metadata":{"type":"object"},
	  "spec":` + spec + `,"status":{"type":"object","properties":{"phase":{"type":"string"}}}}}`
	var props apiextensionsv1.JSONSchemaProps
	if err := utiljson.Unmarshal([]byte(root), &props); err != nil {
		t.Fatal(err)
	}
	def := &apiextensionsv1.CustomResourceDefinition{}
	def.Name = "things.example.com"
	def.Spec.Versions = []apiextensionsv1.CustomResourceDefinitionVersion{
		{Name: "v1", Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &props}}}
	s, err := NewSchema(def, "v1")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// decode reads JSON as the API server does: integers as int64.
func decode(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := utiljson.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestNewSchemaNeedsTheVersion(t *testing.T) {
	def := &apiextensionsv1.CustomResourceDefinition{}
	if _, err := NewSchema(def, "v1"); err == nil {
		t.Error("a CRD without the version: no error")
	}
}

// TestDefault: the API server's defaulting, at every depth, of spec.
func TestDefault(t *testing.T) {
	const allTopDefaults = `"replicas":1,"name":"llama-stack","note":"n","policy":{"mode":"strict"}`
	for _, tc := range []struct{ name, in, want string }{
		{"empty object gets top-level defaults, whole-object defaults and theirs",
			`{}`, `{` + allTopDefaults + `}`},
		{"values present are kept, zero values too",
			`{"replicas":0,"name":"x","note":"y","policy":{"mode":"open"}}`, `{"replicas":0,"name":"x","note":"y","policy":{"mode":"open"}}`},
		{"null of a non-nullable field is defaulted, of a nullable one kept",
			`{"replicas":null,"note":null}`, `{"replicas":1,"name":"llama-stack","note":null,"policy":{"mode":"strict"}}`},
		{"null of a non-nullable field without a default is dropped",
			`{"size":null,"storage":{"size":null}}`, `{` + allTopDefaults + `,"storage":{"mountPath":"/data"}}`},
		{"defaults inside present objects, array items and map values",
			`{"storage":{"size":"1Gi"},"env":[{"name":"A"},{"name":"B","value":"b"}],"labels":{"a":{},"b":{"weight":0}}}`,
			`{` + allTopDefaults + `,"storage":{"size":"1Gi","mountPath":"/data"},"env":[{"name":"A","value":""},{"name":"B","value":"b"}],"labels":{"a":{"weight":5},"b":{"weight":0}}}`},
		{"unknown fields are left alone",
			`{"storge":{"size":"1Gi"}}`, `{` + allTopDefaults + `,"storge":{"size":"1Gi"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := map[string]any{"spec": decode(t, tc.in)}
			testSchema(t).Default(got)
			if diff := cmp.Diff(map[string]any{"spec": decode(t, tc.want)}, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestUnknownFields: what the API server's pruning drops, with the
// nearest defined name, in the order the commands print it.
func TestUnknownFields(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []UnknownField
	}{
		{"all known", `{"apiVersion":"example.com/v1","kind":"Thing","metadata":{"name":"x"},"spec":{"replicas":2,"storage":{"size":"1Gi"},"env":[{"name":"A"}],"labels":{"any":{"weight":1}}}}`, nil},
		{"misspelt top level", `{"spce":{}}`, []UnknownField{{Path: "spce", Suggestion: "spec"}}},
		{"misspelt under spec", `{"spec":{"replica":2}}`, []UnknownField{{Path: "spec.replica", Suggestion: "replicas"}}},
		{"wrong case", `{"spec":{"Replicas":2}}`, []UnknownField{{Path: "spec.Replicas", Suggestion: "replicas"}}},
		{"nested, in path order", `{"spec":{"storge":{},"storage":{"mountpath":"/x","sise":"1"}}}`, []UnknownField{
			{Path: "spec.storage.mountpath", Suggestion: "mountPath"}, {Path: "spec.storage.sise", Suggestion: "size"}, {Path: "spec.storge", Suggestion: "storage"}}},
		{"top level first, then the rest", `{"zzzzzzzz":1,"spec":{"replica":2}}`, []UnknownField{
			{Path: "zzzzzzzz"}, {Path: "spec.replica", Suggestion: "replicas"}}},
		{"list items, by index", `{"spec":{"env":[{"nmae":"A"},{},{"name":"C","vaule":"c"},{},{},{},{},{},{},{},{"nmae":"K"}]}}`, []UnknownField{
			{Path: "spec.env[0].nmae", Suggestion: "name"}, {Path: "spec.env[2].vaule", Suggestion: "value"}, {Path: "spec.env[10].nmae", Suggestion: "name"}}},
		{"map values, keys with dots", `{"spec":{"labels":{"app.example.com/tier":{"wieght":1},"b":{"weight":2}}}}`, []UnknownField{
			{Path: "spec.labels.app.example.com/tier.wieght", Suggestion: "weight"}}},
		{"nothing near", `{"spec":{"zzzzzzzz":1}}`, []UnknownField{{Path: "spec.zzzzzzzz"}}},
		{"preserve-unknown-fields keeps what it does not define", `{"spec":{"config":{"free":{"form":[1]}},"extra":{"free":1,"known":{"a":"x"}}}}`, nil},
		{"preserve-unknown-fields still prunes inside what it defines", `{"spec":{"extra":{"known":{"b":"x"}}}}`, []UnknownField{
			{Path: "spec.extra.known.b", Suggestion: "a"}}},
		{"embedded resource keeps its type and metadata", `{"spec":{"template":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"anything":1},
			"pod":{"apiVersion":"v1","kind":"Pod","metadata":{"nmae":"p"},"spec":{"image":"x"}}}}`, nil},
		{"embedded resource without preserve-unknown-fields prunes the rest", `{"spec":{"pod":{"kind":"Pod","spek":{},"spec":{"imag":"x"}}}}`, []UnknownField{
			{Path: "spec.pod.spec.imag", Suggestion: "image"}, {Path: "spec.pod.spek", Suggestion: "spec"}}},
		{"metadata is the API server's to check, status is not read", `{"metadata":{"nmae":"x"},"status":{"phsae":"Ready"}}`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := decode(t, tc.in)
			before := runtime.DeepCopyJSON(in)
			got := testSchema(t).UnknownFields(in)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, in); diff != "" {
				t.Errorf("the input changed (-before +after):\n%s", diff)
			}
		})
	}
}

func TestUnknownFieldString(t *testing.T) {
	for _, tc := range []struct {
		u    UnknownField
		want string
	}{
		{UnknownField{Path: "spec.storge", Suggestion: "storage"}, "spec.storge: unknown field (did you mean storage?)"},
		{UnknownField{Path: "spec.zzz"}, "spec.zzz: unknown field"},
	} {
		if got := tc.u.String(); got != tc.want {
			t.Errorf("String() = %q, want %q", got, tc.want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{{"", "", 0}, {"a", "", 1}, {"storge", "storage", 1}, {"kitten", "sitting", 3}, {"same", "same", 0}} {
		if got := editDistance(tc.a, tc.b); got != tc.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
