package main

import (
	"encoding/json"
	"io"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/ogx-k8s/ogx-controller/pkg/manifest"
)

// readDocuments reads every YAML or JSON document of the files ("-" is
// stdin) as unstructured objects, skipping empty documents.
func readDocuments(files []string, stdin io.Reader) ([]*unstructured.Unstructured, error) {
	var out []*unstructured.Unstructured
	for _, f := range files {
		var docs []*unstructured.Unstructured
		var err error
		if f == "-" {
			docs, err = manifest.Read(stdin, f)
		} else {
			docs, err = manifest.ReadFile(f)
		}
		if err != nil {
			return nil, err
		}
		out = append(out, docs...)
	}
	return out, nil
}

// fromUnstructured decodes an unstructured object into a typed one.
func fromUnstructured(u *unstructured.Unstructured, into any) error {
	b, err := json.Marshal(u.Object)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, into)
}

// toYAML prints an object as YAML without the empty status, the null
// creationTimestamp a typed object carries and the other fields the API
// server owns (cleanObject).
func toYAML(obj any) ([]byte, error) {
	m, err := cleanObject(obj)
	if err != nil {
		return nil, err
	}
	return yaml.Marshal(m)
}
