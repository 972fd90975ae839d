package main

import (
	_ "embed"
	"encoding/base64"
	"fmt"
	"os"
	"regexp"
	"sort"

	"golang.org/x/mod/semver"
)

// iconSVG is the operator's icon, which catalogs and the OpenShift console
// show next to its name.
//
//go:embed icon.svg
var iconSVG []byte

// csvIcon is the icon as the CSV carries it.
func csvIcon() []icon {
	return []icon{{Base64Data: base64.StdEncoding.EncodeToString(iconSVG), MediaType: "image/svg+xml"}}
}

// maintainers are who a catalog's users contact about the operator. The
// address is the project's; change it here before publishing to a catalog
// under another organisation.
var csvMaintainers = []maintainer{{Name: "ogx-k8s maintainers", Email: "ogx-k8s@users.noreply.github.com"}}

// release is one CHANGELOG.md section: a version and its date, empty while
// unreleased.
type release struct{ version, date string }

// changelogHeading is a release's heading, "## [x.y.z] - YYYY-MM-DD" or
// "## [x.y.z] - unreleased".
var changelogHeading = regexp.MustCompile(`(?m)^## \[([^\]]+)\] - (unreleased|\d{4}-\d{2}-\d{2})$`)

// readReleases lists CHANGELOG.md's releases, highest version first.
func readReleases(path string) ([]release, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []release
	for _, m := range changelogHeading.FindAllStringSubmatch(string(data), -1) {
		if !semver.IsValid("v" + m[1]) {
			return nil, fmt.Errorf("%s: heading %q: %q is not a semantic version", path, m[0], m[1])
		}
		d := m[2]
		if d == "unreleased" {
			d = ""
		}
		out = append(out, release{version: m[1], date: d})
	}
	sortReleases(out)
	return out, nil
}

// sortReleases orders releases highest version first.
func sortReleases(rs []release) {
	sort.Slice(rs, func(i, j int) bool { return semver.Compare("v"+rs[i].version, "v"+rs[j].version) > 0 })
}

// upgradeGraph places version among the releases: the release it replaces
// (the next lower version that was released, that is, has a date; empty for
// the first) and its date. An undated lower version was never published, so
// no catalog has its bundle and replacing it would break the channel's
// graph. A version the changelog does not list is an error, so a bundle is
// never published without its section.
func upgradeGraph(releases []release, version string) (replaces, date string, err error) {
	found := false
	for _, r := range releases {
		switch c := semver.Compare("v"+r.version, "v"+version); {
		case c == 0:
			found, date = true, r.date
		case c < 0 && replaces == "" && r.date != "":
			replaces = r.version
		}
	}
	if !found {
		return "", "", fmt.Errorf("CHANGELOG.md has no section for %s: add \"## [%s] - unreleased\" with the release's changes", version, version)
	}
	return replaces, date, nil
}
