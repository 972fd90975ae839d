package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// copyTree copies the files stamp edits from the repository into a
// temporary root, so the test runs on the real layouts.
func copyTree(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for _, f := range []string{"VERSION", "CHANGELOG.md", "config/manager/manager.yaml", "config/components/labels/kustomization.yaml",
		"charts/ogx-controller/Chart.yaml", "charts/ogx-controller/values.yaml"} {
		data, err := os.ReadFile(filepath.Join("../..", f))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func read(t *testing.T, root, f string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, f))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestStampWritesEveryPlace: a new version with a CHANGELOG section lands in
// every file, and only the version lines change.
func TestStampWritesEveryPlace(t *testing.T) {
	root := copyTree(t)
	cl := filepath.Join(root, "CHANGELOG.md")
	if err := os.WriteFile(cl, []byte(read(t, root, "CHANGELOG.md")+"\n## [2.3.4-rc.1] - unreleased\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := map[string]string{}
	files := []string{"config/manager/manager.yaml", "config/components/labels/kustomization.yaml", "charts/ogx-controller/Chart.yaml", "charts/ogx-controller/values.yaml"}
	for _, f := range files {
		before[f] = read(t, root, f)
	}
	if err := stamp(root, "2.3.4-rc.1"); err != nil {
		t.Fatal(err)
	}
	if got := read(t, root, "VERSION"); got != "2.3.4-rc.1\n" {
		t.Errorf("VERSION = %q", got)
	}
	want := map[string][]string{
		"config/manager/manager.yaml":                 {"image: ghcr.io/ogx-k8s/ogx-controller:v2.3.4-rc.1"},
		"config/components/labels/kustomization.yaml": {"app.kubernetes.io/version: v2.3.4-rc.1"},
		"charts/ogx-controller/Chart.yaml":            {"version: 2.3.4-rc.1", "appVersion: v2.3.4-rc.1"},
		"charts/ogx-controller/values.yaml":           {"  tag: v2.3.4-rc.1"},
	}
	for _, f := range files {
		after := read(t, root, f)
		var changed []string
		b, a := strings.Split(before[f], "\n"), strings.Split(after, "\n")
		if len(a) != len(b) {
			t.Fatalf("%s: %d lines, was %d", f, len(a), len(b))
		}
		for i := range a {
			if a[i] != b[i] {
				changed = append(changed, strings.TrimLeft(a[i], " -")) // manager.yaml's line is indented
			}
		}
		w := want[f]
		for i := range w {
			w[i] = strings.TrimLeft(w[i], " -")
		}
		if d := cmp.Diff(w, changed); d != "" {
			t.Errorf("%s changed lines (-want +got):\n%s", f, d)
		}
	}
}

// TestStampRefuses: a bad version, or one the CHANGELOG does not list,
// changes no file.
func TestStampRefuses(t *testing.T) {
	for _, tc := range []struct{ version, want string }{
		{"v1.0.0", "without the leading v"},
		{"1.0", "not x.y.z"},
		{"1.0.0+build", "not x.y.z"},
		{"", "not x.y.z"},
		{"9.9.9", "CHANGELOG.md has no section for 9.9.9"},
		{"7.7.7", "CHANGELOG.md has no section for 7.7.7"}, // a heading without "- date"
	} {
		t.Run(tc.version, func(t *testing.T) {
			root := copyTree(t)
			cl := filepath.Join(root, "CHANGELOG.md")
			if err := os.WriteFile(cl, []byte(read(t, root, "CHANGELOG.md")+"\n## [7.7.7]\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			before := read(t, root, "config/manager/manager.yaml") + read(t, root, "VERSION")
			err := stamp(root, tc.version)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("stamp(%q) = %v, want an error containing %q", tc.version, err, tc.want)
			}
			if after := read(t, root, "config/manager/manager.yaml") + read(t, root, "VERSION"); after != before {
				t.Error("files changed although stamp refused")
			}
		})
	}
}

// TestStampNeedsOnePlace: a file where the version's place is missing (the
// layout changed) is an error naming it, not a silent skip.
func TestStampNeedsOnePlace(t *testing.T) {
	root := copyTree(t)
	p := filepath.Join(root, "charts/ogx-controller/values.yaml")
	if err := os.WriteFile(p, []byte(strings.Replace(read(t, root, "charts/ogx-controller/values.yaml"), "  tag:", "  tagg:", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	err := stamp(root, strings.TrimSpace(read(t, root, "VERSION")))
	if err == nil || !strings.Contains(err.Error(), "values.yaml: 0 places match") {
		t.Fatalf("got %v", err)
	}
}
