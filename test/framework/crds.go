package framework

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// InstallCRDs creates (or updates, if they exist) the CustomResourceDefinitions
// in the given YAML files and waits until the apiserver serves every one of
// them, so a test may create custom resources as soon as it returns. A path
// may be a directory, meaning its *.yaml and *.yml files (not recursive); a
// file may hold several documents separated by "---". A document that is not
// a CustomResourceDefinition is an error rather than silently ignored, since
// it would mean the wrong file was passed.
//
// Install CRDs once per package (in RunMain's setup) rather than per test:
// for two seconds after a CRD becomes established the apiserver holds every
// create of its custom resources for two seconds, a safeguard for HA
// apiservers in apiextensions-apiserver.
func (cp *ControlPlane) InstallCRDs(ctx context.Context, paths ...string) error {
	files, err := yamlFiles(paths)
	if err != nil {
		return err
	}
	var crds []*apiextensionsv1.CustomResourceDefinition
	for _, f := range files {
		found, err := readCRDs(f)
		if err != nil {
			return err
		}
		crds = append(crds, found...)
	}
	if len(crds) == 0 {
		return fmt.Errorf("no CustomResourceDefinitions in %s", strings.Join(paths, ", "))
	}

	client, err := apiextensionsclient.NewForConfig(cp.Config())
	if err != nil {
		return fmt.Errorf("creating apiextensions client: %w", err)
	}
	api := client.ApiextensionsV1().CustomResourceDefinitions()
	for _, crd := range crds {
		if err := applyCRD(ctx, api, crd); err != nil {
			return err
		}
	}
	for _, crd := range crds {
		err := cp.waitFor(ctx, "CRD "+crd.Name+" to be established", nil, func(ctx context.Context) error {
			got, err := api.Get(ctx, crd.Name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			return crdEstablished(got)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

type crdInterface interface {
	Create(context.Context, *apiextensionsv1.CustomResourceDefinition, metav1.CreateOptions) (*apiextensionsv1.CustomResourceDefinition, error)
	Get(context.Context, string, metav1.GetOptions) (*apiextensionsv1.CustomResourceDefinition, error)
	Update(context.Context, *apiextensionsv1.CustomResourceDefinition, metav1.UpdateOptions) (*apiextensionsv1.CustomResourceDefinition, error)
}

// applyCRD creates crd, or replaces the stored one's spec when it already
// exists, so a control plane shared by several setups can be re-seeded.
func applyCRD(ctx context.Context, api crdInterface, crd *apiextensionsv1.CustomResourceDefinition) error {
	_, err := api.Create(ctx, crd, metav1.CreateOptions{})
	if err == nil {
		return nil
	}
	if !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating CRD %s: %w", crd.Name, err)
	}
	existing, err := api.Get(ctx, crd.Name, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("getting existing CRD %s: %w", crd.Name, err)
	}
	crd.ResourceVersion = existing.ResourceVersion
	if _, err := api.Update(ctx, crd, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("updating CRD %s: %w", crd.Name, err)
	}
	return nil
}

// crdEstablished returns nil once the CRD is served, and a permanent-looking
// error naming the conflict when the apiserver rejected its names.
func crdEstablished(crd *apiextensionsv1.CustomResourceDefinition) error {
	for _, c := range crd.Status.Conditions {
		if c.Type == apiextensionsv1.NamesAccepted && c.Status == apiextensionsv1.ConditionFalse {
			return fmt.Errorf("names not accepted: %s", c.Message)
		}
		if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
			return nil
		}
	}
	return errors.New("not established yet")
}

// yamlFiles expands directories among paths into their YAML files, sorted.
func yamlFiles(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("reading CRD path: %w", err)
		}
		if !info.IsDir() {
			out = append(out, p)
			continue
		}
		entries, err := os.ReadDir(p)
		if err != nil {
			return nil, fmt.Errorf("listing CRD directory: %w", err)
		}
		var inDir []string
		for _, e := range entries {
			if ext := filepath.Ext(e.Name()); !e.IsDir() && (ext == ".yaml" || ext == ".yml") {
				inDir = append(inDir, filepath.Join(p, e.Name()))
			}
		}
		if len(inDir) == 0 {
			return nil, fmt.Errorf("no YAML files in CRD directory %s", p)
		}
		slices.Sort(inDir)
		out = append(out, inDir...)
	}
	return out, nil
}

// readCRDs decodes every non-empty YAML document in path as a
// CustomResourceDefinition.
func readCRDs(path string) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("opening CRD file: %w", err)
	}
	defer f.Close()
	reader := utilyaml.NewYAMLReader(bufio.NewReader(f))
	var crds []*apiextensionsv1.CustomResourceDefinition
	for i := 0; ; i++ {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return crds, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading YAML document %d of %s: %w", i, path, err)
		}
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		var typeMeta metav1.TypeMeta
		if err := yaml.Unmarshal(doc, &typeMeta); err != nil {
			return nil, fmt.Errorf("decoding YAML document %d of %s: %w", i, path, err)
		}
		if typeMeta.Kind == "" && typeMeta.APIVersion == "" {
			continue // only comments
		}
		if typeMeta.Kind != "CustomResourceDefinition" || typeMeta.APIVersion != apiextensionsv1.SchemeGroupVersion.String() {
			return nil, fmt.Errorf("YAML document %d of %s is a %s %s, not an apiextensions.k8s.io/v1 CustomResourceDefinition",
				i, path, typeMeta.APIVersion, typeMeta.Kind)
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.UnmarshalStrict(doc, crd); err != nil {
			return nil, fmt.Errorf("decoding CRD in document %d of %s: %w", i, path, err)
		}
		crds = append(crds, crd)
	}
}
