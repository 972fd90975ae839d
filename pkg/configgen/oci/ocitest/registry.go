// Package ocitest is an OCI distribution registry on loopback for tests and
// benchmarks of base-config resolution: it serves distribution images whose
// only content is a config blob carrying a base config in the labels
// ogx-controller reads (pkg/configgen/oci), with tags that can be moved, so
// a test can push a new digest under a tag a server already uses and count
// how often the tag was resolved.
//
// It is a support package, imported only by tests and test/bench; nothing
// in the controller binary links it.
package ocitest

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

	"github.com/ogx-k8s/ogx-controller/pkg/configgen/oci"
)

const (
	manifestType = "application/vnd.oci.image.manifest.v1+json"
	configType   = "application/vnd.oci.image.config.v1+json"
)

// StarterBase is a small base config of the starter shape (inference and
// files APIs, one remote vLLM provider) for the images tests and the bench
// push: what a distribution's labels would carry.
const StarterBase = `version: 2
image_name: starter
apis:
  - inference
  - files
providers:
  inference:
    - provider_id: base-vllm
      provider_type: remote::vllm
      config:
        base_url: http://base:8000
server:
  port: 8321
`

// Registry is the loopback registry. Its zero value is not usable; use
// New. All methods are safe for concurrent use with the requests it serves.
type Registry struct {
	srv *httptest.Server

	mu          sync.Mutex
	objects     map[string][]byte // manifests and config blobs, by digest
	tags        map[string]string // manifest digest by "repo:tag"
	tagRequests map[string]int    // requests naming a tag, by "repo:tag"
	requests    int
	failing     bool
	hold        chan struct{}
}

// New starts a registry on loopback. Stop it with Close.
func New() *Registry {
	r := &Registry{objects: map[string][]byte{}, tags: map[string]string{}, tagRequests: map[string]int{}}
	r.srv = httptest.NewUnstartedServer(http.HandlerFunc(r.serve))
	// The resolver tries HTTPS before plain HTTP on loopback; the failed
	// handshakes would only be noise in a test's log.
	r.srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	r.srv.Start()
	return r
}

// Close stops the registry, releasing any held requests first.
func (r *Registry) Close() {
	r.Hold(nil)
	r.srv.Close()
}

// Host is the registry's host:port, the first part of its image references.
func (r *Registry) Host() string { return strings.TrimPrefix(r.srv.URL, "http://") }

// Image is the reference of repo:tag on this registry.
func (r *Registry) Image(repo, tag string) string { return r.Host() + "/" + repo + ":" + tag }

// Push stores an image whose labels name config.yaml as the default config
// and carry base as its content, points repo:tag at it (moving the tag if
// it named another image) and returns the image's manifest digest.
func (r *Registry) Push(repo, tag, base string) (string, error) {
	return r.PushLabels(repo, tag, map[string]string{
		oci.LabelDefaultConfig:                "config.yaml",
		oci.LabelConfigPrefix + "config.yaml": base64.StdEncoding.EncodeToString([]byte(base)),
	})
}

// PushLabels is Push with the image's labels given as they are.
func (r *Registry) PushLabels(repo, tag string, labels map[string]string) (string, error) {
	blob, err := json.Marshal(map[string]any{"architecture": "amd64", "os": "linux", "config": map[string]any{"Labels": labels}})
	if err != nil {
		return "", fmt.Errorf("encoding the image config: %w", err)
	}
	manifest, err := json.Marshal(map[string]any{
		"schemaVersion": 2, "mediaType": manifestType,
		"config": map[string]any{"mediaType": configType, "digest": Digest(blob), "size": len(blob)},
		"layers": []any{},
	})
	if err != nil {
		return "", fmt.Errorf("encoding the manifest: %w", err)
	}
	d := Digest(manifest)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.objects[Digest(blob)], r.objects[d] = blob, manifest
	r.tags[repo+":"+tag] = d
	return d, nil
}

// TagRequests is how many requests named repo:tag (rather than a digest):
// the number of times a client resolved the tag.
func (r *Registry) TagRequests(repo, tag string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.tagRequests[repo+":"+tag]
}

// Requests is how many requests the registry answered or is answering.
func (r *Registry) Requests() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.requests
}

// Fail makes every later request fail with 503 while failing is set.
func (r *Registry) Fail(failing bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failing = failing
}

// Hold makes every later request wait until hold is closed (or its client
// gives up); nil answers at once again.
func (r *Registry) Hold(hold chan struct{}) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.hold = hold
}

// Digest is the OCI digest of b.
func Digest(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// serve answers GET and HEAD of /v2/<repo>/manifests/<tag or digest> and
// /v2/<repo>/blobs/<digest>; repositories are not separated for blobs and
// digests, which are content addresses.
func (r *Registry) serve(w http.ResponseWriter, req *http.Request) {
	body, digest, status := r.lookup(req.URL.Path)
	r.mu.Lock()
	hold := r.hold
	r.mu.Unlock()
	if hold != nil {
		select {
		case <-hold:
		case <-req.Context().Done():
			return
		}
	}
	if status != http.StatusOK {
		w.WriteHeader(status)
		return
	}
	if strings.Contains(req.URL.Path, "/manifests/") {
		w.Header().Set("Content-Type", manifestType)
		w.Header().Set("Docker-Content-Digest", digest)
	}
	w.Header().Set("Content-Length", fmt.Sprint(len(body)))
	if req.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

// lookup counts the request and finds what path names.
func (r *Registry) lookup(path string) (body []byte, digest string, status int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.requests++
	if r.failing {
		return nil, "", http.StatusServiceUnavailable
	}
	rest, ok := strings.CutPrefix(path, "/v2/")
	if !ok {
		return nil, "", http.StatusNotFound
	}
	repo, ref, ok := strings.Cut(rest, "/manifests/")
	if !ok {
		_, ref, ok = strings.Cut(rest, "/blobs/")
	}
	if !ok {
		return nil, "", http.StatusNotFound
	}
	if !strings.HasPrefix(ref, "sha256:") {
		key := repo + ":" + ref
		r.tagRequests[key]++
		ref = r.tags[key]
	}
	body, found := r.objects[ref]
	if !found {
		return nil, "", http.StatusNotFound
	}
	return body, ref, http.StatusOK
}
