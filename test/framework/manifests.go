package framework

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/ogx-k8s/ogx-controller/pkg/manifest"
)

// ReadObjects decodes every object of a multi-document YAML file, such as
// release/ogx-controller.yaml, in file order; tests apply or check them one
// by one.
func ReadObjects(path string) ([]*unstructured.Unstructured, error) {
	return manifest.ReadFile(path)
}
