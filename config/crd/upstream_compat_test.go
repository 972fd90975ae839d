package crd

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

// The README promises that manifests written for the upstream operator
// (ogx-ai/ogx-k8s-operator) work unchanged. These tests hold that promise to
// account: they flatten our CRDs and upstream's published ones
// (testdata/upstream) into one line of facts per field and compare them.
// Every difference must be listed in upstreamAllowed with a reason, and every
// entry there must still match a difference.

// upstreamDir holds the in-repository copy of upstream's CRDs; the test must
// not depend on anything outside the repository.
const upstreamDir = "testdata/upstream"

// difference is one fact about a CRD on which upstream and we disagree.
// Kind is kindAdded or kindRemoved for a whole node (field, version,
// printer column) present on one side only, else the name of the attribute
// that differs ("default", "enum", "maximum", "x-kubernetes-validations",
// "required", "names.shortNames", ...). Upstream and Ours are the two values;
// "" means the attribute is absent on that side.
type difference struct {
	CRD      string
	Path     string
	Kind     string
	Upstream string
	Ours     string
}

const (
	kindAdded   = "added"
	kindRemoved = "removed"
)

// String is the one line a failing test prints per difference.
func (d difference) String() string {
	switch d.Kind {
	case kindAdded:
		return fmt.Sprintf("%s %s: added (not in upstream)", d.CRD, d.Path)
	case kindRemoved:
		return fmt.Sprintf("%s %s: removed (upstream has it)", d.CRD, d.Path)
	}
	return fmt.Sprintf("%s %s: %s: upstream %s, ours %s", d.CRD, d.Path, d.Kind, show(d.Upstream), show(d.Ours))
}

// show makes an absent value visible in a difference's line.
func show(v string) string {
	if v == "" {
		return "(unset)"
	}
	return v
}

// node is one flattened point of a CRD: the CRD itself, a version, a
// printer column or a schema field, with the attributes that matter to
// compatibility rendered as comparable strings.
type node struct {
	parent string // path of the enclosing node, "" for a root
	attrs  map[string]string
}

// flatCRD maps a node's path to its node. Paths read like
// "v1beta1 spec.containers[].env[].name"; "[]" steps into array items and
// "{}" into additionalProperties.
type flatCRD map[string]node

// flatten renders everything about c that a manifest written against it
// can depend on. Descriptions are left out: rewording them is compatible.
func flatten(c *apiextensionsv1.CustomResourceDefinition) flatCRD {
	f := flatCRD{}
	n := c.Spec.Names
	f["crd"] = node{attrs: map[string]string{
		"group":            c.Spec.Group,
		"scope":            string(c.Spec.Scope),
		"names.kind":       n.Kind,
		"names.listKind":   n.ListKind,
		"names.plural":     n.Plural,
		"names.singular":   n.Singular,
		"names.shortNames": joinSorted(n.ShortNames),
		"names.categories": joinSorted(n.Categories),
		"conversion":       conversionStrategy(c.Spec.Conversion),
	}}
	for _, v := range c.Spec.Versions {
		flattenVersion(f, v)
	}
	return f
}

// flattenVersion adds a version, its printer columns and its schema.
// Versions that are not served are kept too, so that "served" changing is
// reported instead of the whole version vanishing.
func flattenVersion(f flatCRD, v apiextensionsv1.CustomResourceDefinitionVersion) {
	attrs := map[string]string{
		"served":     strconv.FormatBool(v.Served),
		"storage":    strconv.FormatBool(v.Storage),
		"deprecated": strconv.FormatBool(v.Deprecated),
	}
	if s := v.Subresources; s != nil {
		if s.Status != nil {
			attrs["subresources.status"] = "true"
		}
		if sc := s.Scale; sc != nil {
			attrs["subresources.scale"] = fmt.Sprintf("spec=%s status=%s selector=%s",
				sc.SpecReplicasPath, sc.StatusReplicasPath, deref(sc.LabelSelectorPath))
		}
	}
	f[v.Name] = node{parent: "crd", attrs: attrs}
	for _, col := range v.AdditionalPrinterColumns {
		f[v.Name+" column "+strconv.Quote(col.Name)] = node{parent: v.Name, attrs: map[string]string{
			"jsonPath": col.JSONPath,
			"type":     col.Type,
			"format":   col.Format,
			"priority": strconv.Itoa(int(col.Priority)),
		}}
	}
	if v.Schema != nil && v.Schema.OpenAPIV3Schema != nil {
		flattenSchema(f, v.Name, v.Name, "", v.Schema.OpenAPIV3Schema, false)
	}
}

