// Package chart renders charts/ogx-controller with the Helm Go SDK, the way
// `helm install` would, and reads release/ogx-controller.yaml, so tests can
// compare the two object by object and apply the chart to a control plane.
//
// It lives in its own Go module (test/chart/go.mod) so the product module
// does not depend on Helm.
package chart

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"helm.sh/helm/v4/pkg/chart/common"
	chartutil "helm.sh/helm/v4/pkg/chart/common/util"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	"helm.sh/helm/v4/pkg/engine"
	releaseutil "helm.sh/helm/v4/pkg/release/v1/util"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// ReleaseName is the Helm release name the tests install under. It is the
// instance label of the kustomize install (config/components/labels), so
// that the chart with default values and release/ogx-controller.yaml
// differ only in Helm's own labels (HelmLabels). Object names do not depend
// on it (see the chart's _helpers.tpl).
const ReleaseName = "ogx-controller"

// HookAnnotation marks a Helm hook: `helm install` does not install it with
// the release's objects (the chart's only hooks are its `helm test` ones).
const HookAnnotation = "helm.sh/hook"

// Dir returns charts/ogx-controller under the repository root.
func Dir(root string) string { return filepath.Join(root, "charts", "ogx-controller") }

// Load reads the chart directory.
func Load(root string) (*chart.Chart, error) {
	ch, err := loader.Load(Dir(root))
	if err != nil {
		return nil, fmt.Errorf("loading the chart: %w", err)
	}
	return ch, nil
}

// Render renders the chart's templates with user values vals (nil for the
// defaults) as release ReleaseName in releaseNamespace, validating vals
// against values.schema.json first as `helm install` does. The objects come
// back in Helm's install order, hooks left out (see Hooks); the CRDs of
// crds/ are not among them (see CRDs).
func Render(ch *chart.Chart, vals map[string]any, releaseNamespace string) ([]*unstructured.Unstructured, error) {
	objs, _, err := RenderRelease(ch, ReleaseName, vals, releaseNamespace)
	return objs, err
}

// Hooks renders like Render and returns only the hooks.
func Hooks(ch *chart.Chart, vals map[string]any, releaseNamespace string) ([]*unstructured.Unstructured, error) {
	_, hooks, err := RenderRelease(ch, ReleaseName, vals, releaseNamespace)
	return hooks, err
}

// RenderRelease renders as release name and returns the release's objects
// and its hooks apart.
func RenderRelease(ch *chart.Chart, name string, vals map[string]any, releaseNamespace string) (objs, hooks []*unstructured.Unstructured, err error) {
	opts := common.ReleaseOptions{Name: name, Namespace: releaseNamespace, Revision: 1, IsInstall: true}
	rv, err := chartutil.ToRenderValues(ch, vals, opts, common.DefaultCapabilities)
	if err != nil {
		return nil, nil, err
	}
	files, err := engine.Render(ch, rv)
	if err != nil {
		return nil, nil, err
	}
	var manifests []string
	for name, content := range files {
		if strings.HasSuffix(name, "NOTES.txt") || strings.TrimSpace(content) == "" {
			continue
		}
		manifests = append(manifests, name)
	}
	sort.Strings(manifests)
	for _, name := range manifests {
		got, err := Decode([]byte(files[name]))
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", name, err)
		}
		for _, u := range got {
			if _, ok := u.GetAnnotations()[HookAnnotation]; ok {
				hooks = append(hooks, u)
			} else {
				objs = append(objs, u)
			}
		}
	}
	SortInstallOrder(objs)
	SortInstallOrder(hooks)
	return objs, hooks, nil
}

// HelmLabels are the labels the chart puts on every object besides those
// of release/ogx-controller.yaml (app.kubernetes.io/name, instance and
// version): Helm's own, with the values they must have for ch.
func HelmLabels(ch *chart.Chart) map[string]string {
	return map[string]string{
		"app.kubernetes.io/managed-by": "Helm",
		"helm.sh/chart":                ch.Metadata.Name + "-" + strings.ReplaceAll(ch.Metadata.Version, "+", "_"),
	}
}

// WithoutHelmLabels returns copies of objs without HelmLabels, and an error
// naming every object that lacks one of them or has another value: so a
// comparison with the kustomize install allows exactly these labels to
// differ, and only on metadata (never in a selector or pod template).
func WithoutHelmLabels(ch *chart.Chart, objs []*unstructured.Unstructured) ([]*unstructured.Unstructured, error) {
	want := HelmLabels(ch)
	var errs []error
	out := make([]*unstructured.Unstructured, 0, len(objs))
	for _, u := range objs {
		c := u.DeepCopy()
		labels := c.GetLabels()
		for k, v := range want {
			if labels[k] != v {
				errs = append(errs, fmt.Errorf("%s: label %s is %q, want %q", Key(u), k, labels[k], v))
			}
			delete(labels, k)
		}
		c.SetLabels(labels)
		out = append(out, c)
	}
	return out, errors.Join(errs...)
}

// CRDs decodes the chart's crds/ directory, which Helm installs before the
// templates and never renders.
func CRDs(ch *chart.Chart) ([]*unstructured.Unstructured, error) {
	var objs []*unstructured.Unstructured
	for _, f := range ch.CRDObjects() {
		got, err := Decode(f.File.Data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Filename, err)
		}
		objs = append(objs, got...)
	}
	return objs, nil
}

// ReadRelease decodes release/ogx-controller.yaml.
func ReadRelease(root string) ([]*unstructured.Unstructured, error) {
	b, err := os.ReadFile(filepath.Join(root, "release", "ogx-controller.yaml"))
	if err != nil {
		return nil, err
	}
	return Decode(b)
}

// Decode splits a multi-document YAML stream into objects, skipping empty
// documents. Numbers decode the same way on every side of a comparison.
func Decode(b []byte) ([]*unstructured.Unstructured, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(b), 4096)
	var out []*unstructured.Unstructured
	for {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return nil, fmt.Errorf("decoding YAML: %w", err)
		}
		if len(m) == 0 {
			continue
		}
		u := &unstructured.Unstructured{Object: m}
		if u.GetKind() == "" || u.GetAPIVersion() == "" {
			return nil, fmt.Errorf("a document without apiVersion or kind: %v", m)
		}
		out = append(out, u)
	}
}

// Key names an object uniquely within a render: kind, namespace and name.
func Key(u *unstructured.Unstructured) string {
	return u.GroupVersionKind().GroupKind().String() + " " + u.GetNamespace() + "/" + u.GetName()
}

// SortInstallOrder orders objects as Helm installs them: by kind along
// releaseutil.InstallOrder (unknown kinds last), then by name.
func SortInstallOrder(objs []*unstructured.Unstructured) {
	rank := func(u *unstructured.Unstructured) int {
		if i := slices.Index(releaseutil.InstallOrder, u.GetKind()); i >= 0 {
			return i
		}
		return len(releaseutil.InstallOrder)
	}
	sort.SliceStable(objs, func(i, j int) bool {
		if ri, rj := rank(objs[i]), rank(objs[j]); ri != rj {
			return ri < rj
		}
		return Key(objs[i]) < Key(objs[j])
	})
}
