package crdvalidate

import (
	"fmt"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
)

// Schema is the structural schema of one version of a CRD, built as the
// API server builds it when the CRD is created. It serves the steps of a
// create that come before validation: defaulting (Default) and dropping
// unknown fields (UnknownFields). migrate reads legacy files with it only;
// a Validator holds one for the whole check.
type Schema struct {
	structural *structuralschema.Structural
}

// NewSchema builds the Schema of version of crd.
func NewSchema(crd *apiextensionsv1.CustomResourceDefinition, version string) (*Schema, error) {
	internal, err := internalSchema(crd, version)
	if err != nil {
		return nil, err
	}
	return newSchema(crd, version, internal)
}

// internalSchema is the OpenAPI schema of version of crd in the internal
// form the API server's schema code takes.
func internalSchema(crd *apiextensionsv1.CustomResourceDefinition, version string) (*apiextensions.JSONSchemaProps, error) {
	var v1Validation *apiextensionsv1.CustomResourceValidation
	for _, ver := range crd.Spec.Versions {
		if ver.Name == version {
			v1Validation = ver.Schema
		}
	}
	if v1Validation == nil || v1Validation.OpenAPIV3Schema == nil {
		return nil, fmt.Errorf("CRD %s has no schema for version %s", crd.Name, version)
	}
	internal := &apiextensions.CustomResourceValidation{}
	if err := apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(v1Validation, internal, nil); err != nil {
		return nil, fmt.Errorf("converting the schema of %s %s: %w", crd.Name, version, err)
	}
	return internal.OpenAPIV3Schema, nil
}

func newSchema(crd *apiextensionsv1.CustomResourceDefinition, version string, internal *apiextensions.JSONSchemaProps) (*Schema, error) {
	s, err := structuralschema.NewStructural(internal)
	if err != nil {
		return nil, fmt.Errorf("the schema of %s %s is not structural: %w", crd.Name, version, err)
	}
	// As the API server does: defaults inside the schema are pruned of
	// unknown fields before they are applied.
	s = s.DeepCopy()
	if err := structuraldefaulting.PruneDefaults(s); err != nil {
		return nil, fmt.Errorf("pruning the defaults of %s %s: %w", crd.Name, version, err)
	}
	return &Schema{structural: s}, nil
}

// Default sets, in place, the defaults the API server sets on obj (an
// object decoded from JSON or YAML into map[string]any) on a create: a
// null the schema does not allow and cannot default is dropped, then every
// absent property with a default, or null where the schema does not allow
// null, gets it, at every depth (array items and map values included).
func (s *Schema) Default(obj map[string]any) {
	structuraldefaulting.PruneNonNullableNullsWithoutDefaults(obj, s.structural)
	structuraldefaulting.Default(obj, s.structural)
}
