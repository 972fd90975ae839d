package configgen

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	yaml "go.yaml.in/yaml/v3"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/contenthash"
)

var update = flag.Bool("update", false, "rewrite the want-* files of the golden cases")

// Files of a golden case directory (docs/config-generation.md, Golden tests).
const (
	fileCR       = "cr.yaml"
	fileBase     = "base.yaml"
	fileConfig   = "want-config.yaml"
	fileErr      = "want-err"
	fileEnv      = "want-env.yaml"
	fileWarnings = "want-warnings"
	fileSummary  = "want-summary.yaml"
)

func TestGolden(t *testing.T) {
	dirs, err := os.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, d := range dirs {
		if !d.IsDir() || d.Name() == "fuzz" {
			continue
		}
		n++
		t.Run(d.Name(), func(t *testing.T) { runGolden(t, filepath.Join("testdata", d.Name())) })
	}
	if n < 30 {
		t.Fatalf("only %d golden cases", n)
	}
}

// goldenInput reads a case's OGXServer and optional base config.
func goldenInput(tb testing.TB, dir string) (*caseInput, error) {
	tb.Helper()
	cr, err := os.ReadFile(filepath.Join(dir, fileCR))
	if err != nil {
		return nil, err
	}
	s, err := ParseServer(cr)
	if err != nil {
		return nil, err
	}
	base, err := os.ReadFile(filepath.Join(dir, fileBase))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	return &caseInput{cr: cr, base: base, server: s}, nil
}

func runGolden(t *testing.T, dir string) {
	in, err := goldenInput(t, dir)
	if err != nil {
		t.Fatal(err)
	}
	res, genErr := Generate(&in.server.Spec, in.base)
	if wantErr, ok := readOptional(t, dir, fileErr); ok {
		want := strings.TrimSpace(string(wantErr))
		if genErr == nil {
			t.Fatalf("Generate succeeded, want error containing %q", want)
		}
		if !strings.Contains(genErr.Error(), want) {
			t.Fatalf("error %q does not contain %q", genErr, want)
		}
		return
	}
	if genErr != nil {
		t.Fatalf("Generate: %v", genErr)
	}
	again, err := Generate(&in.server.Spec, in.base)
	if err != nil || !bytes.Equal(again.ConfigYAML, res.ConfigYAML) {
		t.Fatalf("Generate is not byte-stable (err %v)", err)
	}
	if res.ContentHash != contenthash.H16(res.ConfigYAML) {
		t.Fatalf("ContentHash %s does not hash the config", res.ContentHash)
	}
	envYAML := []byte{}
	if len(res.Env) > 0 {
		if envYAML, err = sigsyaml.Marshal(res.Env); err != nil {
			t.Fatal(err)
		}
	}
	warnings := []byte(strings.Join(res.Warnings, "\n"))
	summary := []byte(fmt.Sprintf("providerCount: %d\nresourceCount: %d\nconfigVersion: %d\nsqliteBackend: %t\n",
		res.ProviderCount, res.ResourceCount, res.ConfigVersion, res.SQLiteBackend))
	if *update {
		writeGolden(t, dir, fileConfig, res.ConfigYAML)
		writeGolden(t, dir, fileEnv, envYAML)
		writeGolden(t, dir, fileWarnings, warnings)
		writeGolden(t, dir, fileSummary, summary)
		return
	}
	compareYAML(t, dir, fileConfig, res.ConfigYAML)
	compareYAML(t, dir, fileEnv, envYAML)
	compareYAML(t, dir, fileSummary, summary)
	compareWarnings(t, dir, res.Warnings)
}

type caseInput struct {
	cr, base []byte
	server   *v1beta1.OGXServer
}

func readOptional(t testing.TB, dir, name string) ([]byte, bool) {
	b, err := os.ReadFile(filepath.Join(dir, name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false
	}
	if err != nil {
		t.Fatal(err)
	}
	return b, true
}

// writeGolden writes a want file, or removes it when there is nothing to
// expect, so that an absent file always means "empty".
func writeGolden(t *testing.T, dir, name string, data []byte) {
	path := filepath.Join(dir, name)
	if len(data) == 0 {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
		return
	}
	if data[len(data)-1] != '\n' {
		data = append(data, '\n')
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// compareYAML compares structurally: both sides are decoded with yaml.v3,
// so key order is ignored but scalar types matter ("2" is not 2).
func compareYAML(t *testing.T, dir, name string, got []byte) {
	t.Helper()
	want, _ := readOptional(t, dir, name)
	var g, w any
	if err := yaml.Unmarshal(got, &g); err != nil {
		t.Fatalf("%s: output does not parse: %v", name, err)
	}
	if err := yaml.Unmarshal(want, &w); err != nil {
		t.Fatalf("%s: want file does not parse: %v", name, err)
	}
	if d := cmp.Diff(w, g); d != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", name, d)
	}
}

// compareWarnings expects one warning per line of want-warnings, in order,
// each containing its line.
func compareWarnings(t *testing.T, dir string, got []string) {
	t.Helper()
	raw, _ := readOptional(t, dir, fileWarnings)
	var want []string
	for _, l := range strings.Split(string(raw), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			want = append(want, l)
		}
	}
	if len(want) != len(got) {
		t.Fatalf("warnings %q, want %q", got, want)
	}
	for i := range want {
		if !strings.Contains(got[i], want[i]) {
			t.Errorf("warning %d %q does not contain %q", i, got[i], want[i])
		}
	}
}
