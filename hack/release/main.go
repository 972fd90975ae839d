// Command release stamps one version into every place that names it, so a
// release is `make release VERSION=x.y.z` and nothing else to edit by hand:
//
//   - VERSION, the one source the Makefile reads (the binary's --version,
//     user agent and build-info metric come from it through -ldflags);
//   - config/manager/manager.yaml, the operator image's tag, and
//     config/components/labels, the app.kubernetes.io/version label (from
//     which `make release` renders release/ogx-controller.yaml and
//     `make bundle` the OLM bundle);
//   - charts/ogx-controller/Chart.yaml (version, appVersion) and values.yaml
//     (image.tag).
//
// It refuses a version that is not semantic (x.y.z, optionally -pre) or
// that CHANGELOG.md has no section for, and changes nothing then. The
// Makefile regenerates the release file, the bundle and the chart's CRDs
// afterwards; config/versions_test.go (make test) and `make verify` fail
// when any of these disagree.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"golang.org/x/mod/semver"
)

func main() {
	root := flag.String("root", ".", "the repository's root")
	version := flag.String("version", "", "the release, x.y.z (no leading v)")
	flag.Parse()
	if err := stamp(*root, *version); err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
}

// stamp writes version into every file of edits under root, or into none
// when one of them cannot take it.
func stamp(root, version string) error {
	if err := checkVersion(version); err != nil {
		return err
	}
	changelog, err := os.ReadFile(filepath.Join(root, "CHANGELOG.md"))
	if err != nil {
		return err
	}
	if !hasSection(changelog, version) {
		return fmt.Errorf("CHANGELOG.md has no section for %s: add a heading \"## [%s] - YYYY-MM-DD\" (or \"- unreleased\") with the release's changes first", version, version)
	}
	out := map[string][]byte{}
	for _, e := range edits(version) {
		p := filepath.Join(root, e.file)
		data, ok := out[p]
		if !ok {
			if data, err = os.ReadFile(p); err != nil {
				return err
			}
		}
		if n := len(e.re.FindAllIndex(data, -1)); n != 1 {
			return fmt.Errorf("%s: %d places match %s, want exactly one", e.file, n, e.re)
		}
		out[p] = e.re.ReplaceAll(data, []byte("${1}"+e.value))
	}
	out[filepath.Join(root, "VERSION")] = []byte(version + "\n")
	for p, data := range out {
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// checkVersion accepts x.y.z with an optional pre-release, as OLM and Helm
// both require semantic versions.
func checkVersion(v string) error {
	if strings.HasPrefix(v, "v") {
		return fmt.Errorf("version %q: give it without the leading v (the image tag adds it)", v)
	}
	if strings.Contains(v, "+") || semver.Canonical("v"+v) != "v"+v {
		return fmt.Errorf("version %q is not x.y.z (optionally x.y.z-pre)", v)
	}
	return nil
}

// hasSection reports whether changelog has the heading
// "## [version] - YYYY-MM-DD" or "## [version] - unreleased", the form
// make bundle reads the upgrade graph from and config/versions_test.go
// checks, so a version stamped here is one the bundle can be built for.
func hasSection(changelog []byte, version string) bool {
	return regexp.MustCompile(`(?m)^## \[` + regexp.QuoteMeta(version) + `\] - (unreleased|\d{4}-\d{2}-\d{2})$`).Match(changelog)
}

// edit replaces the one match of re in file: re's first group is kept and
// the rest of the match becomes value.
type edit struct {
	file  string
	re    *regexp.Regexp
	value string
}

// operatorImage is the operator image's reference up to its tag.
const operatorImage = `ghcr\.io/ogx-k8s/ogx-controller:`

func edits(version string) []edit {
	return []edit{
		{"config/manager/manager.yaml", regexp.MustCompile(`(image: ` + operatorImage + `)\S+`), "v" + version},
		{"config/components/labels/kustomization.yaml", regexp.MustCompile(`(?m)^(      app\.kubernetes\.io/version: )\S+$`), "v" + version},
		{"charts/ogx-controller/Chart.yaml", regexp.MustCompile(`(?m)^(version: )\S+$`), version},
		{"charts/ogx-controller/Chart.yaml", regexp.MustCompile(`(?m)^(appVersion: )\S+$`), "v" + version},
		{"charts/ogx-controller/values.yaml", regexp.MustCompile(`(?m)^(image:\n(?:  .*\n)*?  tag: )\S+$`), "v" + version},
	}
}
