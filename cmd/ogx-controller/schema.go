package main

import (
	"maps"
	"slices"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/ogx-k8s/ogx-controller/pkg/crdschema"
)

// unknownFields lists, as error messages, the fields of an input object
// that its CRD's schema does not define: top-level keys other than the
// schema's (apiVersion, kind, metadata, spec, status) and anything under
// spec, each with its full path and the nearest valid name. Metadata is
// the API server's to check; status is never read.
func unknownFields(obj *unstructured.Unstructured, schema *apiextensionsv1.JSONSchemaProps) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(obj.Object)) {
		if _, ok := schema.Properties[k]; !ok {
			out = append(out, crdschema.UnknownField{Path: k, Suggestion: crdschema.Nearest(k, schema.Properties)}.String())
		}
	}
	if spec, ok := obj.Object["spec"]; ok {
		specSchema := schema.Properties["spec"]
		for _, u := range crdschema.Unknown(spec, &specSchema, "spec") {
			out = append(out, u.String())
		}
	}
	return out
}
