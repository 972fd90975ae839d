package base

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/ogx-k8s/ogx-controller/pkg/configgen/oci"
)

// labelRegistry is a minimal OCI registry on loopback serving repo
// team/ogx, whose tag 1.0 first names an image whose labels carry genBase
// (manifestDigest) and moves with push. While failing is set it answers
// every request with 503; while hold is non-nil it waits for hold to close
// before answering. It counts the requests it answers, and the tag's HEADs.
type labelRegistry struct {
	srv *httptest.Server

	mu       sync.Mutex
	failing  bool
	hold     chan struct{}
	requests int
	heads    int
	objects  map[string][]byte // manifests and config blobs, by digest
	tag      string            // the digest tag 1.0 names

	manifestDigest string
}

const genBase = "version: 2\napis: [inference]\n"

func sha256Of(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

func newLabelRegistry(t *testing.T) *labelRegistry {
	t.Helper()
	f := &labelRegistry{objects: map[string][]byte{}}
	f.manifestDigest = f.push(t, genBase)
	f.srv = httptest.NewUnstartedServer(http.HandlerFunc(f.serve))
	f.srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the resolver's HTTPS attempt before plain HTTP
	f.srv.Start()
	t.Cleanup(f.srv.Close)
	return f
}

// push stores an image whose labels carry base, moves tag 1.0 to it and
// returns its manifest digest.
func (f *labelRegistry) push(t *testing.T, base string) string {
	t.Helper()
	blob, err := json.Marshal(map[string]any{"architecture": "amd64", "os": "linux", "config": map[string]any{"Labels": map[string]string{
		oci.LabelDefaultConfig:                "config.yaml",
		oci.LabelConfigPrefix + "config.yaml": base64.StdEncoding.EncodeToString([]byte(base)),
	}}})
	if err != nil {
		t.Fatal(err)
	}
	manifest, err := json.Marshal(map[string]any{
		"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
		"config": map[string]any{"mediaType": "application/vnd.oci.image.config.v1+json", "digest": sha256Of(blob), "size": len(blob)},
		"layers": []any{},
	})
	if err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.objects[sha256Of(blob)], f.objects[sha256Of(manifest)] = blob, manifest
	f.tag = sha256Of(manifest)
	return f.tag
}

// tagHeads is how many times the tag was resolved (HEAD of 1.0).
func (f *labelRegistry) tagHeads() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.heads
}

func (f *labelRegistry) image() string {
	return strings.TrimPrefix(f.srv.URL, "http://") + "/team/ogx:1.0"
}

func (f *labelRegistry) set(failing bool, hold chan struct{}) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failing, f.hold = failing, hold
}

func (f *labelRegistry) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.requests
}

func (f *labelRegistry) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.requests++
	failing, hold := f.failing, f.hold
	ref, isManifest := strings.CutPrefix(r.URL.Path, "/v2/team/ogx/manifests/")
	if ref == "1.0" {
		ref = f.tag
		f.heads++
	}
	if !isManifest {
		ref = strings.TrimPrefix(r.URL.Path, "/v2/team/ogx/blobs/")
	}
	body, found := f.objects[ref]
	f.mu.Unlock()
	if hold != nil {
		select {
		case <-hold:
		case <-r.Context().Done():
			return
		}
	}
	switch {
	case failing:
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	case !found:
		http.NotFound(w, r)
		return
	case isManifest:
		w.Header().Set("Content-Type", "application/vnd.oci.image.manifest.v1+json")
		w.Header().Set("Docker-Content-Digest", ref)
	}
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}
