package oci

import (
	"context"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

func newResolver(t *testing.T, opts Options) *Resolver {
	t.Helper()
	r, err := NewResolver(opts)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// image tags the manifest digest d as repo:1.0 and returns the reference.
func (f *fakeRegistry) image(d string) string {
	f.tags["1.0"] = d
	return f.host() + "/team/ogx:1.0"
}

func mustResolve(t *testing.T, r *Resolver, image string) *Result {
	t.Helper()
	res, err := r.Resolve(context.Background(), image)
	if err != nil {
		t.Fatalf("Resolve(%s): %v", image, err)
	}
	return res
}

func wantErr(t *testing.T, err error, subs ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one containing %q", subs)
	}
	for _, s := range subs {
		if !strings.Contains(err.Error(), s) {
			t.Fatalf("error %q does not contain %q", err, s)
		}
	}
	var ue *UnavailableError
	if !errors.As(err, &ue) {
		t.Fatalf("error %T is not an *UnavailableError", err)
	}
	for _, s := range []string{"failed to resolve base config from OCI labels of ", "Set spec.baseConfig"} {
		if !strings.Contains(err.Error(), s) {
			t.Fatalf("error %q lacks %q (E7)", err, s)
		}
	}
}

func TestAnonymousBearerFlow(t *testing.T) {
	f := newFakeRegistry(t, false)
	f.auth = authBearer
	img := f.image(f.addImage(mtOCIManifest, goodLabels(sampleBase)))
	res := mustResolve(t, newResolver(t, Options{}), img)
	if string(res.Config) != sampleBase || res.FileName != "config.yaml" || res.Source != "oci-label" {
		t.Fatalf("unexpected result %+v", res)
	}
	if res.Digest != f.tags["1.0"] {
		t.Fatalf("digest %s, want %s", res.Digest, f.tags["1.0"])
	}
	if got := f.count("GET /token"); got != 1 {
		t.Fatalf("%d token requests, want 1", got)
	}
	if f.tokenAuths[0] != "" {
		t.Fatalf("token request carried credentials %q", f.tokenAuths[0])
	}
	// The first HEAD was refused and retried once with the bearer.
	if got := f.count("HEAD /v2/team/ogx/manifests/1.0"); got != 2 {
		t.Fatalf("%d HEADs, want 2 (challenge + retry)", got)
	}
}

func TestTokenReuse(t *testing.T) {
	f := newFakeRegistry(t, false)
	f.auth = authBearer
	f.expiresIn = 60
	img := f.image(f.addImage(mtOCIManifest, goodLabels(sampleBase)))
	now := time.Unix(1_700_000_000, 0)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	r := newResolver(t, Options{Now: clock})
	mustResolve(t, r, img)
	mustResolve(t, r, img)
	if got := f.count("GET /token"); got != 1 {
		t.Fatalf("%d token requests inside expires_in, want 1", got)
	}
	// 10 s before expiry the token is no longer used.
	mu.Lock()
	now = now.Add(51 * time.Second)
	mu.Unlock()
	mustResolve(t, r, img)
	if got := f.count("GET /token"); got != 2 {
		t.Fatalf("%d token requests after expiry, want 2", got)
	}
}

func TestBasicChallenge(t *testing.T) {
	f := newFakeRegistry(t, false)
	f.auth = authBasic
	img := f.image(f.addImage(mtOCIManifest, goodLabels(sampleBase)))
	_, err := newResolver(t, Options{}).Resolve(context.Background(), img)
	wantErr(t, err, "does not allow anonymous pull", "team/ogx")
}

func TestMissingChallenge(t *testing.T) {
	f := newFakeRegistry(t, false)
	f.forceStatus = http.StatusUnauthorized
	img := f.image(f.addImage(mtOCIManifest, goodLabels(sampleBase)))
	_, err := newResolver(t, Options{}).Resolve(context.Background(), img)
	wantErr(t, err, "does not allow anonymous pull")
}

func TestIndexPlatformSelection(t *testing.T) {
	for _, mt := range []string{mtOCIIndex, mtDockerList} {
		t.Run(mt, func(t *testing.T) {
			f := newFakeRegistry(t, false)
			arm := f.addImage(mtOCIManifest, goodLabels("version: arm\n"))
			amd := f.addImage(mtOCIManifest, goodLabels(sampleBase))
			att := f.addImage(mtOCIManifest, map[string]string{})
			img := f.image(f.addIndex(mt, [2]string{"unknown/unknown", att}, [2]string{"linux/arm64", arm}, [2]string{"linux/amd64", amd}))
			res := mustResolve(t, newResolver(t, Options{}), img)
			if string(res.Config) != sampleBase || len(res.Warnings) != 0 {
				t.Fatalf("picked %q with warnings %q", res.Config, res.Warnings)
			}
			if res.Digest != f.tags["1.0"] {
				t.Fatalf("digest %s is not the index digest", res.Digest)
			}
			if f.count("GET /v2/team/ogx/manifests/"+att) != 0 || f.count("GET /v2/team/ogx/manifests/"+arm) != 0 {
				t.Fatal("fetched a manifest that was not selected")
			}
		})
	}
}

func TestIndexFallbackAndNoPlatform(t *testing.T) {
	f := newFakeRegistry(t, false)
	arm := f.addImage(mtOCIManifest, goodLabels(sampleBase))
	att := f.addImage(mtOCIManifest, map[string]string{})
	img := f.image(f.addIndex(mtOCIIndex, [2]string{"unknown/unknown", att}, [2]string{"linux/arm64/v8", arm}))
	res := mustResolve(t, newResolver(t, Options{}), img)
	if len(res.Warnings) != 1 || res.Warnings[0] != "no linux/amd64 manifest in index; used linux/arm64" {
		t.Fatalf("warnings %q", res.Warnings)
	}
	// A cached result repeats the warning.
	if res := mustResolve(t, newResolver(t, Options{}), img); len(res.Warnings) != 1 {
		t.Fatalf("warnings %q", res.Warnings)
	}

	f.tags["win"] = f.addIndex(mtOCIIndex, [2]string{"unknown/unknown", att}, [2]string{"windows/amd64", arm})
	_, err := newResolver(t, Options{}).Resolve(context.Background(), f.host()+"/team/ogx:win")
	wantErr(t, err, "no manifest for platform linux/amd64")
}

func TestPlatformVariantOption(t *testing.T) {
	f := newFakeRegistry(t, false)
	v7 := f.addImage(mtOCIManifest, goodLabels("version: v7\n"))
	v8 := f.addImage(mtOCIManifest, goodLabels("version: v8\n"))
	img := f.image(f.addIndex(mtOCIIndex, [2]string{"linux/arm/v7", v7}, [2]string{"linux/arm/v8", v8}))
	res := mustResolve(t, newResolver(t, Options{Platform: "linux/arm/v8"}), img)
	if string(res.Config) != "version: v8\n" {
		t.Fatalf("picked %q", res.Config)
	}
	if _, err := NewResolver(Options{Platform: "linux"}); err == nil {
		t.Fatal("bad platform accepted")
	}
}

func TestNestedIndex(t *testing.T) {
	f := newFakeRegistry(t, false)
	inner := f.addIndex(mtOCIIndex, [2]string{"linux/amd64", f.addImage(mtOCIManifest, goodLabels(sampleBase))})
	img := f.image(f.addIndex(mtOCIIndex, [2]string{"linux/amd64", inner}))
	_, err := newResolver(t, Options{}).Resolve(context.Background(), img)
	wantErr(t, err, "nests another index")
}

func TestDigestCache(t *testing.T) {
	f := newFakeRegistry(t, false)
	d := f.addImage(mtDockerManifest, goodLabels(sampleBase))
	r := newResolver(t, Options{})
	pinned := f.host() + "/team/ogx@" + d
	mustResolve(t, r, pinned)
	before := f.total()
	res := mustResolve(t, r, pinned)
	if got := f.total() - before; got != 0 {
		t.Fatalf("cached digest reference made %d requests, want 0", got)
	}
	if string(res.Config) != sampleBase || res.Digest != d {
		t.Fatalf("cached result %+v", res)
	}

	tagged := f.image(d)
	before = f.total()
	mustResolve(t, r, tagged) // same digest: served from the cache after one HEAD
	if got := f.total() - before; got != 1 || f.count("HEAD /v2/team/ogx/manifests/1.0") != 1 {
		t.Fatalf("tag resolution made %d requests, want exactly one HEAD", got)
	}

	// A re-pushed tag is noticed on the next resolution.
	f.tags["1.0"] = f.addImage(mtDockerManifest, goodLabels("version: 3\n"))
	if res := mustResolve(t, r, tagged); string(res.Config) != "version: 3\n" {
		t.Fatalf("re-pushed tag served stale %q", res.Config)
	}
}

func TestMissingDigestHeader(t *testing.T) {
	f := newFakeRegistry(t, false)
	f.omitDigest = true
	d := f.addImage(mtOCIManifest, goodLabels(sampleBase))
	res := mustResolve(t, newResolver(t, Options{}), f.image(d))
	if res.Digest != d {
		t.Fatalf("digest %s, want the manifest's sha256 %s", res.Digest, d)
	}
	if f.count("GET /v2/team/ogx/manifests/1.0") != 1 || f.count("GET /v2/team/ogx/manifests/"+d) != 0 {
		t.Fatal("manifest not taken from the tag GET")
	}
}

func TestDigestMismatch(t *testing.T) {
	for _, c := range []struct {
		name string
		set  func(*fakeRegistry)
	}{
		{"manifest", func(f *fakeRegistry) { f.corruptManifest = true }},
		{"blob", func(f *fakeRegistry) { f.corruptBlob = true }},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFakeRegistry(t, false)
			c.set(f)
			img := f.image(f.addImage(mtOCIManifest, goodLabels(sampleBase)))
			_, err := newResolver(t, Options{}).Resolve(context.Background(), img)
			wantErr(t, err, "digest mismatch for sha256:")
		})
	}
}

