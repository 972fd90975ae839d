package crdvalidate

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/ogx-k8s/ogx-controller/config/crd"
)

func ogxValidator(t *testing.T) *Validator {
	t.Helper()
	def, err := crd.Definition("ogxservers.ogx.io")
	if err != nil {
		t.Fatal(err)
	}
	v, err := New(def, "v1beta1")
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestCreate: schema, defaults and CEL rules of the shipped CRD, one rule
// kind per case; each error is "<field path>: <type>: ...<detail>".
func TestCreate(t *testing.T) {
	v := ogxValidator(t)
	for _, tc := range []struct {
		name string
		spec string
		want []string // field path and a fragment of the message
	}{
		{"valid", `{distribution: {name: starter}}`, nil},
		{"CEL: name and image", `{distribution: {name: starter, image: "quay.io/x/y:1"}}`,
			[]string{"spec.distribution: only one of name or image can be specified"}},
		{"CEL: neither", `{distribution: {}}`,
			[]string{"spec.distribution: one of name or image must be specified"}},
		{"schema: port too large", `{distribution: {name: starter}, network: {port: 99999}}`,
			[]string{"spec.network.port: should be less than or equal to 65535"}},
		{"schema and scale subresource: negative replicas", `{distribution: {name: starter}, workload: {replicas: -1}}`,
			[]string{"spec.workload.replicas: should be greater than or equal to 0", ".spec.workload.replicas: should be a non-negative integer"}},
		{"schema: wrong type blocks the CEL rules", `{distribution: {name: 5}}`,
			[]string{"spec.distribution.name: must be of type string", "<nil>: " + NotCheckedMessage}},
		{"schema: distribution required", `{}`,
			[]string{"spec.distribution: Required value", "<nil>: " + NotCheckedMessage}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var spec map[string]any
			if err := yaml.Unmarshal([]byte(tc.spec), &spec); err != nil {
				t.Fatal(err)
			}
			obj := map[string]any{"apiVersion": "ogx.io/v1beta1", "kind": "OGXServer",
				"metadata": map[string]any{"name": "s", "namespace": "ns"}, "spec": spec}
			errs := v.Create(context.Background(), obj)
			var got []string
			for i, e := range errs {
				got = append(got, e.Field+": "+e.ErrorBody())
				if i < len(tc.want) {
					field, frag, _ := strings.Cut(tc.want[i], ": ")
					if e.Field == field && strings.Contains(e.ErrorBody(), frag) {
						got[i] = tc.want[i]
					}
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCreateDefaults: the schema's defaults are set in place, as the API
// server stores them.
func TestCreateDefaults(t *testing.T) {
	v := ogxValidator(t)
	obj := map[string]any{"apiVersion": "ogx.io/v1beta1", "kind": "OGXServer",
		"metadata": map[string]any{"name": "s"}, "spec": map[string]any{"distribution": map[string]any{"name": "starter"},
			"workload": map[string]any{}}}
	if errs := v.Create(context.Background(), obj); len(errs) > 0 {
		t.Fatal(errs)
	}
	workload := obj["spec"].(map[string]any)["workload"].(map[string]any)
	if workload["replicas"] == nil {
		t.Errorf("workload.replicas not defaulted: %v", workload)
	}
}

// TestCreateTypeMeta: another kind or version is refused before anything
// else, naming the field.
func TestCreateTypeMeta(t *testing.T) {
	v := ogxValidator(t)
	errs := v.Create(context.Background(), map[string]any{"apiVersion": "ogx.io/v1", "kind": "OGXServer"})
	if len(errs) != 1 || errs[0].Field != "apiVersion" {
		t.Errorf("errors = %v, want one at apiVersion", errs)
	}
}

// TestCreateDecodedWithNumbers: objects from a decoder that keeps numbers
// as json.Number (as render's does) get the same verdict; the CEL rules
// would otherwise fail on the type, not the rule.
func TestCreateDecodedWithNumbers(t *testing.T) {
	v := ogxValidator(t)
	obj := map[string]any{"apiVersion": "ogx.io/v1beta1", "kind": "OGXServer", "metadata": map[string]any{"name": "s"},
		"spec": map[string]any{"distribution": map[string]any{"name": "starter"}, "workload": map[string]any{
			"autoscaling":         map[string]any{"minReplicas": json.Number("5"), "maxReplicas": json.Number("2")},
			"podDisruptionBudget": map[string]any{"minAvailable": json.Number("1")}}}}
	errs := v.Create(context.Background(), obj)
	if len(errs) != 1 || errs[0].Field != "spec.workload.autoscaling" || !strings.HasSuffix(errs[0].ErrorBody(), "maxReplicas must be greater than or equal to minReplicas") {
		t.Errorf("errors = %v, want only the autoscaling rule", errs)
	}
}
