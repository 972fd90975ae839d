package resolve

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/utils/ptr"

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

// TestServerImagePinsOnlyLabelBases: the image is pinned exactly when the
// config is generated from its labels and the reference names a tag, and a
// spec error is reported before the Source is asked.
func TestServerImagePinsOnlyLabelBases(t *testing.T) {
	generated := func(s *ogxv1beta1.OGXServerSpec) { s.Storage = &ogxv1beta1.StateStorageSpec{} }
	starter := ogxv1beta1.Distributions()["starter"]
	for name, tc := range map[string]struct {
		mut        func(*ogxv1beta1.OGXServerSpec)
		want       string
		wantPinned []string
		wantErr    string
	}{
		"inactive":    {mut: nil, want: starter},
		"override":    {mut: withOverride, want: starter},
		"labels, tag": {mut: generated, want: starter + "@" + testDigest, wantPinned: []string{starter}},
		"labels, digest": {mut: func(s *ogxv1beta1.OGXServerSpec) {
			generated(s)
			s.Distribution = ogxv1beta1.DistributionSpec{Image: ptr.To("quay.io/x/y@" + testDigest)}
		}, want: "quay.io/x/y@" + testDigest},
		"base ConfigMap": {mut: func(s *ogxv1beta1.OGXServerSpec) {
			generated(s)
			s.BaseConfig = &ogxv1beta1.ConfigMapKeyRef{Name: "base", Key: "config.yaml"}
		}, want: starter},
		"spec error first": {mut: func(s *ogxv1beta1.OGXServerSpec) {
			generated(s)
			s.Providers = &ogxv1beta1.ProvidersSpec{Inference: &ogxv1beta1.InferenceProviders{Remote: &ogxv1beta1.RemoteInferenceProviders{Custom: []ogxv1beta1.CustomProvider{{
				Type: "remote::x", Settings: &apiextensionsv1.JSON{Raw: []byte(`"not an object"`)}}}}}}
		}, wantErr: "settings must be a JSON object"},
	} {
		t.Run(name, func(t *testing.T) {
			src := &mapSource{}
			got, err := newResolver(src, false, nil).ServerImage(context.Background(), server(tc.mut))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
				}
			} else if err != nil || got != tc.want {
				t.Fatalf("ServerImage = %q, %v; want %q", got, err, tc.want)
			}
			if diff := cmp.Diff(tc.wantPinned, src.pinned); diff != "" {
				t.Errorf("tags pinned (-want +got):\n%s", diff)
			}
		})
	}
}

// TestUnknownOverrides: an override naming no distribution of the table is
// reported by name (it can never apply); known names are not.
func TestUnknownOverrides(t *testing.T) {
	table := NewDistributionTable(func(string) string { return "" })
	got := table.UnknownOverrides(map[string]string{"starter": "quay.io/x/y:1", "startr": "quay.io/x/y:1", "zzz": "a/b:c"})
	want := []string{`image-overrides[startr]: no distribution is named "startr"; the entry is ignored`,
		`image-overrides[zzz]: no distribution is named "zzz"; the entry is ignored`}
	if !slices.Equal(got, want) {
		t.Errorf("UnknownOverrides = %q, want %q", got, want)
	}
	if got := table.UnknownOverrides(nil); got != nil {
		t.Errorf("UnknownOverrides(nil) = %q", got)
	}
}