func TestOversize(t *testing.T) {
	huge := strings.Repeat("a", 5<<20)
	for _, noLength := range []bool{false, true} {
		f := newFakeRegistry(t, false)
		f.noLength = noLength
		img := f.image(f.addImage(mtOCIManifest, map[string]string{"pad": huge}))
		_, err := newResolver(t, Options{}).Resolve(context.Background(), img)
		wantErr(t, err, "config blob exceeds 4 MiB")

		f.tags["big"] = f.addManifest(mtOCIManifest, map[string]any{"schemaVersion": 2, "pad": huge,
			"config": map[string]any{"digest": digest([]byte("x"))}})
		_, err = newResolver(t, Options{}).Resolve(context.Background(), f.host()+"/team/ogx:big")
		wantErr(t, err, "manifest exceeds 4 MiB")
	}
}

func TestSlowServer(t *testing.T) {
	f := newFakeRegistry(t, false)
	f.delay = 5 * time.Second
	img := f.image(f.addImage(mtOCIManifest, goodLabels(sampleBase)))
	const deadline = 300 * time.Millisecond
	start := time.Now()
	_, err := newResolver(t, Options{Timeout: deadline}).Resolve(context.Background(), img)
	wantErr(t, err, "timed out fetching http://"+f.host()+"/v2/team/ogx/manifests/1.0")
	if el := time.Since(start); el > deadline+time.Second {
		t.Fatalf("took %v, want at most the deadline plus 1 s", el)
	}
}

