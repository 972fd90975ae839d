package oci

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Auth modes of the fake registry.
const (
	authNone   = ""
	authBearer = "bearer"
	authBasic  = "basic"
)

// fakeRegistry is an OCI Distribution v2 registry on loopback with a switch
// for each scenario the resolver tests cover (auth modes, indexes, digest
// mismatches, sizes, slowness, status codes, labels, redirects). It counts
// requests per "METHOD path".
type fakeRegistry struct {
	t   *testing.T
	srv *httptest.Server

	mu          sync.Mutex
	counts      map[string]int
	tokenAuths  []string // Authorization headers seen by /token
	manifests   map[string]stored
	tags        map[string]string
	blobs       map[string][]byte
	tokensGiven int

	// Scenario switches; set before requests are made.
	auth            string
	expiresIn       int
	omitDigest      bool          // no Docker-Content-Digest on manifests
	corruptManifest bool          // serve a body that does not match its digest
	corruptBlob     bool          // likewise for blobs
	noLength        bool          // stream bodies without Content-Length
	delay           time.Duration // before every /v2 answer
	forceStatus     int           // answer every /v2 request with this code
	redirectBlobs   string        // base URL blobs are redirected to
	contentType     func(stored) string
}

type stored struct {
	mediaType string
	body      []byte
}

func newFakeRegistry(t *testing.T, tlsServer bool) *fakeRegistry {
	f := &fakeRegistry{t: t, counts: map[string]int{}, manifests: map[string]stored{},
		tags: map[string]string{}, blobs: map[string][]byte{}, expiresIn: 300}
	h := http.HandlerFunc(f.serve)
	f.srv = httptest.NewUnstartedServer(h)
	f.srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	if tlsServer {
		f.srv.StartTLS()
	} else {
		f.srv.Start()
	}
	t.Cleanup(f.srv.Close)
	return f
}

// host is the registry's host:port.
func (f *fakeRegistry) host() string {
	return strings.TrimPrefix(strings.TrimPrefix(f.srv.URL, "http://"), "https://")
}

func (f *fakeRegistry) count(key string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.counts[key]
}

func (f *fakeRegistry) total() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, c := range f.counts {
		n += c
	}
	return n
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// addBlob stores a blob and returns its digest.
func (f *fakeRegistry) addBlob(b []byte) string {
	d := digest(b)
	f.blobs[d] = b
	return d
}

// addManifest stores a manifest and returns its digest.
func (f *fakeRegistry) addManifest(mediaType string, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		f.t.Fatal(err)
	}
	d := digest(b)
	f.manifests[d] = stored{mediaType: mediaType, body: b}
	return d
}

// addImage stores a config blob with labels and its image manifest and
// returns the manifest digest.
func (f *fakeRegistry) addImage(mediaType string, labels map[string]string) string {
	cfg, _ := json.Marshal(map[string]any{"architecture": "amd64", "os": "linux", "config": map[string]any{"Labels": labels}})
	return f.addManifest(mediaType, map[string]any{
		"schemaVersion": 2, "mediaType": mediaType,
		"config": map[string]any{"mediaType": "application/vnd.oci.image.config.v1+json", "digest": f.addBlob(cfg), "size": len(cfg)},
		"layers": []any{},
	})
}

// addIndex stores an index over (platform, digest) pairs.
func (f *fakeRegistry) addIndex(mediaType string, entries ...[2]string) string {
	var ms []any
	for _, e := range entries {
		os, arch, _ := strings.Cut(e[0], "/")
		arch, variant, _ := strings.Cut(arch, "/")
		p := map[string]any{"os": os, "architecture": arch}
		if variant != "" {
			p["variant"] = variant
		}
		ms = append(ms, map[string]any{"mediaType": mtOCIManifest, "digest": e[1], "size": 1, "platform": p})
	}
	return f.addManifest(mediaType, map[string]any{"schemaVersion": 2, "mediaType": mediaType, "manifests": ms})
}

// goodLabels are the labels of a distribution image carrying base.
func goodLabels(base string) map[string]string {
	return map[string]string{
		LabelDefaultConfig:                "config.yaml",
		LabelConfigPrefix + "config.yaml": base64.StdEncoding.EncodeToString([]byte(base)),
		LabelConfigs:                      "config.yaml run-with-safety.yaml",
	}
}

