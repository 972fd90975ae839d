package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
)

// getCRD reads a CustomResourceDefinition back from the apiserver.
func getCRD(t *testing.T, name string) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	client, err := apiextensionsclient.NewForConfig(restConfig)
	if err != nil {
		t.Fatalf("creating apiextensions client: %v", err)
	}
	crd, err := client.ApiextensionsV1().CustomResourceDefinitions().Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("getting CRD %s: %s", name, describeAPIError(err))
	}
	return crd
}

// schemaAt walks a dot-separated path of property names through an OpenAPI
// schema; "items" steps into a list's item schema.
func schemaAt(root *apiextensionsv1.JSONSchemaProps, path string) (*apiextensionsv1.JSONSchemaProps, error) {
	cur := root
	for _, elem := range strings.Split(path, ".") {
		if elem == "items" {
			if cur.Items == nil || cur.Items.Schema == nil {
				return nil, fmt.Errorf("%s: no item schema before %q", path, elem)
			}
			cur = cur.Items.Schema
			continue
		}
		next, ok := cur.Properties[elem]
		if !ok {
			return nil, fmt.Errorf("%s: no property %q", path, elem)
		}
		cur = &next
	}
	return cur, nil
}

// TestCRDDescriptions checks that the schema the apiserver serves carries the
// field documentation kubectl explain shows, both in the stored CRD and in
// the published OpenAPI v3 document kubectl explain actually reads.
func TestCRDDescriptions(t *testing.T) {
	checks := []struct{ crd, path string }{
		{"ogxservers.ogx.io", "spec"},
		{"ogxservers.ogx.io", "spec.distribution"},
		{"ogxservers.ogx.io", "spec.distribution.name"},
		{"ogxservers.ogx.io", "spec.providers.inference.remote.vllm"},
		{"ogxservers.ogx.io", "spec.providers.inference.remote.vllm.items.endpoint"},
		{"ogxservers.ogx.io", "spec.workload.storage.size"},
		{"ogxservers.ogx.io", "spec.network.port"},
		{"ogxservers.ogx.io", "status"},
		{"llamastackdistributions.llamastack.io", "spec.server.distribution"},
	}
	crds := map[string]*apiextensionsv1.CustomResourceDefinition{}
	for _, c := range checks {
		crd, ok := crds[c.crd]
		if !ok {
			crd = getCRD(t, c.crd)
			crds[c.crd] = crd
		}
		if len(crd.Spec.Versions) != 1 || crd.Spec.Versions[0].Schema == nil || crd.Spec.Versions[0].Schema.OpenAPIV3Schema == nil {
			t.Fatalf("CRD %s: want exactly one version with a schema, got %d versions", c.crd, len(crd.Spec.Versions))
		}
		s, err := schemaAt(crd.Spec.Versions[0].Schema.OpenAPIV3Schema, c.path)
		if err != nil {
			t.Errorf("CRD %s: %v", c.crd, err)
			continue
		}
		if strings.TrimSpace(s.Description) == "" {
			t.Errorf("CRD %s: %s has no description", c.crd, c.path)
		}
	}

	t.Run("published-openapi-v3", func(t *testing.T) {
		// The apiserver publishes CRD schemas asynchronously; poll.
		dc, err := discovery.NewDiscoveryClientForConfig(restConfig)
		if err != nil {
			t.Fatalf("creating discovery client: %v", err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		var last error
		err = wait.PollUntilContextCancel(ctx, 250*time.Millisecond, true, func(context.Context) (bool, error) {
			last = checkPublishedDescriptions(dc)
			return last == nil, nil
		})
		if err != nil {
			t.Fatalf("OpenAPI v3 document for ogx.io/v1beta1 lacks the expected descriptions: %v (%v)", last, err)
		}
	})
}

// checkPublishedDescriptions reads /openapi/v3/apis/ogx.io/v1beta1 and looks
// for the descriptions of spec.distribution and of a vllm item's endpoint.
func checkPublishedDescriptions(dc *discovery.DiscoveryClient) error {
	paths, err := dc.OpenAPIV3().Paths()
	if err != nil {
		return err
	}
	gv, ok := paths["apis/ogx.io/v1beta1"]
	if !ok {
		return fmt.Errorf("no OpenAPI v3 path apis/ogx.io/v1beta1 yet")
	}
	raw, err := gv.Schema(runtime.ContentTypeJSON)
	if err != nil {
		return err
	}
	var doc struct {
		Components struct {
			Schemas map[string]json.RawMessage `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return fmt.Errorf("decoding OpenAPI v3 document: %w", err)
	}
	var server *apiextensionsv1.JSONSchemaProps
	for name, s := range doc.Components.Schemas {
		if strings.HasSuffix(name, ".OGXServer") {
			server = &apiextensionsv1.JSONSchemaProps{}
			if err := json.Unmarshal(s, server); err != nil {
				return fmt.Errorf("decoding schema %s: %w", name, err)
			}
		}
	}
	if server == nil {
		return fmt.Errorf("no OGXServer schema among %d published schemas", len(doc.Components.Schemas))
	}
	for _, p := range []string{"spec.distribution", "spec.providers.inference.remote.vllm.items.endpoint"} {
		s, err := schemaAt(server, p)
		if err != nil {
			return err
		}
		if strings.TrimSpace(s.Description) == "" {
			return fmt.Errorf("published %s has no description", p)
		}
	}
	return nil
}

// celRuleCount is the number of x-kubernetes-validations entries of the
// OGXServer schema (docs/admission.md, Schema rules).
const celRuleCount = 125

var indexRe = regexp.MustCompile(`\[\d+\]`)

// TestInvalidCasesCoverEveryCELRule makes sure the invalid table keeps
// breaking every CEL entry of the installed OGXServer CRD at least once, and
// that the CRD has the expected number of entries (docs/admission.md, Schema
// rules).
func TestInvalidCasesCoverEveryCELRule(t *testing.T) {
	crd := getCRD(t, "ogxservers.ogx.io")
	type rule struct{ node, message string }
	var rules []rule
	var walk func(s *apiextensionsv1.JSONSchemaProps, node string)
	walk = func(s *apiextensionsv1.JSONSchemaProps, node string) {
		for _, v := range s.XValidations {
			rules = append(rules, rule{node, v.Message})
		}
		for name, p := range s.Properties {
			child := name
			if node != "" {
				child = node + "." + name
			}
			walk(&p, child)
		}
		if s.Items != nil && s.Items.Schema != nil {
			walk(s.Items.Schema, node) // an item is reported as node[i]
		}
		if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
			walk(s.AdditionalProperties.Schema, node+".*")
		}
	}
	walk(crd.Spec.Versions[0].Schema.OpenAPIV3Schema, "")
	if len(rules) != celRuleCount {
		t.Errorf("the OGXServer CRD has %d CEL entries, want %d", len(rules), celRuleCount)
	}

	covered := map[rule]bool{}
	for _, tc := range allInvalidCases() {
		for _, w := range tc.want {
			if w.cel {
				covered[rule{indexRe.ReplaceAllString(w.field, ""), w.msg}] = true
			}
		}
	}
	var missing []string
	for _, r := range rules {
		if !covered[r] {
			missing = append(missing, fmt.Sprintf("%s: %q", r.node, r.message))
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("%d of %d CEL entries are broken by no invalid case:\n\t%s", len(missing), len(rules), strings.Join(missing, "\n\t"))
	}
}
