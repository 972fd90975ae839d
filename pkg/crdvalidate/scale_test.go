package crdvalidate

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// TestScaleErrors: the spec replicas count of a kind with a scale
// subresource must be an integer in 0..MaxInt32, named by the CRD's path.
func TestScaleErrors(t *testing.T) {
	const path = ".spec.workload.replicas"
	obj := func(v any) map[string]any {
		return map[string]any{"spec": map[string]any{"workload": map[string]any{"replicas": v}}}
	}
	for _, tc := range []struct {
		name string
		obj  map[string]any
		path string
		want []string
	}{
		{"no scale subresource", obj(int64(-1)), "", nil},
		{"absent", map[string]any{"spec": map[string]any{}}, path, nil},
		{"zero", obj(int64(0)), path, nil},
		{"negative, decoded as a float", obj(float64(-2)), path, []string{".spec.workload.replicas: Invalid value: -2: should be a non-negative integer"}},
		{"negative", obj(int64(-1)), path, []string{".spec.workload.replicas: Invalid value: -1: should be a non-negative integer"}},
		{"too large", obj(int64(1) << 31), path, []string{".spec.workload.replicas: Invalid value: 2147483648: should be less than or equal to 2147483647"}},
		{"not an integer", obj("three"), path, []string{".spec.workload.replicas: Invalid value: 0: .spec.workload.replicas accessor error: three is of the type string, expected int64"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, e := range scaleErrors(tc.obj, tc.path) {
				if e.Type != field.ErrorTypeInvalid {
					t.Errorf("type %s, want Invalid", e.Type)
				}
				got = append(got, e.Error())
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}
