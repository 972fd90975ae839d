// Package config_test checks what the install paths share: every one of them
// names the operator's image by the release it belongs to.
package config_test

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// operatorImage matches a reference to the operator's image with its tag or
// digest.
var operatorImage = regexp.MustCompile(`ghcr\.io/ogx-k8s/ogx-controller([:@][^\s"']+)`)

// TestInstallPathsNameTheRelease: the kustomize install, the release
// manifest, the OLM bundle and the chart run the image v$(VERSION) of the
// Makefile, never a moving tag such as :latest, which would run whatever was
// pushed last and differ between nodes.
func TestInstallPathsNameTheRelease(t *testing.T) {
	makefile, err := os.ReadFile("../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^VERSION \?= (\S+)$`).FindSubmatch(makefile)
	if m == nil {
		t.Fatal("Makefile: no VERSION ?= line")
	}
	tag := "v" + string(m[1])
	for f, data := range installFiles(t, "manager/manager.yaml", "../release/ogx-controller.yaml", "../charts/ogx-controller/values.yaml") {
		refs := operatorImage.FindAllSubmatch(data, -1)
		if len(refs) == 0 && f != "../charts/ogx-controller/values.yaml" {
			t.Errorf("%s names no operator image", f)
		}
		for _, r := range refs {
			if string(r[1]) != ":"+tag {
				t.Errorf("%s: operator image %s, want :%s (make release bundle after changing VERSION)", f, r[0], tag)
			}
		}
	}
	chart := map[string]*regexp.Regexp{
		"../charts/ogx-controller/values.yaml": regexp.MustCompile(`(?m)^  tag: (\S+)$`),
		"../charts/ogx-controller/Chart.yaml":  regexp.MustCompile(`(?m)^appVersion: (\S+)$`),
	}
	for f, re := range chart {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if got := re.FindSubmatch(data); got == nil || string(got[1]) != tag {
			t.Errorf("%s: %s, want %s", f, got, tag)
		}
	}
}

// installFiles reads files and the bundle's one CSV, the operator's
// manifests in every install path, by path.
func installFiles(t *testing.T, files ...string) map[string][]byte {
	t.Helper()
	csvs, err := filepath.Glob("../bundle/manifests/*.clusterserviceversion.yaml")
	if err != nil || len(csvs) != 1 {
		t.Fatalf("want one CSV in bundle/manifests, got %v (%v)", csvs, err)
	}
	out := map[string][]byte{}
	for _, f := range append(files, csvs...) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[f] = data
	}
	return out
}
