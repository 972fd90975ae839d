package monitoring

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/openapi"
	"k8s.io/kube-openapi/pkg/schemaconv"
	"k8s.io/kube-openapi/pkg/validation/spec"
	smdschema "sigs.k8s.io/structured-merge-diff/v6/schema"
	"sigs.k8s.io/structured-merge-diff/v6/typed"

	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

// monitoringOpenAPIPath is the OpenAPI v3 path of the monitoring group
// version (/openapi/v3/apis/monitoring.coreos.com/v1).
const monitoringOpenAPIPath = "apis/" + base.MonitoringGroupVersion

// schemaLoader returns the SMD types of the monitoring kinds by GVK.
type schemaLoader func(ctx context.Context) (map[schema.GroupVersionKind]*typed.ParseableType, error)

// monitoringSchemas holds the types the owned fields are extracted with: the
// schema the API server publishes, as client-go has no Extract for these
// kinds and a schemaless one would treat PrometheusRule spec.groups as
// atomic (docs/children.md, ServiceMonitor and PrometheusRule).
type monitoringSchemas struct {
	load  schemaLoader
	mu    sync.Mutex
	types map[schema.GroupVersionKind]*typed.ParseableType
}

// reset forgets the loaded types; the next pass loads them again.
func (m *monitoringSchemas) reset() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.types = nil
}

// ensure loads the types unless they are loaded and cover both kinds. A
// failure (for example the OpenAPI document lagging behind discovery right
// after a CRD install) is transient and retried by the next pass.
func (m *monitoringSchemas) ensure(ctx context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.complete() {
		return nil
	}
	if m.load == nil {
		return errors.New("no OpenAPI schema loader for the monitoring kinds")
	}
	types, err := m.load(ctx)
	if err != nil {
		return fmt.Errorf("loading the OpenAPI schema of %s: %w", base.MonitoringGroupVersion, err)
	}
	m.types = types
	if !m.complete() {
		m.types = nil
		return fmt.Errorf("the OpenAPI schema of %s lacks %s or %s", base.MonitoringGroupVersion,
			render.KindServiceMonitor, render.KindPrometheusRule)
	}
	return nil
}

func (m *monitoringSchemas) complete() bool {
	gv := serviceMonitorsGVR.GroupVersion()
	return m.types[gv.WithKind(render.KindServiceMonitor)] != nil && m.types[gv.WithKind(render.KindPrometheusRule)] != nil
}

// extract returns the fields ogx-controller owns in obj (by its managed
// fields) as an object comparable with the rendered one: the owned fields
// plus apiVersion, kind, name and namespace, which managed fields never
// list.
func (m *monitoringSchemas) extract(obj *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	gvk := obj.GroupVersionKind()
	m.mu.Lock()
	typ := m.types[gvk]
	m.mu.Unlock()
	if typ == nil {
		return nil, fmt.Errorf("no OpenAPI schema loaded for %s", gvk)
	}
	out := &unstructured.Unstructured{Object: map[string]any{}}
	if err := managedfields.ExtractInto(obj, *typ, render.FieldManager, out, ""); err != nil {
		return nil, err
	}
	if out.Object == nil {
		out.Object = map[string]any{}
	}
	out.SetAPIVersion(obj.GetAPIVersion())
	out.SetKind(obj.GetKind())
	out.SetName(obj.GetName())
	out.SetNamespace(obj.GetNamespace())
	return out, nil
}

// openAPIV3Loader reads the OpenAPI v3 document of monitoring.coreos.com/v1
// (readable by every authenticated client) through the discovery client.
func openAPIV3Loader(kube kubernetes.Interface) schemaLoader {
	return func(ctx context.Context) (map[schema.GroupVersionKind]*typed.ParseableType, error) {
		client := openapi.ToClientWithContext(kube.Discovery().OpenAPIV3())
		paths, err := client.PathsWithContext(ctx)
		if err != nil {
			return nil, err
		}
		gv, ok := paths[monitoringOpenAPIPath]
		if !ok {
			return nil, fmt.Errorf("the API server publishes no OpenAPI v3 document for %s yet", base.MonitoringGroupVersion)
		}
		doc, err := gv.SchemaWithContext(ctx, runtime.ContentTypeJSON)
		if err != nil {
			return nil, err
		}
		return parseOpenAPITypes(doc)
	}
}

// parseOpenAPITypes converts an OpenAPI v3 document into SMD types indexed
// by the x-kubernetes-group-version-kind of each schema, as the API server
// does for custom resources.
func parseOpenAPITypes(doc []byte) (map[schema.GroupVersionKind]*typed.ParseableType, error) {
	var d struct {
		Components struct {
			Schemas map[string]*spec.Schema `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		return nil, fmt.Errorf("decoding the OpenAPI document: %w", err)
	}
	s, err := schemaconv.ToSchemaFromOpenAPI(d.Components.Schemas, false)
	if err != nil {
		return nil, fmt.Errorf("converting the OpenAPI schemas: %w", err)
	}
	parser := &typed.Parser{Schema: smdschema.Schema{Types: s.Types}}
	out := map[schema.GroupVersionKind]*typed.ParseableType{}
	for name, sch := range d.Components.Schemas {
		for _, gvk := range schemaGVKs(sch) {
			t := parser.Type(name)
			out[gvk] = &t
		}
	}
	return out, nil
}

// schemaGVKs reads the x-kubernetes-group-version-kind extension.
func schemaGVKs(s *spec.Schema) []schema.GroupVersionKind {
	if s == nil {
		return nil
	}
	list, ok := s.Extensions["x-kubernetes-group-version-kind"].([]any)
	if !ok {
		return nil
	}
	var out []schema.GroupVersionKind
	for _, item := range list {
		m, ok := item.(map[string]any)
		if !ok {
			continue
		}
		g, _ := m["group"].(string)
		v, _ := m["version"].(string)
		k, _ := m["kind"].(string)
		if v != "" && k != "" {
			out = append(out, schema.GroupVersionKind{Group: g, Version: v, Kind: k})
		}
	}
	return out
}
