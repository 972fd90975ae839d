package crd

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// The comparison is only worth something if it fails. Each case changes one
// side in memory the way an incompatible edit would and expects exactly that
// change to be reported, not covered by upstreamAllowed, with everything
// else still explained.
func TestUpstreamCompatibilityCatchesMutations(t *testing.T) {
	const crd, v = ogxServers, "v1beta1"
	for _, c := range []struct {
		name string
		// upstream says which side is changed: upstream's copy or ours.
		upstream bool
		mutate   func(*testing.T, *apiextensionsv1.CustomResourceDefinition)
		want     []difference
	}{{
		name: "changed default",
		mutate: editField(v, "spec.network.port", func(s *apiextensionsv1.JSONSchemaProps) {
			s.Default = &apiextensionsv1.JSON{Raw: []byte("8080")}
		}),
		want: []difference{{CRD: crd, Path: "v1beta1 spec.network.port", Kind: "default", Upstream: "8321", Ours: "8080"}},
	}, {
		name: "changed CEL rule",
		mutate: editField(v, "spec.network.externalAccess", func(s *apiextensionsv1.JSONSchemaProps) {
			s.XValidations[0].Rule = "has(self.hostname)"
		}),
		want: []difference{{
			CRD: crd, Path: "v1beta1 spec.network.externalAccess", Kind: "x-kubernetes-validations",
			Upstream: `rule="!has(self.hostname) || self.hostname.size() > 0" message="hostname must not be empty if specified"`,
			Ours:     `rule="has(self.hostname)" message="hostname must not be empty if specified"`,
		}},
	}, {
		name: "removed enum value",
		mutate: editField(v, "spec.network.policy.policyTypes[]", func(s *apiextensionsv1.JSONSchemaProps) {
			s.Enum = s.Enum[:1]
		}),
		want: []difference{{
			CRD: crd, Path: "v1beta1 spec.network.policy.policyTypes[]", Kind: "enum",
			Upstream: `["Egress","Ingress"]`, Ours: `["Ingress"]`,
		}},
	}, {
		name: "tightened bound",
		mutate: editField(v, "spec.network.port", func(s *apiextensionsv1.JSONSchemaProps) {
			s.Maximum = ptr(1024.0)
		}),
		want: []difference{{CRD: crd, Path: "v1beta1 spec.network.port", Kind: "maximum", Upstream: "65535", Ours: "1024"}},
	}, {
		name: "changed type",
		mutate: editField(v, "spec.network.port", func(s *apiextensionsv1.JSONSchemaProps) {
			s.Type = "string"
		}),
		want: []difference{{CRD: crd, Path: "v1beta1 spec.network.port", Kind: "type", Upstream: "integer", Ours: "string"}},
	}, {
		name: "newly required field",
		mutate: editField(v, "spec.network", func(s *apiextensionsv1.JSONSchemaProps) {
			s.Required = append(s.Required, "port")
		}),
		want: []difference{{CRD: crd, Path: "v1beta1 spec.network.port", Kind: "required", Upstream: "", Ours: "true"}},
	}, {
		// A removed struct is one difference at its top, not one per field.
		name: "removed field",
		mutate: editField(v, "spec", func(s *apiextensionsv1.JSONSchemaProps) {
			delete(s.Properties, "network")
		}),
		want: []difference{{CRD: crd, Path: "v1beta1 spec.network", Kind: kindRemoved}},
	}, {
		name: "version no longer served",
		mutate: func(t *testing.T, c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Versions[0].Served = false
		},
		want: []difference{{CRD: crd, Path: "v1beta1", Kind: "served", Upstream: "true", Ours: "false"}},
	}, {
		name:     "upstream changed a default",
		upstream: true,
		mutate: editField(v, "spec.monitoring.enabled", func(s *apiextensionsv1.JSONSchemaProps) {
			s.Default = &apiextensionsv1.JSON{Raw: []byte("false")}
		}),
		want: []difference{{CRD: crd, Path: "v1beta1 spec.monitoring.enabled", Kind: "default", Upstream: "false", Ours: "true"}},
	}} {
		t.Run(c.name, func(t *testing.T) {
			upstream, ours := upstreamCRD(t, crd), ourCRD(t, crd)
			if c.upstream {
				c.mutate(t, upstream)
			} else {
				c.mutate(t, ours)
			}
			unexplained, stale := checkAllowed(compare(crd, flatten(upstream), flatten(ours)), allowedFor(crd))
			if d := cmp.Diff(c.want, unexplained); d != "" {
				t.Errorf("unexplained differences (-want +got):\n%s", d)
			}
			if len(stale) > 0 {
				t.Errorf("stale entries: %v", stale)
			}
		})
	}
}

