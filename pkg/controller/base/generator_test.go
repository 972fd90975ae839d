package base

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

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

func newTestGenerator(t *testing.T) *Generator {
	t.Helper()
	r, err := oci.NewResolver(oci.Options{Timeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return NewGenerator(r)
}

// TestOCIBaseFailureIsNotShared: a registry failure is not kept, so the
// next call, well within baseResolveTTL, reaches the registry and gets the
// success; the success is then shared without another request.
func TestOCIBaseFailureIsNotShared(t *testing.T) {
	f := newLabelRegistry(t)
	g := newTestGenerator(t)
	ctx := context.Background()

	f.set(true, nil)
	start := time.Now()
	if _, err := g.ociBase(ctx, f.image()); err == nil || !strings.Contains(err.Error(), "503") {
		t.Fatalf("ociBase with the registry failing: err = %v, want the 503", err)
	}
	var ue *oci.UnavailableError
	if _, err := g.ociBase(ctx, f.image()); !errors.As(err, &ue) {
		t.Fatalf("second failing call: err = %v, want an *oci.UnavailableError", err)
	}
	failed := f.count()

	f.set(false, nil)
	res, err := g.ociBase(ctx, f.image())
	if err != nil {
		t.Fatalf("ociBase after the registry recovered: %v", err)
	}
	if elapsed := time.Since(start); elapsed >= baseResolveTTL {
		t.Fatalf("the calls took %s, not within baseResolveTTL; the test proves nothing", elapsed)
	}
	if string(res.Config) != genBase || res.Digest != f.manifestDigest {
		t.Fatalf("result = %q @ %s, want %q @ %s", res.Config, res.Digest, genBase, f.manifestDigest)
	}
	if f.count() == failed {
		t.Fatal("the call after the failure sent no request")
	}

	ok := f.count()
	if res, err := g.ociBase(ctx, f.image()); err != nil || string(res.Config) != genBase {
		t.Fatalf("ociBase within the TTL of a success: %v, %v", res, err)
	}
	if n := f.count() - ok; n != 0 {
		t.Errorf("a shared success cost %d requests, want 0", n)
	}
}

// TestOCIBaseConcurrentCallersShareOneResolution: callers asking for the
// same image while a resolution is under way wait for it and share its
// result, a failure included, so one event does not cost a request sequence
// per controller; the next caller after it asks the registry again.
func TestOCIBaseConcurrentCallersShareOneResolution(t *testing.T) {
	f := newLabelRegistry(t)
	g := newTestGenerator(t)
	ctx := context.Background()
	// Learn that the loopback registry speaks plain HTTP, so that the
	// request count below is of registry requests only.
	f.set(true, nil)
	_, _ = g.ociBase(ctx, f.image())

	hold := make(chan struct{})
	f.set(true, hold)
	before := f.count()
	const callers = 4
	errs := make([]error, callers)
	var wg sync.WaitGroup
	for i := range callers {
		wg.Go(func() { _, errs[i] = g.ociBase(ctx, f.image()) })
	}
	// All but one caller must be waiting on the resolution under way.
	err := wait.PollUntilContextTimeout(ctx, 5*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		g.mu.Lock()
		defer g.mu.Unlock()
		call := g.inflight[f.image()]
		return call != nil && call.waiters == callers-1, nil
	})
	close(hold)
	if err != nil {
		wg.Wait()
		t.Fatal("the callers did not join one resolution")
	}
	wg.Wait()
	for i, err := range errs {
		if err == nil || !strings.Contains(err.Error(), "503") {
			t.Errorf("caller %d: err = %v, want the shared 503", i, err)
		}
	}
	if n := f.count() - before; n != 1 {
		t.Errorf("%d concurrent callers sent %d requests, want 1", callers, n)
	}

	f.set(false, nil)
	if _, err := g.ociBase(ctx, f.image()); err != nil {
		t.Fatalf("the next call after the shared failure: %v", err)
	}
}
