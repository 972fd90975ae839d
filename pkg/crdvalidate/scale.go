package crdvalidate

import (
	"fmt"
	"math"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// specReplicasPath is the scale subresource's spec replicas path of version
// of crd (".spec.workload.replicas" for OGXServer), or "" without one.
func specReplicasPath(crd *apiextensionsv1.CustomResourceDefinition, version string) string {
	for _, v := range crd.Spec.Versions {
		if v.Name == version && v.Subresources != nil && v.Subresources.Scale != nil {
			return v.Subresources.Scale.SpecReplicasPath
		}
	}
	return ""
}

// scaleErrors are the API server's checks of a custom resource with a scale
// subresource, besides its schema: the count at the spec replicas path must
// be an integer in 0..MaxInt32. Its errors name the field by the path as the
// CRD writes it, leading dot included, and are reported after the schema's.
// An absent count is no error. (The status count is not checked: a create
// drops the status.)
func scaleErrors(obj map[string]any, path string) field.ErrorList {
	if path == "" {
		return nil
	}
	fld := field.NewPath(path)
	fields := strings.Split(strings.TrimPrefix(path, "."), ".")
	// The API server decodes a JSON integer as int64; a caller's decoder
	// may have made it a float64 of the same value.
	if v, found, _ := unstructured.NestedFieldNoCopy(obj, fields...); found {
		if f, ok := v.(float64); ok && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			obj = map[string]any{"n": int64(f)}
			fields = []string{"n"}
		}
	}
	n, _, err := unstructured.NestedInt64(obj, fields...)
	switch {
	case err != nil:
		return field.ErrorList{field.Invalid(fld, n, err.Error())}
	case n < 0:
		return field.ErrorList{field.Invalid(fld, n, "should be a non-negative integer")}
	case n > math.MaxInt32:
		return field.ErrorList{field.Invalid(fld, n, fmt.Sprintf("should be less than or equal to %v", math.MaxInt32))}
	}
	return nil
}
