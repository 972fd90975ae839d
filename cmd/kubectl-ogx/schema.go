package main

import (
	"maps"
	"slices"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/ogx-k8s/ogx-controller/pkg/crdschema"
)

// unknownFields returns the fields of an input object that its CRD's
// schema does not define: top-level keys other than the schema's
// (apiVersion, kind, metadata, spec, status) and anything under spec, each
// with its full path and the nearest valid name. Metadata is the API
// server's to check; status is never read.
func unknownFields(obj *unstructured.Unstructured, schema *apiextensionsv1.JSONSchemaProps) []crdschema.UnknownField {
	var out []crdschema.UnknownField
	for _, k := range slices.Sorted(maps.Keys(obj.Object)) {
		if _, ok := schema.Properties[k]; !ok {
			out = append(out, crdschema.UnknownField{Path: k, Suggestion: crdschema.Nearest(k, schema.Properties)})
		}
	}
	if spec, ok := obj.Object["spec"]; ok {
		specSchema := schema.Properties["spec"]
		out = append(out, crdschema.Unknown(spec, &specSchema, "spec")...)
	}
	return out
}

// messages formats unknown fields as error messages.
func messages(fields []crdschema.UnknownField) []string {
	out := make([]string, 0, len(fields))
	for _, f := range fields {
		out = append(out, f.String())
	}
	return out
}
