package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// readDocuments reads every YAML or JSON document of the files ("-" is
// stdin) as unstructured objects, skipping empty documents.
func readDocuments(files []string, stdin io.Reader) ([]*unstructured.Unstructured, error) {
	var out []*unstructured.Unstructured
	for _, f := range files {
		var r io.Reader
		if f == "-" {
			r = stdin
		} else {
			fh, err := os.Open(f)
			if err != nil {
				return nil, err
			}
			defer fh.Close()
			r = fh
		}
		dec := utilyaml.NewYAMLReader(bufio.NewReader(r))
		for {
			doc, err := dec.Read()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return nil, fmt.Errorf("%s: %w", f, err)
			}
			if len(bytes.TrimSpace(doc)) == 0 {
				continue
			}
			obj := map[string]any{}
			if err := yaml.Unmarshal(doc, &obj); err != nil {
				return nil, fmt.Errorf("%s: %w", f, err)
			}
			if len(obj) == 0 {
				continue
			}
			out = append(out, &unstructured.Unstructured{Object: obj})
		}
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
