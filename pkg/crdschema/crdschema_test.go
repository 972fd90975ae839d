package crdschema

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// schema is a small structural schema with every construct the walkers
// follow: properties, defaults (also of a whole object), nullable, array
// items, map values and a subtree that preserves unknown fields.
func schema(t *testing.T) *apiextensionsv1.JSONSchemaProps {
	t.Helper()
	const s = `{"type":"object","properties":{
	  "replicas":{"type":"integer","default":1},
	  "name":{"type":"string","default":"llama-stack"},
	  "note":{"type":"string","nullable":true,"default":"n"},
	  "storage":{"type":"object","properties":{"size":{"type":"string"},"mountPath":{"type":"string","default":"/data"}}},
	  "policy":{"type":"object","default":{},"properties":{"mode":{"type":"string","default":"strict"}}},
	  "env":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"},"value":{"type":"string","default":""}}}},
	  "labels":{"type":"object","additionalProperties":{"type":"object","properties":{"weight":{"type":"integer","default":5}}}},
	  "config":{"type":"object","x-kubernetes-preserve-unknown-fields":true}
	}}`
	var p apiextensionsv1.JSONSchemaProps
	if err := json.Unmarshal([]byte(s), &p); err != nil {
		t.Fatal(err)
	}
	return &p
}

func decode(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestDefault(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"empty object gets top-level defaults, whole-object defaults and theirs",
			`{}`, `{"replicas":1,"name":"llama-stack","note":"n","policy":{"mode":"strict"}}`},
		{"values present are kept, zero values too",
			`{"replicas":0,"name":"x","note":"y","policy":{"mode":"open"}}`, `{"replicas":0,"name":"x","note":"y","policy":{"mode":"open"}}`},
		{"null of a non-nullable field is defaulted, of a nullable one kept",
			`{"replicas":null,"note":null}`, `{"replicas":1,"name":"llama-stack","note":null,"policy":{"mode":"strict"}}`},
		{"defaults inside present objects, array items and map values",
			`{"storage":{"size":"1Gi"},"env":[{"name":"A"}],"labels":{"a":{}}}`,
			`{"replicas":1,"name":"llama-stack","note":"n","policy":{"mode":"strict"},"storage":{"size":"1Gi","mountPath":"/data"},"env":[{"name":"A","value":""}],"labels":{"a":{"weight":5}}}`},
	} {
		got := decode(t, tc.in)
		if err := Default(got, schema(t)); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if diff := cmp.Diff(decode(t, tc.want), got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}

func TestUnknown(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []UnknownField
	}{
		{"all known", `{"replicas":2,"storage":{"size":"1Gi"},"env":[{"name":"A"}],"labels":{"any":{"weight":1}},"config":{"free":{"form":1}}}`, nil},
		{"misspelt top level", `{"replica":2}`, []UnknownField{{Path: "replica", Suggestion: "replicas"}}},
		{"wrong case", `{"Replicas":2}`, []UnknownField{{Path: "Replicas", Suggestion: "replicas"}}},
		{"nested, in order", `{"storge":{},"storage":{"mountpath":"/x","sise":"1"}}`, []UnknownField{
			{Path: "storage.mountpath", Suggestion: "mountPath"}, {Path: "storage.sise", Suggestion: "size"}, {Path: "storge", Suggestion: "storage"}}},
		{"array item and map value", `{"env":[{"name":"A"},{"nmae":"B"}],"labels":{"x":{"wieght":1}}}`, []UnknownField{
			{Path: "env[1].nmae", Suggestion: "name"}, {Path: "labels.x.wieght", Suggestion: "weight"}}},
		{"nothing near", `{"zzzzzzzz":1}`, []UnknownField{{Path: "zzzzzzzz"}}},
	} {
		got := Unknown(decode(t, tc.in), schema(t), "")
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
	if got := (UnknownField{Path: "spec.storge", Suggestion: "storage"}).String(); got != "spec.storge: unknown field (did you mean storage?)" {
		t.Errorf("String() = %q", got)
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