// allowedFor is the part of upstreamAllowed about crd.
func allowedFor(crd string) []allowance {
	var out []allowance
	for _, a := range upstreamAllowed {
		if a.CRD == crd {
			out = append(out, a)
		}
	}
	return out
}

// editField returns a mutation that applies edit to the schema field at
// path ("spec.network.port", "[]" for array items) of version.
func editField(version, path string, edit func(*apiextensionsv1.JSONSchemaProps)) func(*testing.T, *apiextensionsv1.CustomResourceDefinition) {
	return func(t *testing.T, c *apiextensionsv1.CustomResourceDefinition) {
		t.Helper()
		for _, v := range c.Spec.Versions {
			if v.Name == version {
				if err := editSchema(v.Schema.OpenAPIV3Schema, strings.Split(path, "."), edit); err != "" {
					t.Fatalf("%s %s: %s", version, path, err)
				}
				return
			}
		}
		t.Fatalf("no version %s", version)
	}
}

// editSchema walks s along steps and applies edit at the end. Properties
// hold values, not pointers, so each step writes its copy back.
func editSchema(s *apiextensionsv1.JSONSchemaProps, steps []string, edit func(*apiextensionsv1.JSONSchemaProps)) string {
	if len(steps) == 0 {
		edit(s)
		return ""
	}
	name, items := strings.CutSuffix(steps[0], "[]")
	p, ok := s.Properties[name]
	if !ok {
		return "no field " + name
	}
	target := &p
	if items {
		if p.Items == nil || p.Items.Schema == nil {
			return name + " is not an array"
		}
		target = p.Items.Schema
	}
	if err := editSchema(target, steps[1:], edit); err != "" {
		return err
	}
	s.Properties[name] = p
	return ""
}

func ptr[T any](v T) *T { return &v }

// checkAllowed must report a difference no entry explains and an entry
// that explains nothing, and must not let one entry explain two
// differences.
func TestCheckAllowed(t *testing.T) {
	port := difference{CRD: "c", Path: "v1 spec.port", Kind: "maximum", Upstream: "10", Ours: "20"}
	added := difference{CRD: "c", Path: "v1 status.x", Kind: kindAdded}
	allowPort := allowance{CRD: "c", Path: "v1 spec.port", Kind: "maximum", Upstream: "10", Ours: "20"}
	allowAdded := allowance{CRD: "c", Path: "v1 status.x", Kind: kindAdded}
	for _, c := range []struct {
		name            string
		diffs           []difference
		allowed         []allowance
		wantUnexplained []difference
		wantStale       []allowance
	}{
		{name: "all explained", diffs: []difference{port, added}, allowed: []allowance{allowPort, allowAdded}},
		{name: "nothing allowed", diffs: []difference{port}, wantUnexplained: []difference{port}},
		{name: "stale entry", diffs: []difference{added}, allowed: []allowance{allowPort, allowAdded}, wantStale: []allowance{allowPort}},
		{
			name:            "value changed again",
			diffs:           []difference{{CRD: "c", Path: "v1 spec.port", Kind: "maximum", Upstream: "10", Ours: "30"}},
			allowed:         []allowance{allowPort},
			wantUnexplained: []difference{{CRD: "c", Path: "v1 spec.port", Kind: "maximum", Upstream: "10", Ours: "30"}},
			wantStale:       []allowance{allowPort},
		},
		{name: "duplicate entry", diffs: []difference{added}, allowed: []allowance{allowAdded, allowAdded}, wantStale: []allowance{allowAdded}},
	} {
		t.Run(c.name, func(t *testing.T) {
			unexplained, stale := checkAllowed(c.diffs, c.allowed)
			if d := cmp.Diff(c.wantUnexplained, unexplained); d != "" {
				t.Errorf("unexplained (-want +got):\n%s", d)
			}
			if d := cmp.Diff(c.wantStale, stale); d != "" {
				t.Errorf("stale (-want +got):\n%s", d)
			}
		})
	}
}

// A failing test prints one line per difference with its path and both
// values, so a reader need not open the YAML to see what changed.
func TestDifferenceLine(t *testing.T) {
	for _, c := range []struct {
		d    difference
		want string
	}{
		{difference{CRD: "c", Path: "v1 spec.port", Kind: "default", Upstream: "8321", Ours: "8080"},
			"c v1 spec.port: default: upstream 8321, ours 8080"},
		{difference{CRD: "c", Path: "v1 spec.port", Kind: "maximum", Upstream: "", Ours: "10"},
			"c v1 spec.port: maximum: upstream (unset), ours 10"},
		{difference{CRD: "c", Path: "v1 status.x", Kind: kindAdded}, "c v1 status.x: added (not in upstream)"},
		{difference{CRD: "c", Path: "v1 spec.y", Kind: kindRemoved}, "c v1 spec.y: removed (upstream has it)"},
	} {
		if got := c.d.String(); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
}
