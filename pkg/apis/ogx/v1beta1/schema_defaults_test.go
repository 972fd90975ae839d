package v1beta1

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

const crdFile = "../../../../config/crd/bases/ogx.io_ogxservers.yaml"

// schemaDefault is one `default:` of the CRD schema: the property path from
// the object root ("[]" marks an array item) and the value.
type schemaDefault struct {
	path  []string
	value any
}

func (d schemaDefault) String() string { return strings.Join(d.path, ".") }

// crdDefaults walks the OGXServer schema and returns every default, sorted
// by path.
func crdDefaults(t *testing.T) []schemaDefault {
	t.Helper()
	raw, err := os.ReadFile(filepath.FromSlash(crdFile))
	if err != nil {
		t.Fatal(err)
	}
	var crd struct {
		Spec struct {
			Versions []struct {
				Name   string `json:"name"`
				Schema struct {
					OpenAPIV3Schema map[string]any `json:"openAPIV3Schema"`
				} `json:"schema"`
			} `json:"versions"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(raw, &crd); err != nil {
		t.Fatal(err)
	}
	var out []schemaDefault
	for _, v := range crd.Spec.Versions {
		if v.Name != SchemeGroupVersion.Version {
			continue
		}
		walkSchema(v.Schema.OpenAPIV3Schema, nil, &out)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

func walkSchema(node map[string]any, path []string, out *[]schemaDefault) {
	if node == nil {
		return
	}
	if v, ok := node["default"]; ok {
		*out = append(*out, schemaDefault{path: append([]string(nil), path...), value: v})
	}
	if props, ok := node["properties"].(map[string]any); ok {
		for k, p := range props {
			child, _ := p.(map[string]any)
			walkSchema(child, append(append([]string(nil), path...), k), out)
		}
	}
	if items, ok := node["items"].(map[string]any); ok {
		walkSchema(items, append(append([]string(nil), path...), "[]"), out)
	}
	if ap, ok := node["additionalProperties"].(map[string]any); ok {
		walkSchema(ap, append(append([]string(nil), path...), "{}"), out)
	}
}

// build returns a minimal object in which every parent of the default's
// field exists (maps, and arrays of one item) and, when withValue is set,
// the field itself holds the default.
func (d schemaDefault) build(withValue bool) map[string]any {
	root := map[string]any{"apiVersion": SchemeGroupVersion.String(), "kind": "OGXServer"}
	cur := root
	for i := 0; i < len(d.path); i++ {
		seg := d.path[i]
		if seg == "[]" || seg == "{}" {
			panic("unsupported default on an array item or map value itself: " + d.String())
		}
		if i == len(d.path)-1 {
			if withValue {
				cur[seg] = d.value
			}
			break
		}
		next := map[string]any{}
		switch d.path[i+1] {
		case "[]":
			cur[seg] = []any{next}
			i++ // the item is the next container
		case "{}":
			cur[seg] = map[string]any{"k": next}
			i++
		default:
			cur[seg] = next
		}
		cur = next
	}
	return root
}

// decodeStrict decodes an unstructured object into an OGXServer, failing on
// fields the Go types do not have, so that a default path that misses the
// types can never pass vacuously.
func decodeStrict(t *testing.T, u map[string]any) *OGXServer {
	t.Helper()
	b, err := json.Marshal(u)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var s OGXServer
	if err := dec.Decode(&s); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	return &s
}

// TestApplySchemaDefaultsCoversCRD fails when the CRD schema has a default
// that ApplySchemaDefaults does not apply: for each default, an object whose
// parents exist but which lacks the field must, once defaulted, equal the
// same object with the field set to the default (and defaulted too).
func TestApplySchemaDefaultsCoversCRD(t *testing.T) {
	defaults := crdDefaults(t)
	if len(defaults) == 0 {
		t.Fatal("no defaults found in the CRD schema; is the path right?")
	}
	for _, d := range defaults {
		t.Run(d.String(), func(t *testing.T) {
			without := decodeStrict(t, d.build(false))
			with := decodeStrict(t, d.build(true))
			ApplySchemaDefaults(without)
			ApplySchemaDefaults(with)
			if !reflect.DeepEqual(without, with) {
				a, _ := json.Marshal(without.Spec)
				b, _ := json.Marshal(with.Spec)
				t.Errorf("default %s = %v is not applied:\n got  %s\n want %s", d, d.value, a, b)
			}
		})
	}
}

// TestApplySchemaDefaultsKnown pins the OGXServer-level defaults and the
// parent-exists rule.
func TestApplySchemaDefaultsKnown(t *testing.T) {
	empty := &OGXServer{}
	ApplySchemaDefaults(empty)
	if !reflect.DeepEqual(empty, &OGXServer{}) {
		t.Errorf("defaults applied without parents: %+v", empty.Spec)
	}

	s := &OGXServer{Spec: OGXServerSpec{
		Network:    &NetworkSpec{Policy: &NetworkPolicySpec{}, ExternalAccess: &ExternalAccessSpec{}},
		Monitoring: &MonitoringSpec{},
		Storage:    &StateStorageSpec{KV: &KVStorageSpec{}, SQL: &SQLStorageSpec{}},
		Workload:   &WorkloadSpec{Storage: &PVCStorageSpec{}},
	}}
	ApplySchemaDefaults(s)
	got := fmt.Sprintf("port=%d policy=%v monitoring=%v kv=%s sql=%s replicas=%d mountPath=%s external=%v",
		s.Spec.Network.Port, *s.Spec.Network.Policy.Enabled, *s.Spec.Monitoring.Enabled,
		s.Spec.Storage.KV.Type, s.Spec.Storage.SQL.Type, *s.Spec.Workload.Replicas,
		s.Spec.Workload.Storage.MountPath, s.Spec.Network.ExternalAccess.Enabled)
	want := "port=8321 policy=true monitoring=true kv=sqlite sql=sqlite replicas=1 mountPath=/.ogx external=false"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}

	// Explicit values are kept; applying twice changes nothing.
	off := false
	two := int32(2)
	s = &OGXServer{Spec: OGXServerSpec{
		Network:    &NetworkSpec{Port: 9000, Policy: &NetworkPolicySpec{Enabled: &off}},
		Monitoring: &MonitoringSpec{Enabled: &off},
		Storage:    &StateStorageSpec{KV: &KVStorageSpec{Type: "redis"}, SQL: &SQLStorageSpec{Type: "postgres"}},
		Workload:   &WorkloadSpec{Replicas: &two, Storage: &PVCStorageSpec{MountPath: "/data"}},
	}}
	before := s.DeepCopy()
	ApplySchemaDefaults(s)
	ApplySchemaDefaults(s)
	if !reflect.DeepEqual(before, s) {
		t.Errorf("explicit values changed: %+v", s.Spec)
	}
}
