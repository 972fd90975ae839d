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

// labelRegistry is a minimal OCI registry on loopback serving one image,
// repo team/ogx tag 1.0, whose labels carry genBase. While failing is set it
// answers every request with 503; while hold is non-nil it waits for hold to
// close before answering. It counts the requests it answers.
type labelRegistry struct {
	srv *httptest.Server

	mu       sync.Mutex
	failing  bool
	hold     chan struct{}
	requests int

	manifest, blob             []byte
	manifestDigest, blobDigest string
}

const genBase = "version: 2\napis: [inference]\n"

func sha256Of(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

func newLabelRegistry(t *testing.T) *labelRegistry {
	t.Helper()
	f := &labelRegistry{}
	var err error
	f.blob, err = json.Marshal(map[string]any{"architecture": "amd64", "os": "linux", "config": map[string]any{"Labels": map[string]string{
		oci.LabelDefaultConfig:                "config.yaml",
		oci.LabelConfigPrefix + "config.yaml": base64.StdEncoding.EncodeToString([]byte(genBase)),
	}}})
	if err != nil {
		t.Fatal(err)
	}
	f.blobDigest = sha256Of(f.blob)
	f.manifest, err = json.Marshal(map[string]any{
		"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
		"config": map[string]any{"mediaType": "application/vnd.oci.image.config.v1+json", "digest": f.blobDigest, "size": len(f.blob)},
		"layers": []any{},
	})
	if err != nil {
		t.Fatal(err)
	}
	f.manifestDigest = sha256Of(f.manifest)
	f.srv = httptest.NewUnstartedServer(http.HandlerFunc(f.serve))
	f.srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the resolver's HTTPS attempt before plain HTTP
	f.srv.Start()
	t.Cleanup(f.srv.Close)
	return f
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
	f.mu.Unlock()
	if hold != nil {
		select {
		case <-hold:
		case <-r.Context().Done():
			return
		}
	}
	if failing {
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	var body []byte
	switch r.URL.Path {
	case "/v2/team/ogx/manifests/1.0", "/v2/team/ogx/manifests/" + f.manifestDigest:
		w.Header().Set("Content-Type", "application/vnd.oci.image.manifest.v1+json")
		w.Header().Set("Docker-Content-Digest", f.manifestDigest)
		body = f.manifest
	case "/v2/team/ogx/blobs/" + f.blobDigest:
		body = f.blob
	default:
		http.NotFound(w, r)
		return
	}
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}
