package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// csv holds the parts of the ClusterServiceVersion that OLM acts on when
// it installs the bundle, in OLM's field layout (spec.install.spec). The
// strict decoding of the whole CSV into OLM's types is test/bundle's.
type csv struct {
	Metadata struct {
		Name        string            `json:"name"`
		Annotations map[string]string `json:"annotations"`
	} `json:"metadata"`
	Spec struct {
		Install struct {
			Strategy string `json:"strategy"`
			Spec     struct {
				Permissions        []permission     `json:"permissions"`
				ClusterPermissions []permission     `json:"clusterPermissions"`
				Deployments        []deploymentSpec `json:"deployments"`
			} `json:"spec"`
		} `json:"install"`
		InstallModes []struct {
			Type      string `json:"type"`
			Supported bool   `json:"supported"`
		} `json:"installModes"`
	} `json:"spec"`
}

// permission is a ServiceAccount and the rules OLM grants it.
type permission struct {
	ServiceAccountName string              `json:"serviceAccountName"`
	Rules              []rbacv1.PolicyRule `json:"rules"`
}

type deploymentSpec struct {
	Name  string                `json:"name"`
	Label map[string]string     `json:"label"`
	Spec  appsv1.DeploymentSpec `json:"spec"`
}

// supports reports whether the CSV declares the install mode supported.
func (c *csv) supports(mode string) bool {
	return slices.ContainsFunc(c.Spec.InstallModes, func(m struct {
		Type      string `json:"type"`
		Supported bool   `json:"supported"`
	}) bool {
		return m.Type == mode && m.Supported
	})
}

// almExamples decodes the alm-examples annotation, the examples OLM's
// console offers for creating the owned APIs.
func (c *csv) almExamples() ([]*unstructured.Unstructured, error) {
	raw, ok := c.Metadata.Annotations["alm-examples"]
	if !ok {
		return nil, fmt.Errorf("CSV %s: metadata.annotations.alm-examples is missing", c.Metadata.Name)
	}
	var objs []map[string]any
	if err := json.Unmarshal([]byte(raw), &objs); err != nil {
		return nil, fmt.Errorf("CSV %s: metadata.annotations.alm-examples is not a JSON list of objects: %w", c.Metadata.Name, err)
	}
	out := make([]*unstructured.Unstructured, 0, len(objs))
	for _, o := range objs {
		out = append(out, &unstructured.Unstructured{Object: o})
	}
	return out, nil
}

// bundle is bundle/manifests sorted by what OLM does with each file: CRDs
// are installed first, the CSV drives the install, and every other object
// is created in the operator's namespace (or cluster-wide).
type bundle struct {
	crdFiles []string
	csv      *csv
	others   []*unstructured.Unstructured
}

func loadBundle(dir string) (*bundle, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	b := &bundle{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(raw, &u.Object); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		switch u.GetKind() {
		case "CustomResourceDefinition":
			b.crdFiles = append(b.crdFiles, f)
		case "ClusterServiceVersion":
			if b.csv != nil {
				return nil, fmt.Errorf("%s: a second ClusterServiceVersion in the bundle", f)
			}
			b.csv = &csv{}
			if err := yaml.Unmarshal(raw, b.csv); err != nil {
				return nil, fmt.Errorf("%s: %w", f, err)
			}
		case "":
			return nil, fmt.Errorf("%s: no kind", f)
		default:
			b.others = append(b.others, u)
		}
	}
	if b.csv == nil {
		return nil, fmt.Errorf("%s holds no ClusterServiceVersion", dir)
	}
	return b, nil
}
