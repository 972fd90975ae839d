package main

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/ogx-k8s/ogx-controller/config/crd"
	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

// migrateYAML runs migrate on one input document.
func migrateYAML(t *testing.T, in string, args ...string) (code int, out *ogxv1beta1.OGXServer, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = runMigrate(append([]string{"-f", "-"}, args...), strings.NewReader(in), &o, &e)
	if code == exitOK {
		out = &ogxv1beta1.OGXServer{}
		if err := yaml.UnmarshalStrict(o.Bytes(), out); err != nil {
			t.Fatalf("output is not an OGXServer: %v\n%s", err, o.String())
		}
	}
	return code, out, e.String()
}

const legacyHead = `apiVersion: llamastack.io/v1alpha1
kind: LlamaStackDistribution
metadata:
  name: old
`

// TestMigrateLegacyDefaults: a field the legacy CRD defaults is read with
// its default, as the API server would have stored it. Without spec.replicas
// the legacy server ran one pod; the migrated one must too (it used to get
// replicas 0, and with storage adoption scaled the legacy Deployment to 0).
func TestMigrateLegacyDefaults(t *testing.T) {
	for _, tc := range []struct {
		name, spec   string
		wantReplicas *int32
		wantStorage  bool
	}{
		{"no replicas", "spec:\n  server:\n    distribution: {name: starter}\n", nil, false},
		{"no replicas, with storage", "spec:\n  server:\n    distribution: {name: starter}\n    storage: {size: 5Gi}\n", nil, true},
		{"replicas 3", "spec:\n  replicas: 3\n  server:\n    distribution: {name: starter}\n", ptrTo(int32(3)), false},
		{"replicas 0 is kept", "spec:\n  replicas: 0\n  server:\n    distribution: {name: starter}\n", ptrTo(int32(0)), false},
	} {
		code, out, stderr := migrateYAML(t, legacyHead+tc.spec)
		if code != exitOK {
			t.Errorf("%s: exit %d: %s", tc.name, code, stderr)
			continue
		}
		var got *int32
		if w := out.Spec.Workload; w != nil {
			got = w.Replicas
		}
		if fmt.Sprint(deref(got)) != fmt.Sprint(deref(tc.wantReplicas)) || (got == nil) != (tc.wantReplicas == nil) {
			t.Errorf("%s: workload.replicas = %v, want %v (unset means the OGXServer default, 1)", tc.name, deref(got), deref(tc.wantReplicas))
		}
		if has := out.Spec.Workload != nil && out.Spec.Workload.Storage != nil; has != tc.wantStorage {
			t.Errorf("%s: storage carried = %v", tc.name, has)
		}
		if out.Namespace != "" {
			t.Errorf("%s: namespace %q invented", tc.name, out.Namespace)
		}
	}
}

func ptrTo[T any](v T) *T { return &v }

func deref(p *int32) any {
	if p == nil {
		return "unset"
	}
	return *p
}

// TestMigrateKeepsNamespace: the input's namespace is the output's.
func TestMigrateKeepsNamespace(t *testing.T) {
	in := strings.Replace(legacyHead, "name: old\n", "name: old\n  namespace: team-a\n", 1) +
		"spec:\n  server:\n    distribution: {name: starter}\n"
	code, out, stderr := migrateYAML(t, in)
	if code != exitOK || out.Namespace != "team-a" {
		t.Fatalf("exit %d, namespace %q: %s", code, out.Namespace, stderr)
	}
	// A reference to another namespace cannot be checked without one.
	in = legacyHead + "spec:\n  server:\n    distribution: {name: starter}\n    userConfig: {configMapName: cfg, configMapNamespace: other}\n"
	if code, _, stderr := migrateYAML(t, in); code != exitValidation || !strings.Contains(stderr, "add metadata.namespace: other") {
		t.Errorf("reference without a namespace: exit %d: %s", code, stderr)
	}
}