// fieldKey is the path of a schema field of version: "v1beta1 spec.port",
// or "v1beta1 <root>" for the schema itself.
func fieldKey(version, field string) string {
	if field == "" {
		field = "<root>"
	}
	return version + " " + field
}

// flattenSchema adds the field at path and, recursively, the fields below
// it. required says whether the enclosing object lists the field as
// required, which is a fact about the field to a manifest's author.
func flattenSchema(f flatCRD, parent, version, field string, s *apiextensionsv1.JSONSchemaProps, required bool) {
	key := fieldKey(version, field)
	attrs := schemaAttrs(s)
	if required {
		attrs["required"] = "true"
	}
	f[key] = node{parent: parent, attrs: attrs}
	req := map[string]bool{}
	for _, r := range s.Required {
		req[r] = true
	}
	for name, p := range s.Properties {
		child := name
		if field != "" {
			child = field + "." + name
		}
		flattenSchema(f, key, version, child, &p, req[name])
	}
	if s.Items != nil && s.Items.Schema != nil {
		flattenSchema(f, key, version, field+"[]", s.Items.Schema, false)
	}
	if ap := s.AdditionalProperties; ap != nil && ap.Schema != nil {
		flattenSchema(f, key, version, field+"{}", ap.Schema, false)
	}
}

// schemaAttrs renders the validation facts of one schema node. Unset
// attributes are left out so that "absent" compares equal on both sides.
func schemaAttrs(s *apiextensionsv1.JSONSchemaProps) map[string]string {
	a := map[string]string{}
	set := func(k, v string) {
		if v != "" {
			a[k] = v
		}
	}
	set("type", s.Type)
	set("format", s.Format)
	set("pattern", s.Pattern)
	set("default", canonicalJSON(s.Default))
	set("enum", enumValues(s.Enum))
	set("minimum", float(s.Minimum))
	set("maximum", float(s.Maximum))
	set("exclusiveMinimum", flag(s.ExclusiveMinimum))
	set("exclusiveMaximum", flag(s.ExclusiveMaximum))
	set("multipleOf", float(s.MultipleOf))
	set("minLength", integer(s.MinLength))
	set("maxLength", integer(s.MaxLength))
	set("minItems", integer(s.MinItems))
	set("maxItems", integer(s.MaxItems))
	set("uniqueItems", flag(s.UniqueItems))
	set("minProperties", integer(s.MinProperties))
	set("maxProperties", integer(s.MaxProperties))
	set("nullable", flag(s.Nullable))
	set("allOf", schemaList(s.AllOf))
	set("anyOf", schemaList(s.AnyOf))
	set("oneOf", schemaList(s.OneOf))
	if s.Not != nil {
		set("not", mustJSON(s.Not))
	}
	if ap := s.AdditionalProperties; ap != nil && ap.Schema == nil {
		set("additionalProperties", strconv.FormatBool(ap.Allows))
	}
	set("x-kubernetes-preserve-unknown-fields", flag(deref(s.XPreserveUnknownFields)))
	set("x-kubernetes-embedded-resource", flag(s.XEmbeddedResource))
	set("x-kubernetes-int-or-string", flag(s.XIntOrString))
	set("x-kubernetes-list-type", deref(s.XListType))
	set("x-kubernetes-list-map-keys", strings.Join(s.XListMapKeys, ","))
	set("x-kubernetes-map-type", deref(s.XMapType))
	set("x-kubernetes-validations", validations(s.XValidations))
	return a
}

// validations renders CEL rules one per line, sorted, so that reordering
// them is not a difference but changing or dropping one is.
func validations(rules apiextensionsv1.ValidationRules) string {
	var out []string
	for _, r := range rules {
		line := "rule=" + strconv.Quote(r.Rule)
		if r.Message != "" {
			line += " message=" + strconv.Quote(r.Message)
		}
		if r.MessageExpression != "" {
			line += " messageExpression=" + strconv.Quote(r.MessageExpression)
		}
		if r.Reason != nil {
			line += " reason=" + string(*r.Reason)
		}
		if r.FieldPath != "" {
			line += " fieldPath=" + r.FieldPath
		}
		if r.OptionalOldSelf != nil {
			line += " optionalOldSelf=" + strconv.FormatBool(*r.OptionalOldSelf)
		}
		out = append(out, line)
	}
	sort.Strings(out)
	return strings.Join(out, "; ")
}

