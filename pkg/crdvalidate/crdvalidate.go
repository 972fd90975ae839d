// Package crdvalidate checks a custom resource offline the way the API
// server checks it on create: the CRD's structural schema drops nulls the
// schema does not allow, applies the schema's defaults, and then the OpenAPI
// validation, the list-type invariants and the CEL rules
// (x-kubernetes-validations) run, in that order and with the API server's
// own code (k8s.io/apiextensions-apiserver). `render --validate` and
// `migrate` use it, so a manifest they accept is one the API server accepts,
// and a rejected one gets the same field paths and messages.
//
// Unknown fields are a separate step (Schema.UnknownFields), so callers
// can report them, with their paths and the nearest valid name, before
// anything else. What stays with the API server: metadata beyond what the
// schema says (the admission validator checks the name), and ratcheting,
// which only applies to updates.
package crdvalidate

import (
	"context"
	"encoding/json"
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
)

// NotCheckedMessage is the detail of the error reported instead of the CEL
// rules when an earlier error makes them unsafe to run; the API server
// words it the same way.
const NotCheckedMessage = "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation"

// Validator checks objects of one version of one CRD.
type Validator struct {
	apiVersion, kind string
	schema           *Schema
	openAPI          apiservervalidation.SchemaValidator
	cel              *cel.Validator
	// specReplicas is the scale subresource's spec replicas path, or "".
	specReplicas string
}

// New builds the Validator of version of crd. The CEL rules are compiled
// here, once.
func New(crd *apiextensionsv1.CustomResourceDefinition, version string) (*Validator, error) {
	internal, err := internalSchema(crd, version)
	if err != nil {
		return nil, err
	}
	s, err := newSchema(crd, version, internal)
	if err != nil {
		return nil, err
	}
	openAPI, _, err := apiservervalidation.NewSchemaValidator(internal)
	if err != nil {
		return nil, fmt.Errorf("building the schema validator of %s %s: %w", crd.Name, version, err)
	}
	return &Validator{
		apiVersion:   crd.Spec.Group + "/" + version,
		kind:         crd.Spec.Names.Kind,
		schema:       s,
		openAPI:      openAPI,
		cel:          cel.NewValidator(s.structural, true, celconfig.PerCallLimit),
		specReplicas: specReplicasPath(crd, version),
	}, nil
}

// Create defaults obj (an object decoded from JSON or YAML into
// map[string]any) in place and returns every error the API server would
// answer a create of it with; an empty list means it would be stored.
func (v *Validator) Create(ctx context.Context, obj map[string]any) field.ErrorList {
	if errs := v.typeMeta(obj); len(errs) > 0 {
		return errs
	}
	normalizeNumbers(obj)
	v.schema.Default(obj)

	structural := v.schema.structural
	var errs field.ErrorList
	errs = append(errs, apiservervalidation.ValidateCustomResource(nil, obj, v.openAPI)...)
	errs = append(errs, scaleErrors(obj, v.specReplicas)...)
	errs = append(errs, schemaobjectmeta.Validate(ctx, nil, obj, structural, false)...)
	errs = append(errs, listtype.ValidateListSetsAndMaps(nil, structural, obj)...)
	if blocking(errs) {
		// A missing or mistyped value can make a rule fail for the wrong
		// reason; like the API server, report that the rules were skipped.
		return append(errs, field.Invalid(nil, nil, NotCheckedMessage))
	}
	celErrs, _ := v.cel.Validate(ctx, nil, structural, obj, nil, celconfig.RuntimeCELCostBudget)
	return append(errs, celErrs...)
}

// typeMeta checks apiVersion and kind, which select the schema.
func (v *Validator) typeMeta(obj map[string]any) field.ErrorList {
	var errs field.ErrorList
	if got, _ := obj["apiVersion"].(string); got != v.apiVersion {
		errs = append(errs, field.Invalid(field.NewPath("apiVersion"), obj["apiVersion"], "must be "+v.apiVersion))
	}
	if got, _ := obj["kind"].(string); got != v.kind {
		errs = append(errs, field.Invalid(field.NewPath("kind"), obj["kind"], "must be "+v.kind))
	}
	return errs
}

// blocking reports an error after which the API server does not run the
// CEL rules: a value that is missing, of the wrong type, not one of the
// allowed values, or too long or too many (the rules' cost estimates rely
// on those bounds).
func blocking(errs field.ErrorList) bool {
	for _, e := range errs {
		switch e.Type {
		case field.ErrorTypeNotSupported, field.ErrorTypeRequired, field.ErrorTypeTooLong, field.ErrorTypeTooMany, field.ErrorTypeTypeInvalid:
			return true
		}
	}
	return false
}

// normalizeNumbers replaces, in place, the json.Number values a decoder
// with UseNumber leaves by int64 (integers) or float64, as the API server's
// own decoding does; the CEL rules refuse json.Number ("invalid data").
func normalizeNumbers(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = normalizeNumbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = normalizeNumbers(e)
		}
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		if f, err := x.Float64(); err == nil {
			return f
		}
	}
	return v
}
