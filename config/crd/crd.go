// Package crd carries the CustomResourceDefinitions of config/crd/bases in
// the binary, so offline commands (migrate) read the same schema, defaults
// included, that the API server enforces. The YAML is generated from the Go
// types (hack/update-codegen.sh) and checked current by make verify.
package crd

import (
	"embed"
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

//go:embed bases/*.yaml
var bases embed.FS

// files maps a CRD's name to its file under bases.
var files = map[string]string{
	"llamastackdistributions.llamastack.io": "bases/llamastack.io_llamastackdistributions.yaml",
	"ogxservers.ogx.io":                     "bases/ogx.io_ogxservers.yaml",
}

// Definition returns the CRD called name (plural.group).
func Definition(name string) (*apiextensionsv1.CustomResourceDefinition, error) {
	file, ok := files[name]
	if !ok {
		return nil, fmt.Errorf("no CRD %s in config/crd/bases", name)
	}
	b, err := bases.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var c apiextensionsv1.CustomResourceDefinition
	if err := yaml.UnmarshalStrict(b, &c); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return &c, nil
}

// Schema returns the OpenAPI schema of version of the CRD called name
// (plural.group).
func Schema(name, version string) (*apiextensionsv1.JSONSchemaProps, error) {
	c, err := Definition(name)
	if err != nil {
		return nil, err
	}
	for _, v := range c.Spec.Versions {
		if v.Name == version && v.Schema != nil && v.Schema.OpenAPIV3Schema != nil {
			return v.Schema.OpenAPIV3Schema, nil
		}
	}
	return nil, fmt.Errorf("CRD %s has no schema for version %s", name, version)
}