// TestMigrateRejectsEveryMisspeltField misspells, one at a time, every
// field the legacy CRD's schema defines under spec (array items and nested
// objects included): each must fail with exit 3, naming the field's full
// path and the valid name, where it used to be dropped in silence.
func TestMigrateRejectsEveryMisspeltField(t *testing.T) {
	schema, err := crd.Schema(legacyCRD, legacyVersion)
	if err != nil {
		t.Fatal(err)
	}
	legacySchema, err := crdSchema(legacyCRD, legacyVersion)
	if err != nil {
		t.Fatal(err)
	}
	spec := schema.Properties["spec"]
	paths := fieldPaths(&spec, nil)
	if len(paths) < 50 {
		t.Fatalf("only %d field paths under spec: the schema walk is broken", len(paths))
	}
	for _, p := range paths {
		last := p[len(p)-1]
		bad := append(append([]string{}, p[:len(p)-1]...), last+"x")
		doc := map[string]any{"apiVersion": "llamastack.io/v1alpha1", "kind": "LlamaStackDistribution",
			"metadata": map[string]any{"name": "old"}, "spec": nest(bad)}
		// The schema is parsed once here; runMigrate's exit code for
		// these problems is checked below.
		_, problems, _ := decodeLegacy(&unstructured.Unstructured{Object: doc}, legacySchema)
		want := fmt.Sprintf("spec.%s: unknown field (did you mean %s?)", strings.ReplaceAll(strings.Join(bad, "."), ".[0]", "[0]"), last)
		if len(problems) != 1 || problems[0] != want {
			t.Errorf("misspelt %s: problems %q; want %q", strings.Join(p, "."), problems, want)
		}
	}
	code, _, stderr := migrateYAML(t, legacyHead+"spec:\n  server:\n    distribution: {name: starter}\n    storge: {size: 5Gi}\n")
	if code != exitValidation || !strings.Contains(stderr, "error: spec.server.storge: unknown field (did you mean storage?)") {
		t.Errorf("misspelt storage: exit %d: %s", code, stderr)
	}
	// The root and the top of spec too.
	code, _, stderr = migrateYAML(t, legacyHead+"spce:\n  replicas: 1\n")
	if code != exitValidation || !strings.Contains(stderr, "spce: unknown field (did you mean spec?)") {
		t.Errorf("misspelt spec: exit %d: %s", code, stderr)
	}
}

// fieldPaths lists the path of every property under s; "[0]" stands for an
// array item.
func fieldPaths(s *apiextensionsv1.JSONSchemaProps, prefix []string) [][]string {
	if s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields || s.XEmbeddedResource {
		return nil
	}
	if s.Items != nil && s.Items.Schema != nil {
		return fieldPaths(s.Items.Schema, append(append([]string{}, prefix...), "[0]"))
	}
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	var out [][]string
	for _, n := range names {
		p := append(append([]string{}, prefix...), n)
		out = append(out, p)
		child := s.Properties[n]
		out = append(out, fieldPaths(&child, p)...)
	}
	return out
}

// nest builds the object holding an empty value at path ("[0]" makes a
// one-item array).
func nest(path []string) any {
	if len(path) == 0 {
		return map[string]any{}
	}
	if path[0] == "[0]" {
		return []any{nest(path[1:])}
	}
	return map[string]any{path[0]: nest(path[1:])}
}

func TestMigrateHelpAndExitCodes(t *testing.T) {
	var o, e bytes.Buffer
	if code := runMigrate([]string{"-h"}, strings.NewReader(""), &o, &e); code != exitOK || !strings.Contains(e.String(), "exit codes") {
		t.Errorf("-h: exit %d: %s", code, e.String())
	}
	if code, _, _ := migrateYAML(t, legacyHead+"spec:\n  replicas: two\n  server:\n    distribution: {name: starter}\n"); code != exitValidation {
		t.Errorf("a value of the wrong type: exit %d, want %d", code, exitValidation)
	}
	if code, _, _ := migrateYAML(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n"); code != exitUsage {
		t.Errorf("another kind: exit %d, want %d", code, exitUsage)
	}
}

// TestMigrateUnknownFieldWithoutNearName: a field no defined name is near
// (one of a newer legacy operator's, say) is named in a warning and not
// carried over; another apiVersion is refused.
func TestMigrateUnknownFieldWithoutNearName(t *testing.T) {
	code, out, stderr := migrateYAML(t, legacyHead+"spec:\n  server:\n    distribution: {name: starter}\n    containerSpec:\n      envFrom: [{secretRef: {name: s}}]\n")
	if code != exitOK || out == nil {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "warning: spec.server.containerSpec.envFrom: not a field of") {
		t.Errorf("no warning for envFrom: %s", stderr)
	}
	in := strings.Replace(legacyHead, "v1alpha1", "v1alpha2", 1) + "spec:\n  server:\n    distribution: {name: starter}\n"
	if code, _, stderr := migrateYAML(t, in); code != exitUsage || !strings.Contains(stderr, "migrate reads llamastack.io/v1alpha1 only") {
		t.Errorf("v1alpha2: exit %d: %s", code, stderr)
	}
}