func TestStatusMapping(t *testing.T) {
	for _, c := range []struct {
		code int
		want string
	}{
		{http.StatusNotFound, "not found"},
		{http.StatusTooManyRequests, "rate-limited"},
		{http.StatusInternalServerError, "unexpected HTTP 500 from http://"},
	} {
		f := newFakeRegistry(t, false)
		f.forceStatus = c.code
		img := f.image(f.addImage(mtOCIManifest, goodLabels(sampleBase)))
		_, err := newResolver(t, Options{}).Resolve(context.Background(), img)
		wantErr(t, err, c.want)
	}
	f := newFakeRegistry(t, false)
	_, err := newResolver(t, Options{}).Resolve(context.Background(), f.host()+"/team/absent:1")
	wantErr(t, err, "image "+f.host()+"/team/absent:1 not found")
}

func TestLabels(t *testing.T) {
	for _, c := range []struct {
		name   string
		labels map[string]string
		want   []string
	}{
		{"no default-config", map[string]string{LabelConfigs: "config.yaml"}, []string{"has no label com.ogx.distribution.default-config"}},
		{"no config label", map[string]string{LabelDefaultConfig: "run.yaml", LabelConfigs: "config.yaml, starter.yaml"},
			[]string{"has no label com.ogx.config.run.yaml", "config.yaml, starter.yaml"}},
		{"bad base64", map[string]string{LabelDefaultConfig: "config.yaml", LabelConfigPrefix + "config.yaml": "not*base64"},
			[]string{"label com.ogx.config.config.yaml is not valid base64"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFakeRegistry(t, false)
			img := f.image(f.addImage(mtOCIManifest, c.labels))
			_, err := newResolver(t, Options{}).Resolve(context.Background(), img)
			wantErr(t, err, c.want...)
		})
	}
}