const sampleBase = "version: 2\napis: [inference]\n"

func (f *fakeRegistry) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.counts[r.Method+" "+r.URL.Path]++
	f.mu.Unlock()
	if r.URL.Path == "/token" {
		f.serveToken(w, r)
		return
	}
	if f.delay > 0 {
		select {
		case <-time.After(f.delay):
		case <-r.Context().Done():
			return
		}
	}
	if !f.authorized(w, r) {
		return
	}
	if f.forceStatus != 0 {
		w.WriteHeader(f.forceStatus)
		return
	}
	rest, ok := strings.CutPrefix(r.URL.Path, "/v2/")
	if !ok {
		http.NotFound(w, r)
		return
	}
	if i := strings.LastIndex(rest, "/manifests/"); i >= 0 {
		f.serveManifest(w, r, rest[i+len("/manifests/"):])
		return
	}
	if i := strings.LastIndex(rest, "/blobs/"); i >= 0 {
		f.serveBlob(w, r, rest[i+len("/blobs/"):])
		return
	}
	http.NotFound(w, r)
}

func (f *fakeRegistry) serveToken(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.tokenAuths = append(f.tokenAuths, r.Header.Get("Authorization"))
	f.tokensGiven++
	n := f.tokensGiven
	f.mu.Unlock()
	if r.URL.Query().Get("scope") == "" || r.URL.Query().Get("service") != "fake-registry" {
		http.Error(w, "bad token request", http.StatusBadRequest)
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"access_token": fmt.Sprintf("tok-%d", n), "expires_in": f.expiresIn})
}

// authorized enforces the auth mode and answers the challenge when needed.
func (f *fakeRegistry) authorized(w http.ResponseWriter, r *http.Request) bool {
	switch f.auth {
	case authBearer:
		if strings.HasPrefix(r.Header.Get("Authorization"), "Bearer tok-") {
			return true
		}
		w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer realm="%s/token",service="fake-registry"`, f.srv.URL))
	case authBasic:
		w.Header().Set("WWW-Authenticate", `Basic realm="fake"`)
	default:
		return true
	}
	w.WriteHeader(http.StatusUnauthorized)
	return false
}

func (f *fakeRegistry) serveManifest(w http.ResponseWriter, r *http.Request, ref string) {
	d := ref
	if t, ok := f.tags[ref]; ok {
		d = t
	}
	m, ok := f.manifests[d]
	if !ok {
		http.NotFound(w, r)
		return
	}
	ct := m.mediaType
	if f.contentType != nil {
		ct = f.contentType(m)
	}
	if ct != "" {
		w.Header().Set("Content-Type", ct)
	}
	if !f.omitDigest {
		w.Header().Set("Docker-Content-Digest", d)
	}
	body := m.body
	if f.corruptManifest {
		body = append([]byte(" "), body...)
	}
	f.write(w, r, body)
}

func (f *fakeRegistry) serveBlob(w http.ResponseWriter, r *http.Request, d string) {
	if f.redirectBlobs != "" {
		http.Redirect(w, r, f.redirectBlobs+r.URL.Path, http.StatusTemporaryRedirect)
		return
	}
	b, ok := f.blobs[d]
	if !ok {
		http.NotFound(w, r)
		return
	}
	if f.corruptBlob {
		b = append([]byte(" "), b...)
	}
	f.write(w, r, b)
}

// write sends a body with or without Content-Length.
func (f *fakeRegistry) write(w http.ResponseWriter, r *http.Request, body []byte) {
	if !f.noLength {
		w.Header().Set("Content-Length", fmt.Sprint(len(body)))
	}
	if r.Method == http.MethodHead {
		return
	}
	if f.noLength {
		fl, _ := w.(http.Flusher)
		for len(body) > 0 {
			n := min(len(body), 1<<16)
			_, _ = w.Write(body[:n])
			body = body[n:]
			if fl != nil {
				fl.Flush()
			}
		}
		return
	}
	_, _ = w.Write(body)
}
