package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// manifests is the parsed content of a multi-document YAML file, indexed by
// kind and name so the bundle can pick the objects it is made of.
type manifests struct {
	file string
	docs []*unstructured.Unstructured
}

// readManifests reads every non-empty document of file.
func readManifests(file string) (*manifests, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	m := &manifests{file: file}
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(b)))
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return m, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		var obj map[string]any
		if err := yaml.Unmarshal(doc, &obj); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		if len(obj) == 0 {
			continue
		}
		m.docs = append(m.docs, &unstructured.Unstructured{Object: obj})
	}
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