func TestBase64Lenient(t *testing.T) {
	enc := base64.StdEncoding.EncodeToString([]byte("version: 2\n"))
	wrapped := " " + enc[:6] + "\n\t" + strings.TrimRight(enc[6:], "=") + "\r\n"
	got, err := decodeBase64(wrapped)
	if err != nil || string(got) != "version: 2\n" {
		t.Fatalf("decodeBase64 = %q, %v", got, err)
	}
}

func TestBlobRedirectDropsAuthorization(t *testing.T) {
	var mu sync.Mutex
	var seenAuth []string
	f := newFakeRegistry(t, false)
	cdn := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seenAuth = append(seenAuth, r.Header.Get("Authorization"))
		mu.Unlock()
		b, ok := f.blobs[r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:]]
		if !ok {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write(b)
	}))
	t.Cleanup(cdn.Close)
	f.auth = authBearer
	// "localhost" is another host than 127.0.0.1 for the redirect rules.
	f.redirectBlobs = strings.Replace(cdn.URL, "127.0.0.1", "localhost", 1)
	img := f.image(f.addImage(mtOCIManifest, goodLabels(sampleBase)))
	res := mustResolve(t, newResolver(t, Options{}), img)
	if string(res.Config) != sampleBase {
		t.Fatalf("config %q", res.Config)
	}
	if len(seenAuth) != 1 || seenAuth[0] != "" {
		t.Fatalf("redirect target saw Authorization %q", seenAuth)
	}
}

func TestTLSRegistry(t *testing.T) {
	f := newFakeRegistry(t, true)
	f.auth = authBearer
	img := f.image(f.addImage(mtOCIManifest, goodLabels(sampleBase)))
	pool := x509.NewCertPool()
	pool.AddCert(f.srv.Certificate())
	res := mustResolve(t, newResolver(t, Options{RootCAs: pool}), img)
	if string(res.Config) != sampleBase {
		t.Fatalf("config %q", res.Config)
	}
	// Without the CA the certificate is not trusted; loopback falls back to
	// plain HTTP, which the TLS server refuses.
	_, err := newResolver(t, Options{}).Resolve(context.Background(), img)
	wantErr(t, err, "unexpected HTTP 400 from http://")
}

func TestManifestKinds(t *testing.T) {
	f := newFakeRegistry(t, false)
	d := f.addImage(mtOCIManifest, goodLabels(sampleBase))
	f.contentType = func(stored) string { return "application/json; charset=utf-8" }
	mustResolve(t, newResolver(t, Options{}), f.image(d))

	f.contentType = nil
	f.tags["v1"] = f.addManifest(mtDockerSchema1, map[string]any{"schemaVersion": 1, "name": "team/ogx"})
	_, err := newResolver(t, Options{}).Resolve(context.Background(), f.host()+"/team/ogx:v1")
	wantErr(t, err, "unsupported manifest media type "+mtDockerSchema1)

	f.contentType = func(stored) string { return "" }
	_, err = newResolver(t, Options{}).Resolve(context.Background(), f.host()+"/team/ogx:v1")
	wantErr(t, err, "unsupported manifest media type "+mtDockerSchema1)
}

func TestInvalidReference(t *testing.T) {
	_, err := newResolver(t, Options{}).Resolve(context.Background(), "UPPER/Case::bad")
	wantErr(t, err, `invalid image reference "UPPER/Case::bad"`)
}

