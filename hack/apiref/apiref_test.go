package main

import (
	"flag"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/fixture.md")

func fixture(t *testing.T) string {
	t.Helper()
	out, err := generate("Fixture", "Intro.\n", []pkgRoot{{"testdata/v1", "Widget"}})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestGenerateGolden compares the whole output with testdata/fixture.md,
// which was reviewed by hand (go test -update rewrites it).
func TestGenerateGolden(t *testing.T) {
	got := fixture(t)
	if *update {
		if err := os.WriteFile("testdata/fixture.md", []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile("testdata/fixture.md")
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("output differs from testdata/fixture.md (go test -update rewrites it after review):\n%s", got)
	}
}

// TestGenerateRules pins the rules the golden file shows, one by one, so a
// failure names the rule that broke.
func TestGenerateRules(t *testing.T) {
	got := fixture(t)
	for _, c := range []struct{ name, want string }{
		{"group and version from +groupName and the directory", "## example.io/v1"},
		{"root kind line", "`apiVersion: example.io/v1`, `kind: Widget`"},
		{"inline embedded fields are the parent's", "| `label` | `string` | Label names it. |"},
		{"default, bounds, optional", "Optional. Default: `2`. Minimum 1; maximum 9."},
		{"enum values unquoted", "Underlying type: `string`. One of `red`, `blue`."},
		{"item bounds", "At least 1 item; each item at least 2 characters."},
		{"map of a local type links it", "map[`string`][Part](#example-io-v1-part)"},
		{"other packages' types name their import path", "`ResourceRequirements` (k8s.io/api/core/v1)"},
		{"rule by message", "- size or color is required"},
		{"rule without message by its expression", "- `self.size != 3`"},
		{"angle brackets escaped outside code", "&lt;name&gt;-suffix and `a\\|b` code"},
	} {
		if !strings.Contains(got, c.want) {
			t.Errorf("%s: output lacks %q", c.name, c.want)
		}
	}
	for _, c := range []struct{ name, absent string }{
		{"unreachable types are left out", "Unused"},
		{"an inline embedded type has no section of its own", "Common"},
		{"json:\"-\" fields are left out", "Internal"},
		{"unexported fields are left out", "hidden"},
		{"TypeMeta is covered by the kind line", "TypeMeta"},
		{"markers are not prose", "+kubebuilder"},
	} {
		if strings.Contains(got, c.absent) {
			t.Errorf("%s: output contains %q", c.name, c.absent)
		}
	}
}

func TestGenerateErrors(t *testing.T) {
	if _, err := generate("x", "", []pkgRoot{{"testdata/v1", "Nope"}}); err == nil || !strings.Contains(err.Error(), "no type Nope") {
		t.Errorf("unknown kind: got %v, want an error naming it", err)
	}
	if _, err := generate("x", "", []pkgRoot{{"testdata/missing", "Widget"}}); err == nil {
		t.Error("missing package directory: got no error")
	}
}
