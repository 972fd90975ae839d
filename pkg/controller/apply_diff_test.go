package controller

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
)

func TestJSONDiff(t *testing.T) {
	svc := func(port int32, selector map[string]string) *corev1ac.ServiceApplyConfiguration {
		spec := corev1ac.ServiceSpec().WithPorts(corev1ac.ServicePort().WithName("http").WithPort(port))
		if selector != nil {
			spec.WithSelector(selector)
		}
		return corev1ac.Service("s", "ns").WithSpec(spec)
	}
	cases := []struct {
		name string
		a, b any
		want string
	}{
		{name: "equal", a: svc(80, map[string]string{"app": "x"}), b: svc(80, map[string]string{"app": "x"}), want: ""},
		{name: "changed leaf", a: svc(80, nil), b: svc(8080, nil),
			want: "-.spec.ports[0].port: 80\n+.spec.ports[0].port: 8080\n"},
		{name: "added and removed map keys", a: svc(80, map[string]string{"app": "x"}), b: svc(80, map[string]string{"tier": "y"}),
			want: "-.spec.selector.app: \"x\"\n+.spec.selector.tier: \"y\"\n"},
		{name: "empty containers are leaves", a: map[string]any{"l": []any{}}, b: map[string]any{"m": map[string]any{}},
			want: "-.l: []\n+.m: {}\n"},
		{name: "scalar root", a: 1, b: "1", want: "-.: 1\n+.: \"1\"\n"},
		{name: "unencodable", a: map[string]any{"f": func() {}}, b: map[string]any{},
			want: "-.: <json: unsupported type: func()>\n+.: {}\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, jsonDiff(tc.a, tc.b)); diff != "" {
				t.Errorf("jsonDiff (-want +got):\n%s", diff)
			}
		})
	}
}
