// Package config_test checks what the install paths share: every one of them
// names the operator's image, and itself, by the release it belongs to.
package config_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// operatorImage matches a reference to the operator's image with its tag or
// digest.
var operatorImage = regexp.MustCompile(`ghcr\.io/ogx-k8s/ogx-controller([:@][^\s"']+)`)

// releaseVersion is the file VERSION, the release's one source (the
// Makefile reads it; make release VERSION=x.y.z writes it).
func releaseVersion(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("../VERSION")
	if err != nil {
		t.Fatal(err)
	}
	v := strings.TrimSpace(string(data))
	if !regexp.MustCompile(`^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$`).MatchString(v) {
		t.Fatalf("VERSION = %q, want x.y.z", v)
	}
	return v
}

// TestInstallPathsNameTheRelease: the kustomize install, the release
// manifest, the OLM bundle and the chart run the image v$(VERSION), never a
// moving tag such as :latest, which would run whatever was pushed last and
// differ between nodes; the chart's own version and the bundle's CSV are
// the release's too.
func TestInstallPathsNameTheRelease(t *testing.T) {
	version := releaseVersion(t)
	tag := "v" + version
	files := installFiles(t, "manager/manager.yaml", "../release/ogx-controller.yaml", "../charts/ogx-controller/values.yaml")
	for f, data := range files {
		refs := operatorImage.FindAllSubmatch(data, -1)
		if len(refs) == 0 && f != "../charts/ogx-controller/values.yaml" {
			t.Errorf("%s names no operator image", f)
		}
		for _, r := range refs {
			if string(r[1]) != ":"+tag {
				t.Errorf("%s: operator image %s, want :%s (run make release after changing VERSION)", f, r[0], tag)
			}
		}
	}
	want := map[string]map[*regexp.Regexp]string{
		"../charts/ogx-controller/values.yaml": {regexp.MustCompile(`(?m)^  tag: (\S+)$`): tag},
		"components/labels/kustomization.yaml": {regexp.MustCompile(`(?m)^      app\.kubernetes\.io/version: (\S+)$`): tag},
		"../charts/ogx-controller/Chart.yaml": {
			regexp.MustCompile(`(?m)^appVersion: (\S+)$`): tag,
			regexp.MustCompile(`(?m)^version: (\S+)$`):    version,
		},
		csvFile(t): {
			regexp.MustCompile(`(?m)^  name: (\S+)$`):                      "ogx-controller." + tag,
			regexp.MustCompile(`(?m)^  version: (\S+)$`):                   version,
			regexp.MustCompile(`(?m)^  relatedImages:\n  - image: (\S+)$`): "ghcr.io/ogx-k8s/ogx-controller:" + tag,
		},
	}
	for f, res := range want {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for re, w := range res {
			if got := re.FindSubmatch(data); got == nil || string(got[1]) != w {
				t.Errorf("%s: %s gives %q, want %q (run make release)", f, re, got, w)
			}
		}
	}
}

// TestVersionHasChangelogSection: the release being built is described in
// CHANGELOG.md, whose headings are also the bundle's upgrade graph.
func TestVersionHasChangelogSection(t *testing.T) {
	version := releaseVersion(t)
	data, err := os.ReadFile("../CHANGELOG.md")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^## \[` + regexp.QuoteMeta(version) + `\] - (unreleased|\d{4}-\d{2}-\d{2})$`).Match(data) {
		t.Errorf("CHANGELOG.md has no heading \"## [%s] - YYYY-MM-DD\" (or \"- unreleased\")", version)
	}
}

// csvFile is the bundle's one ClusterServiceVersion.
func csvFile(t *testing.T) string {
	t.Helper()
	csvs, err := filepath.Glob("../bundle/manifests/*.clusterserviceversion.yaml")
	if err != nil || len(csvs) != 1 {
		t.Fatalf("want one CSV in bundle/manifests, got %v (%v)", csvs, err)
	}
	return csvs[0]
}

// installFiles reads files and the bundle's one CSV, the operator's
// manifests in every install path, by path.
func installFiles(t *testing.T, files ...string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, f := range append(files, csvFile(t)) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[f] = data
	}
	return out
}