// enumValues renders an enum as a sorted JSON list: the order of allowed
// values carries no meaning.
func enumValues(values []apiextensionsv1.JSON) string {
	if len(values) == 0 {
		return ""
	}
	out := make([]string, len(values))
	for i := range values {
		out[i] = canonicalJSON(&values[i])
	}
	sort.Strings(out)
	return "[" + strings.Join(out, ",") + "]"
}

// canonicalJSON re-encodes a JSON value with sorted keys, so that the same
// default written two ways compares equal.
func canonicalJSON(v *apiextensionsv1.JSON) string {
	if v == nil || len(v.Raw) == 0 {
		return ""
	}
	var x any
	if err := json.Unmarshal(v.Raw, &x); err != nil {
		return string(v.Raw)
	}
	return mustJSON(x)
}

// schemaList renders allOf/anyOf/oneOf without descriptions.
func schemaList(list []apiextensionsv1.JSONSchemaProps) string {
	if len(list) == 0 {
		return ""
	}
	return mustJSON(list)
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func conversionStrategy(c *apiextensionsv1.CustomResourceConversion) string {
	if c == nil {
		return string(apiextensionsv1.NoneConverter)
	}
	return string(c.Strategy)
}

func joinSorted(s []string) string {
	s = append([]string(nil), s...)
	sort.Strings(s)
	return strings.Join(s, ",")
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

func float(p *float64) string {
	if p == nil {
		return ""
	}
	return strconv.FormatFloat(*p, 'g', -1, 64)
}

func integer(p *int64) string {
	if p == nil {
		return ""
	}
	return strconv.FormatInt(*p, 10)
}

func flag(b bool) string {
	if !b {
		return ""
	}
	return "true"
}

// compare lists every difference between upstream's CRD and ours, sorted by
// path. A node present on one side only is reported once, at its top: the
// fields of an added struct are not each an addition of their own.
func compare(name string, upstream, ours flatCRD) []difference {
	var out []difference
	for path, u := range upstream {
		o, ok := ours[path]
		switch {
		case !ok:
			if _, parentInOurs := ours[u.parent]; u.parent == "" || parentInOurs {
				out = append(out, difference{CRD: name, Path: path, Kind: kindRemoved})
			}
		default:
			out = append(out, compareAttrs(name, path, u.attrs, o.attrs)...)
		}
	}
	for path, o := range ours {
		if _, ok := upstream[path]; ok {
			continue
		}
		if _, parentInUpstream := upstream[o.parent]; o.parent == "" || parentInUpstream {
			out = append(out, difference{CRD: name, Path: path, Kind: kindAdded})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Kind < out[j].Kind
	})
	return out
}

// compareAttrs lists the attributes of one node that differ.
func compareAttrs(name, path string, upstream, ours map[string]string) []difference {
	keys := map[string]bool{}
	for k := range upstream {
		keys[k] = true
	}
	for k := range ours {
		keys[k] = true
	}
	var out []difference
	for k := range keys {
		if upstream[k] != ours[k] {
			out = append(out, difference{CRD: name, Path: path, Kind: k, Upstream: upstream[k], Ours: ours[k]})
		}
	}
	return out
}

// upstreamCRD reads upstream's CRD called name from the in-repository copy.
func upstreamCRD(t *testing.T, name string) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	file := filepath.Join(upstreamDir, filepath.Base(files[name]))
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var c apiextensionsv1.CustomResourceDefinition
	if err := yaml.UnmarshalStrict(b, &c); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return &c
}

// ourCRD reads our CRD called name as the binary embeds it.
func ourCRD(t *testing.T, name string) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	c, err := Definition(name)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// crdNames lists the CRDs both projects publish, sorted for stable output.
func crdNames() []string {
	var names []string
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// TestUpstreamCompatibility fails on every difference from upstream's CRDs
// that upstreamAllowed does not explain, and on every entry there that no
// longer matches a difference.
func TestUpstreamCompatibility(t *testing.T) {
	var all []difference
	for _, name := range crdNames() {
		all = append(all, compare(name, flatten(upstreamCRD(t, name)), flatten(ourCRD(t, name)))...)
	}
	unexplained, stale := checkAllowed(all, upstreamAllowed)
	for _, d := range unexplained {
		t.Errorf("not in upstreamAllowed: %s", d)
	}
	for _, a := range stale {
		t.Errorf("stale upstreamAllowed entry (matches no difference): %s", a)
	}
}