// resolveWithRealm resolves an image of a registry that answers every
// request with a 401 whose Bearer challenge names realm.
func resolveWithRealm(t *testing.T, realm string) error {
	f := newFakeRegistry(t, false)
	img := f.image(f.addImage(mtOCIManifest, goodLabels(sampleBase)))
	f.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="`+realm+`",service="x"`)
		w.WriteHeader(http.StatusUnauthorized)
	})
	_, err := newResolver(t, Options{}).Resolve(context.Background(), img)
	return err
}

func TestInsecureRealmRefused(t *testing.T) {
	wantErr(t, resolveWithRealm(t, "http://auth.example.com/token"), "token realm http://auth.example.com/token is not HTTPS")
}

func TestNonLoopbackNeverPlain(t *testing.T) {
	r := newResolver(t, Options{InsecureHosts: []string{"registry.lab:5000", "mirror.lab"}})
	for host, want := range map[string]bool{
		"registry.lab:5000": true, "mirror.lab:443": true, "mirror.lab": true,
		"registry.lab": false, "quay.io": false, "localhost:5000": true, "[::1]:5000": true, "127.0.0.2": true,
	} {
		if got := r.plainAllowed(host); got != want {
			t.Errorf("plainAllowed(%s) = %t, want %t", host, got, want)
		}
	}
}

func TestConcurrentResolve(t *testing.T) {
	f := newFakeRegistry(t, false)
	f.auth = authBearer
	img := f.image(f.addImage(mtOCIManifest, goodLabels(sampleBase)))
	r := newResolver(t, Options{})
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for range 16 {
		wg.Go(func() {
			if res, err := r.Resolve(context.Background(), img); err != nil || string(res.Config) != sampleBase {
				errs <- fmt.Errorf("%v %v", res, err)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// TestDialGuard proves the guard of TestMain: a non-loopback registry is
// never dialled (an IP literal, so not even DNS is asked). It also shows the
// two texts of a request that got no answer: status names the URL only, the
// full text (the log, or render with DetailedErrors) has the network's
// reason.
func TestDialGuard(t *testing.T) {
	const img = "192.0.2.1/team/ogx:1.0"
	_, err := newResolver(t, Options{Timeout: 2 * time.Second}).Resolve(context.Background(), img)
	wantErr(t, err, "fetching https://192.0.2.1/v2/team/ogx/manifests/1.0 failed", "-v=2")
	if strings.Contains(err.Error(), "test dial guard") {
		t.Errorf("status text %q carries the network's reason", err)
	}
	var ue *UnavailableError
	if errors.As(err, &ue); !strings.Contains(ue.Full(), "test dial guard") {
		t.Errorf("full text %q lacks the network's reason", ue.Full())
	}
	_, err = newResolver(t, Options{Timeout: 2 * time.Second, DetailedErrors: true}).Resolve(context.Background(), img)
	wantErr(t, err, "test dial guard")
}

// TestAllowedRegistries: with an allow-list, a registry outside it is never
// contacted and the error names the flag; one inside it, by name or under a
// *.domain entry, is resolved.
func TestAllowedRegistries(t *testing.T) {
	f := newFakeRegistry(t, false)
	img := f.image(f.addImage(mtOCIManifest, goodLabels(sampleBase)))
	_, err := newResolver(t, Options{AllowedRegistries: []string{"quay.io", "*.example.com"}}).Resolve(context.Background(), img)
	wantErr(t, err, "registry "+f.host()+" is not among the registries the operator may contact (--allowed-registry)")
	if n := f.total(); n != 0 {
		t.Errorf("%d requests sent to a registry outside the allow-list", n)
	}
	if _, err := newResolver(t, Options{AllowedRegistries: []string{"quay.io", strings.ToUpper(f.host())}}).Resolve(context.Background(), img); err != nil {
		t.Errorf("allowed registry: %v", err)
	}
	r := newResolver(t, Options{AllowedRegistries: []string{"*.example.com"}})
	for registry, want := range map[string]bool{"a.example.com": true, "a.b.example.com": true, "a.example.com:5000": false, "example.com": false, "badexample.com": false} {
		if got := r.registryAllowed(registry); got != want {
			t.Errorf("registryAllowed(%s) = %v with *.example.com, want %v", registry, got, want)
		}
	}
	for _, bad := range []string{"", "quay.io/team", "a.*.com", "*"} {
		if _, err := NewResolver(Options{AllowedRegistries: []string{bad}}); err == nil {
			t.Errorf("allowed registry %q accepted", bad)
		}
	}
}

// TestRealmOnAnotherHostRefused: a registry cannot send the operator to an
// address of its choosing (a metadata endpoint here) for a token.
func TestRealmOnAnotherHostRefused(t *testing.T) {
	wantErr(t, resolveWithRealm(t, "https://169.254.169.254/token"),
		"sent a token realm on another host (169.254.169.254): add it with --registry-token-host")
}

func TestRealmAllowed(t *testing.T) {
	r := newResolver(t, Options{TokenHosts: []string{"tokens.example.net"}})
	for _, c := range []struct {
		registry, realm string
		want            bool
	}{
		{"registry-1.docker.io", "auth.docker.io", true},
		{"ghcr.io", "ghcr.io", true},
		{"quay.io:443", "quay.io", true},
		{"registry.example.com", "tokens.example.net", true},
		{"registry.example.com", "evil.example.org", false},
		{"registry.example.com", "169.254.169.254", false},
		{"registry.example.com", "localhost", false},
		{"127.0.0.1:5000", "127.0.0.1", true},
		{"127.0.0.1:5000", "10.0.0.1", false},
		{"registry.redhat.io", "sso.redhat.com", false}, // not in this resolver's TokenHosts
		{"team.github.io", "other.github.io", false},    // a public suffix is no shared domain
		{"registry.ns.svc.cluster.local", "kubernetes.default.svc.cluster.local", false},
		{"registry.ns.svc", "x.ns.svc", false},
		{"metadata.google.internal", "x.google.internal", false},
		{"[fd00::1]:5000", "fd00::1", true},
		{"[fd00::1]", "fd00::1", true},
		{"Quay.IO", "quay.io", true},
	} {
		if got := r.realmAllowed(c.registry, c.realm); got != c.want {
			t.Errorf("realmAllowed(%s, %s) = %v, want %v", c.registry, c.realm, got, c.want)
		}
	}
	if !newResolver(t, Options{}).realmAllowed("registry.redhat.io", "sso.redhat.com") {
		t.Errorf("the default token hosts do not allow sso.redhat.com")
	}
}

func TestTokenHostWithPortRefused(t *testing.T) {
	if _, err := NewResolver(Options{TokenHosts: []string{"auth.example.com:443"}}); err == nil {
		t.Fatal("a token host with a port was accepted")
	}
}

// TestTokenRedirectToAnotherHostRefused: a realm on the registry's host
// cannot pass the token request on to an address of its choosing.
func TestTokenRedirectToAnotherHostRefused(t *testing.T) {
	f := newFakeRegistry(t, false)
	img := f.image(f.addImage(mtOCIManifest, goodLabels(sampleBase)))
	f.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/token" {
			http.Redirect(w, r, "https://169.254.169.254/latest/meta-data", http.StatusFound)
			return
		}
		w.Header().Set("WWW-Authenticate", `Bearer realm="`+f.srv.URL+`/token",service="x"`)
		w.WriteHeader(http.StatusUnauthorized)
	})
	_, err := newResolver(t, Options{}).Resolve(context.Background(), img)
	wantErr(t, err, "refusing token redirect to another host (169.254.169.254)")
}

// TestRedirectToLoopbackRefused: only a loopback registry may redirect to
// loopback, where the operator's own listeners are.
func TestRedirectToLoopbackRefused(t *testing.T) {
	r := newResolver(t, Options{})
	req := func(u string) *http.Request {
		q, err := http.NewRequest(http.MethodGet, u, nil)
		if err != nil {
			t.Fatal(err)
		}
		return q
	}
	if err := r.checkRedirect(req("http://127.0.0.1:6060/debug/pprof/"), []*http.Request{req("https://registry.example.com/v2/a/blobs/x")}); err == nil {
		t.Error("a remote registry's redirect to loopback was followed")
	}
	if err := r.checkRedirect(req("http://127.0.0.1:5001/b"), []*http.Request{req("http://127.0.0.1:5000/v2/a/blobs/x")}); err != nil {
		t.Errorf("a loopback registry's redirect to loopback was refused: %v", err)
	}
}
