package oci

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestParseReference(t *testing.T) {
	for in, want := range map[string]imageRef{
		"ubuntu":                           {registry: "docker.io", host: "registry-1.docker.io", repo: "library/ubuntu", tag: "latest"},
		"docker.io/ogxai/dist:0.3":         {registry: "docker.io", host: "registry-1.docker.io", repo: "ogxai/dist", tag: "0.3"},
		"index.docker.io/ogxai/dist":       {registry: "docker.io", host: "registry-1.docker.io", repo: "ogxai/dist", tag: "latest"},
		"quay.io/a/b/c:v1@sha256:" + hex64: {registry: "quay.io", host: "quay.io", repo: "a/b/c", tag: "v1", digest: "sha256:" + hex64},
		"localhost:5000/x":                 {registry: "localhost:5000", host: "localhost:5000", repo: "x", tag: "latest"},
	} {
		got, err := parseReference(in)
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		want.raw = in
		if *got != want {
			t.Errorf("parseReference(%s) = %+v, want %+v", in, *got, want)
		}
	}
}

const hex64 = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

func TestPinnedImage(t *testing.T) {
	d := "sha256:" + hex64
	if got := PinnedImage("quay.io/a/b:1", d); got != "quay.io/a/b:1@"+d {
		t.Error(got)
	}
	if got := PinnedImage("quay.io/a/b@"+d, "sha256:other"); got != "quay.io/a/b@"+d {
		t.Error(got)
	}
	if got := PinnedImage("quay.io/a/b:1", ""); got != "quay.io/a/b:1" {
		t.Error(got)
	}
}

func TestParseChallenges(t *testing.T) {
	chs := parseChallenges([]string{
		`Basic realm="x"`,
		`Bearer realm="https://auth.example.com/token",service="registry.example.com",scope="repository:a/b:pull,push"`,
		`Bearer realm=https://plain.example/t, error="insufficient \"scope\""`,
	})
	if len(chs) != 3 || chs[0].scheme != "basic" {
		t.Fatalf("%+v", chs)
	}
	b, ok := bearer(chs)
	if !ok || b.params["realm"] != "https://auth.example.com/token" || b.params["service"] != "registry.example.com" ||
		b.params["scope"] != "repository:a/b:pull,push" {
		t.Fatalf("%+v", b)
	}
	if chs[2].params["realm"] != "https://plain.example/t" || chs[2].params["error"] != `insufficient "scope"` {
		t.Fatalf("%+v", chs[2].params)
	}
	if _, ok := bearer(parseChallenges([]string{`Bearer service="x"`})); ok {
		t.Fatal("a Bearer challenge without realm was accepted")
	}
}

func TestLRU(t *testing.T) {
	c := newLRU(3, 1<<20)
	for i := range 4 {
		c.add(fmt.Sprint(i), entry{fileName: fmt.Sprint(i)})
		if i == 2 {
			c.get("0") // 0 becomes most recent; 1 is evicted next
		}
	}
	if _, ok := c.get("1"); ok {
		t.Fatal("least recently used entry kept")
	}
	for _, k := range []string{"0", "2", "3"} {
		if e, ok := c.get(k); !ok || e.fileName != k {
			t.Fatalf("entry %s lost", k)
		}
	}
	if c.len() != 3 {
		t.Fatal(c.len())
	}
}

// TestLRUBytes: the byte bound evicts the least recently used entries, a
// replaced entry's bytes are given back, and an entry over the bound alone
// is not kept.
func TestLRUBytes(t *testing.T) {
	c := newLRU(10, 100)
	big := func(n int) entry { return entry{config: make([]byte, n)} }
	c.add("a", big(40))
	c.add("b", big(40))
	c.add("a", big(30)) // replaced: 70 bytes in use
	c.add("c", big(30)) // 100: fits
	if c.len() != 3 || c.used != 100 {
		t.Fatalf("len %d, used %d; want 3, 100", c.len(), c.used)
	}
	c.add("d", big(20)) // b, the least recently used, goes
	if _, ok := c.get("b"); ok {
		t.Fatal("least recently used entry kept over the byte bound")
	}
	if c.used != 80 {
		t.Fatalf("used %d, want 80", c.used)
	}
	c.add("e", big(101))
	if _, ok := c.get("e"); ok || c.used != 80 {
		t.Fatalf("an entry over the whole bound was kept (used %d)", c.used)
	}
}

func TestSelectPlatform(t *testing.T) {
	p := func(s string) *platform { pl, _ := parsePlatform(s); return &pl }
	entries := []descriptor{
		{Digest: "att", Platform: &platform{OS: "unknown", Architecture: "unknown"}},
		{Digest: "none"},
		{Digest: "win", Platform: p("windows/amd64")},
		{Digest: "armv7", Platform: p("linux/arm/v7")},
		{Digest: "amd", Platform: p("linux/amd64")},
	}
	for want, cases := range map[string][]string{"amd": {"linux/amd64", "linux/amd64/v2"}, "win": {"windows/amd64"}, "armv7": {"linux/arm", "linux/arm/v7", "linux/s390x"}} {
		for _, c := range cases {
			d, _, err := selectPlatform(entries, *p(c), "img")
			if err != nil || d.Digest != want {
				t.Errorf("%s: got %s (%v), want %s", c, d.Digest, err, want)
			}
		}
	}
}

func TestManifestConfigDigestMustBeSHA256(t *testing.T) {
	for _, d := range []string{"../../other/blobs/x", "sha256:abc?x=1", "sha512:" + strings.Repeat("a", 128)} {
		if _, err := parseManifest(mtOCIManifest, []byte(`{"config":{"digest":"`+d+`"}}`)); err == nil {
			t.Errorf("config digest %q accepted", d)
		}
	}
}

// TestBaseFromConfigBlobBound: a base config over MaxBaseConfig is refused
// with an error naming the label and the bound; one at the bound is read.
func TestBaseFromConfigBlobBound(t *testing.T) {
	blob := func(n int) []byte {
		enc := base64.StdEncoding.EncodeToString(make([]byte, n))
		b, err := json.Marshal(map[string]any{"config": map[string]any{"Labels": map[string]string{
			LabelDefaultConfig: "starter", LabelConfigPrefix + "starter": enc}}})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if data, _, err := baseFromConfigBlob(blob(MaxBaseConfig), "img"); err != nil || len(data) != MaxBaseConfig {
		t.Fatalf("a base at the bound: %d bytes, %v", len(data), err)
	}
	_, _, err := baseFromConfigBlob(blob(MaxBaseConfig+1), "img")
	if err == nil || !strings.Contains(err.Error(), LabelConfigPrefix+"starter") || !strings.Contains(err.Error(), fmt.Sprint(MaxBaseConfig)) {
		t.Fatalf("a base over the bound: %v", err)
	}
}
