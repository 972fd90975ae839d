package main

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/ogx-k8s/ogx-controller/pkg/manifest"
)

// manifests is the parsed content of a multi-document YAML file, indexed by
// kind and name so the bundle can pick the objects it is made of.
type manifests struct {
	file string
	docs []*unstructured.Unstructured
}

// readManifests reads every non-empty document of file.
func readManifests(file string) (*manifests, error) {
	docs, err := manifest.ReadFile(file)
	if err != nil {
		return nil, err
	}
	return &manifests{file: file, docs: docs}, nil
}

// get decodes the object of kind and name into out (a typed API object).
func (m *manifests) get(kind, name string, out any) error {
	for _, d := range m.docs {
		if d.GetKind() == kind && d.GetName() == name {
			b, err := yaml.Marshal(d.Object)
			if err != nil {
				return err
			}
			if err := yaml.UnmarshalStrict(b, out); err != nil {
				return fmt.Errorf("%s: %s %s: %w", m.file, kind, name, err)
			}
			return nil
		}
	}
	return fmt.Errorf("%s has no %s %s: was config/ changed without make release?", m.file, kind, name)
}

// all returns the objects of kind.
func (m *manifests) all(kind string) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, d := range m.docs {
		if d.GetKind() == kind {
			out = append(out, d)
		}
	}
	return out
}

// object returns the object of kind and name as it is in the file.
func (m *manifests) object(kind, name string) (*unstructured.Unstructured, error) {
	for _, d := range m.docs {
		if d.GetKind() == kind && d.GetName() == name {
			return d.DeepCopy(), nil
		}
	}
	return nil, fmt.Errorf("%s has no %s %s: was config/ changed without make release?", m.file, kind, name)
}
