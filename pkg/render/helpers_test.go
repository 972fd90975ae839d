package render

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

const (
	testName  = "demo"
	testNS    = "team-a"
	testUID   = "0b6a6c1e-6f2e-4c2a-9f59-5f1d8a0c7e11"
	testImage = "quay.io/ogx/distribution-starter:0.3.0"
	testONS   = "ogx-system"
)

// server returns a minimal OGXServer with the given mutations applied.
func server(muts ...func(*ogxv1beta1.OGXServerSpec)) *ogxv1beta1.OGXServer {
	s := &ogxv1beta1.OGXServer{
		ObjectMeta: metav1.ObjectMeta{Name: testName, Namespace: testNS, UID: testUID},
		Spec: ogxv1beta1.OGXServerSpec{
			Distribution: ogxv1beta1.DistributionSpec{Name: ptr.To("starter")},
		},
	}
	for _, m := range muts {
		m(&s.Spec)
	}
	return s
}

// inputs returns inputs for the inactive config mode with the given
// mutations applied.
func inputs(muts ...func(*Inputs)) *Inputs {
	in := &Inputs{
		Image:             testImage,
		RuntimeConfig:     RuntimeConfig{Mode: ogxv1beta1.ConfigModeInactive},
		OperatorNamespace: testONS,
	}
	for _, m := range muts {
		m(in)
	}
	return in
}

func workload(s *ogxv1beta1.OGXServerSpec) *ogxv1beta1.WorkloadSpec {
	if s.Workload == nil {
		s.Workload = &ogxv1beta1.WorkloadSpec{}
	}
	return s.Workload
}

func overridesOf(s *ogxv1beta1.OGXServerSpec) *ogxv1beta1.WorkloadOverrides {
	w := workload(s)
	if w.Overrides == nil {
		w.Overrides = &ogxv1beta1.WorkloadOverrides{}
	}
	return w.Overrides
}

func network(s *ogxv1beta1.OGXServerSpec) *ogxv1beta1.NetworkSpec {
	if s.Network == nil {
		s.Network = &ogxv1beta1.NetworkSpec{}
	}
	return s.Network
}

func policy(s *ogxv1beta1.OGXServerSpec) *ogxv1beta1.NetworkPolicySpec {
	n := network(s)
	if n.Policy == nil {
		n.Policy = &ogxv1beta1.NetworkPolicySpec{}
	}
	return n.Policy
}

// asJSON marshals v as the apply request body would be.
func asJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	return b
}

// generic decodes v's JSON into plain maps and slices, so expectations can
// be written as JSON text and compared with cmp regardless of Go types.
func generic(t *testing.T, v any) any {
	t.Helper()
	var out any
	if err := json.Unmarshal(asJSON(t, v), &out); err != nil {
		t.Fatalf("unmarshal: %v", err)
	}
	return out
}

// parse decodes a JSON expectation.
func parse(t *testing.T, s string) any {
	t.Helper()
	var out any
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		t.Fatalf("bad expectation %s: %v", s, err)
	}
	return out
}

// equalJSON compares v with the JSON text want.
func equalJSON(t *testing.T, what string, v any, want string) {
	t.Helper()
	if d := cmp.Diff(parse(t, want), generic(t, v)); d != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", what, d)
	}
}

// golden compares v, as indented JSON, with testdata/<name>; -update
// rewrites the file.
func golden(t *testing.T, name string, v any) {
	t.Helper()
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./pkg/render/ -update to create it)", err)
	}
	if d := cmp.Diff(string(want), string(got)); d != "" {
		t.Errorf("%s differs from the golden file (-want +got):\n%s", path, d)
	}
}
