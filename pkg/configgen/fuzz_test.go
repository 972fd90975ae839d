package configgen

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	yaml "go.yaml.in/yaml/v3"

	"github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

// goldenSeeds returns the (cr.yaml, base.yaml) pairs of every golden case,
// which make the seed corpus of both fuzz targets.
func goldenSeeds(tb testing.TB) [][2][]byte {
	dirs, err := os.ReadDir("testdata")
	if err != nil {
		tb.Fatal(err)
	}
	var out [][2][]byte
	for _, d := range dirs {
		if !d.IsDir() || d.Name() == "fuzz" {
			continue
		}
		cr, err := os.ReadFile(filepath.Join("testdata", d.Name(), fileCR))
		if err != nil {
			tb.Fatal(err)
		}
		base, _ := os.ReadFile(filepath.Join("testdata", d.Name(), fileBase))
		out = append(out, [2][]byte{cr, base})
	}
	return out
}

// fuzzTemplate is the spec used when the fuzzed OGXServer does not parse:
// the all-APIs case, so that the knobs vary a rich spec.
func fuzzTemplate(tb testing.TB) *v1beta1.OGXServer {
	in, err := goldenInput(tb, filepath.Join("testdata", "x06-all-apis-populated"))
	if err != nil {
		tb.Fatal(err)
	}
	return in.server
}

// applyKnobs varies a spec by bits of k; each bit removes or adds one
// trigger or feature.
func applyKnobs(s *v1beta1.OGXServerSpec, k uint16) {
	if k&1 != 0 {
		s.Providers = nil
	}
	if k&2 != 0 {
		s.Storage = nil
	}
	if k&4 != 0 {
		s.Resources = nil
	}
	if k&8 != 0 {
		s.DisabledAPIs = []v1beta1.DisabledAPI{"inference", "vector_io", "tool_runtime", "files", "batches", "responses", "file_processors"}
	}
	if k&16 != 0 && s.Network != nil {
		s.Network.TLS = nil
	}
	if k&32 != 0 {
		s.TLS = nil
	}
	if k&64 != 0 {
		img := "localhost:5000/ogx:dev"
		s.Distribution = v1beta1.DistributionSpec{Image: &img}
	}
	if k&128 != 0 && s.Resources != nil {
		for i := range s.Resources.Models {
			s.Resources.Models[i].Provider = ""
		}
	}
	if k&256 != 0 {
		s.OverrideConfig = &v1beta1.ConfigMapKeyRef{Name: "o", Key: "k"}
	}
}

// FuzzGenerate feeds random base configs and spec variations to Generate.
// It must never panic; a success must be byte-stable, parse back as a
// mapping, and be a fixed point: generating again from the output as the
// base gives the same bytes.
func FuzzGenerate(f *testing.F) {
	for i, s := range goldenSeeds(f) {
		f.Add(s[1], s[0], uint16(i*37))
	}
	template := fuzzTemplate(f)
	f.Fuzz(func(t *testing.T, base, cr []byte, knobs uint16) {
		s, err := ParseServer(cr)
		if err != nil {
			s = template.DeepCopy()
		}
		applyKnobs(&s.Spec, knobs)
		res, err := Generate(&s.Spec, base)
		if err != nil {
			return
		}
		again, err := Generate(&s.Spec, base)
		if err != nil || !bytes.Equal(again.ConfigYAML, res.ConfigYAML) {
			t.Fatalf("not deterministic (err %v)", err)
		}
		var tree map[string]any
		if err := yaml.Unmarshal(res.ConfigYAML, &tree); err != nil {
			t.Fatalf("output does not parse: %v\n%s", err, res.ConfigYAML)
		}
		fixed, err := Generate(&s.Spec, res.ConfigYAML)
		if err != nil {
			t.Fatalf("output is not a valid base: %v\n%s", err, res.ConfigYAML)
		}
		if !bytes.Equal(fixed.ConfigYAML, res.ConfigYAML) {
			t.Fatalf("not a fixed point:\n%s\n---\n%s", res.ConfigYAML, fixed.ConfigYAML)
		}
	})
}

// FuzzParseServer feeds random OGXServer documents through the whole
// spec-side pipeline; nothing may panic.
func FuzzParseServer(f *testing.F) {
	for _, s := range goldenSeeds(f) {
		f.Add(s[0])
	}
	f.Add([]byte(`{"apiVersion":"ogx.io/v1beta1","kind":"OGXServer","spec":{"providers":{"inference":{"remote":{"custom":[{"type":"remote::a","settings":7}]}}}}}`))
	f.Add([]byte("apiVersion: ogx.io/v1beta1\nkind: OGXServer\nspec: {storage: {kv: {type: memcached}}}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseServer(data)
		if err != nil {
			return
		}
		_ = ModeOf(&s.Spec)
		if err := ValidateSpec(&s.Spec); err != nil {
			return
		}
		_, _ = Generate(&s.Spec, []byte("version: 2\napis: [inference]\n"))
	})
}
