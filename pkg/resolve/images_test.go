package resolve

import (
	"strings"
	"testing"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

// TestImagePrecedence: an override of the operator ConfigMap wins over
// RELATED_IMAGE_*, which wins over the built-in table; an explicit image is
// used verbatim; invalid overrides are dropped and reported.
func TestImagePrecedence(t *testing.T) {
	env := map[string]string{"RELATED_IMAGE_STARTER": "registry.example/starter:env", "RELATED_IMAGE_REMOTE_VLLM": ""}
	table := NewDistributionTable(func(k string) string { return env[k] })
	overrides, problems := ImageOverrides("starter: registry.example/starter:override\nremote-vllm: 'not a ref!'\nunknown: registry.example/x:1\n")
	if len(problems) != 1 || !strings.Contains(problems[0], "remote-vllm") {
		t.Errorf("problems = %v, want one about remote-vllm", problems)
	}
	name := func(n string) *ogxv1beta1.OGXServerSpec {
		return &ogxv1beta1.OGXServerSpec{Distribution: ogxv1beta1.DistributionSpec{Name: &n}}
	}
	img := "quay.io/mine/ogx:1"
	for _, tc := range []struct {
		spec      *ogxv1beta1.OGXServerSpec
		overrides map[string]string
		want      string
	}{
		{name("starter"), overrides, "registry.example/starter:override"},
		{name("starter"), nil, "registry.example/starter:env"},
		{name("remote-vllm"), overrides, "docker.io/ogxai/distribution-remote-vllm:latest"},
		{name("postgres-demo"), overrides, "docker.io/ogxai/distribution-postgres-demo:latest"},
		{&ogxv1beta1.OGXServerSpec{Distribution: ogxv1beta1.DistributionSpec{Image: &img}}, overrides, img},
	} {
		got, err := table.ResolveImage(tc.spec, tc.overrides)
		if err != nil || got != tc.want {
			t.Errorf("ResolveImage(%s) = %q, %v; want %q", tc.spec.DistributionName()+tc.spec.DistributionImage(), got, err, tc.want)
		}
	}
	if _, err := table.ResolveImage(name("nope"), overrides); err == nil || !IsUserError(err) {
		t.Errorf("unknown name: err = %v, want a user error", err)
	}
	if _, problems := ImageOverrides("{not yaml"); len(problems) != 1 {
		t.Errorf("invalid YAML problems = %v", problems)
	}
}
