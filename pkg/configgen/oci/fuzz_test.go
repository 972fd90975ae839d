package oci

import (
	"encoding/base64"
	"strings"
	"testing"
)

// The parsers below read what a registry, which any OGXServer may name,
// sends back; fuzzed, they must never panic and must keep their promises.

// FuzzParseManifest: an accepted image manifest always has a sha256 config
// digest to fetch (it becomes a request path), and picking a platform from an accepted index never fails in
// any way but an error.
func FuzzParseManifest(f *testing.F) {
	f.Add(mtOCIManifest, `{"schemaVersion":2,"config":{"mediaType":"x","digest":"sha256:`+strings.Repeat("0", 64)+`","size":1}}`)
	f.Add("", `{"manifests":[{"digest":"sha256:1","platform":{"os":"linux","architecture":"arm64"}},{"platform":null}]}`)
	f.Add("application/json; charset=utf-8", `{"mediaType":"`+mtDockerList+`","manifests":[]}`)
	f.Add(mtDockerSchema1, `{"schemaVersion":1}`)
	f.Add("text/plain", `{"config":null}`)
	f.Fuzz(func(t *testing.T, contentType, body string) {
		m, err := parseManifest(contentType, []byte(body))
		if err != nil {
			return
		}
		if !m.isIndex && (m.Config == nil || !sha256Digest.MatchString(m.Config.Digest)) {
			t.Fatalf("accepted an image manifest without a sha256 config digest: %q", body)
		}
		if m.isIndex {
			d, _, err := selectPlatform(m.Manifests, platform{OS: "linux", Architecture: "amd64"}, "img")
			if err == nil && (d.Platform == nil || d.Platform.OS != "linux") {
				t.Fatalf("picked a non-linux entry %+v from %q", d, body)
			}
		}
	})
}

// FuzzParseChallenges: a Bearer challenge is only ever used with a realm,
// and parameter names are matched case-insensitively.
func FuzzParseChallenges(f *testing.F) {
	f.Add(`Bearer realm="https://auth.example.com/token",service="registry.example.com",scope="repository:a/b:pull"`)
	f.Add(`Basic realm="x"`)
	f.Add(`Bearer realm=https://plain.example/t, error="insufficient \"scope\""`)
	f.Add(`Bearer REALM="a\"b\\",`)
	f.Add(`bearer realm="unterminated`)
	f.Fuzz(func(t *testing.T, header string) {
		chs := parseChallenges(strings.Split(header, "\n"))
		for _, c := range chs {
			if c.scheme != strings.ToLower(c.scheme) {
				t.Fatalf("scheme %q not lower-cased", c.scheme)
			}
			for k := range c.params {
				if k != strings.ToLower(k) {
					t.Fatalf("parameter %q not lower-cased", k)
				}
			}
		}
		if b, ok := bearer(chs); ok && (b.scheme != "bearer" || b.params["realm"] == "") {
			t.Fatalf("bearer() returned %+v", b)
		}
	})
}

// FuzzBaseFromConfigBlob: an image config is either refused or yields the
// name of its default-config label and that label's decoded text.
func FuzzBaseFromConfigBlob(f *testing.F) {
	enc := base64.StdEncoding.EncodeToString([]byte("version: 2\n"))
	f.Add(`{"config":{"Labels":{"` + LabelDefaultConfig + `":"starter","` + LabelConfigPrefix + `starter":"` + enc + `"}}}`)
	f.Add(`{"config":{"Labels":{"` + LabelDefaultConfig + `":" x ","` + LabelConfigPrefix + `x":" dmVy\nc2lvbg= "}}}`)
	f.Add(`{"config":{"Labels":null}}`)
	f.Add(`[]`)
	f.Fuzz(func(t *testing.T, blob string) {
		data, name, err := baseFromConfigBlob([]byte(blob), "img")
		if err != nil {
			return
		}
		if name == "" || strings.TrimSpace(name) != name {
			t.Fatalf("accepted default-config name %q", name)
		}
		if data == nil {
			t.Fatalf("accepted %q without data", blob)
		}
	})
}
