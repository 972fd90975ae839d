package metrics

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/klog/v2"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/ogx-k8s/ogx-controller/pkg/tlsserve"
)

// fakeAPI answers TokenReviews and SubjectAccessReviews from tables and
// records the reviews it received.
type fakeAPI struct {
	kube *fake.Clientset

	mu      sync.Mutex
	users   map[string]authenticationv1.UserInfo // token → user
	allowed map[string]bool                      // user name → may get /metrics
	fail    error                                // returned by every review when set
	gate    chan struct{}                        // when set, TokenReviews wait for it to close
	trs     []authenticationv1.TokenReview
	sars    []authorizationv1.SubjectAccessReview
}

func newFakeAPI() *fakeAPI {
	f := &fakeAPI{
		kube: fake.NewClientset(),
		users: map[string]authenticationv1.UserInfo{
			"reader-token": {Username: "system:serviceaccount:ns:reader", UID: "uid-reader",
				Groups: []string{"system:serviceaccounts", "system:authenticated"},
				Extra:  map[string]authenticationv1.ExtraValue{"authentication.kubernetes.io/pod-name": {"p"}}},
			"stranger-token": {Username: "system:serviceaccount:ns:stranger", UID: "uid-stranger",
				Groups: []string{"system:authenticated"}},
		},
		allowed: map[string]bool{"system:serviceaccount:ns:reader": true},
	}
	f.kube.PrependReactor("create", "tokenreviews", func(a k8stesting.Action) (bool, runtime.Object, error) {
		tr := a.(k8stesting.CreateAction).GetObject().(*authenticationv1.TokenReview).DeepCopy()
		f.mu.Lock()
		if gate := f.gate; gate != nil {
			f.mu.Unlock()
			<-gate
			f.mu.Lock()
		}
		defer f.mu.Unlock()
		f.trs = append(f.trs, *tr)
		if f.fail != nil {
			return true, nil, f.fail
		}
		if u, ok := f.users[tr.Spec.Token]; ok {
			tr.Status = authenticationv1.TokenReviewStatus{Authenticated: true, User: u}
		} else {
			tr.Status = authenticationv1.TokenReviewStatus{Error: "invalid bearer token"}
		}
		return true, tr, nil
	})
	f.kube.PrependReactor("create", "subjectaccessreviews", func(a k8stesting.Action) (bool, runtime.Object, error) {
		sar := a.(k8stesting.CreateAction).GetObject().(*authorizationv1.SubjectAccessReview).DeepCopy()
		f.mu.Lock()
		defer f.mu.Unlock()
		f.sars = append(f.sars, *sar)
		if f.fail != nil {
			return true, nil, f.fail
		}
		attrs := sar.Spec.NonResourceAttributes
		if f.allowed[sar.Spec.User] && attrs != nil && attrs.Path == "/metrics" && attrs.Verb == "get" {
			sar.Status = authorizationv1.SubjectAccessReviewStatus{Allowed: true, Reason: "bound"}
		} else {
			sar.Status = authorizationv1.SubjectAccessReviewStatus{Reason: "no binding"}
		}
		return true, sar, nil
	})
	return f
}

func (f *fakeAPI) counts() (trs, sars int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.trs), len(f.sars)
}

func (f *fakeAPI) set(fn func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn()
}

// testServer is a secure Server (not started) on a fake API and clock.
func testServer(t *testing.T) (*Server, *fakeAPI, *testingclock.FakePassiveClock) {
	t.Helper()
	api := newFakeAPI()
	clk := testingclock.NewFakePassiveClock(time.Now())
	s, err := NewServer(Options{Addr: "127.0.0.1:0", Secure: true, Kube: api.kube, Metrics: New("test"), Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	return s, api, clk
}

// do sends one request through the handler.
func do(s *Server, method, path, authorization string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, path, nil)
	if authorization != "" {
		r.Header.Set("Authorization", authorization)
	}
	w := httptest.NewRecorder()
	s.Handler().ServeHTTP(w, r)
	return w
}

func wantCode(t *testing.T, w *httptest.ResponseRecorder, code int) {
	t.Helper()
	if w.Code != code {
		t.Fatalf("status %d, want %d; body: %s", w.Code, code, w.Body.String())
	}
}

func wantCounts(t *testing.T, api *fakeAPI, trs, sars int) {
	t.Helper()
	if gotTR, gotSAR := api.counts(); gotTR != trs || gotSAR != sars {
		t.Fatalf("%d TokenReviews and %d SubjectAccessReviews, want %d and %d", gotTR, gotSAR, trs, sars)
	}
}

func TestUnauthorizedWithoutToken(t *testing.T) {
	s, api, _ := testServer(t)
	for _, h := range []string{"", "Bearer", "Bearer ", "Basic dXNlcjpwYXNz", "Bearer a b", "reader-token"} {
		w := do(s, http.MethodGet, "/metrics", h)
		wantCode(t, w, http.StatusUnauthorized)
		if !strings.HasPrefix(w.Header().Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("header %q: WWW-Authenticate %q", h, w.Header().Get("WWW-Authenticate"))
		}
	}
	wantCounts(t, api, 0, 0)
}

func TestUnauthorizedWithInvalidToken(t *testing.T) {
	s, api, _ := testServer(t)
	wantCode(t, do(s, http.MethodGet, "/metrics", "Bearer bogus"), http.StatusUnauthorized)
	wantCounts(t, api, 1, 0)
	if got := api.trs[0].Spec.Token; got != "bogus" {
		t.Errorf("TokenReview token %q", got)
	}
	// The negative answer is cached too.
	wantCode(t, do(s, http.MethodGet, "/metrics", "Bearer bogus"), http.StatusUnauthorized)
	wantCounts(t, api, 1, 0)
}

func TestForbiddenWhenDenied(t *testing.T) {
	s, api, _ := testServer(t)
	w := do(s, http.MethodGet, "/metrics", "Bearer stranger-token")
	wantCode(t, w, http.StatusForbidden)
	if strings.Contains(w.Body.String(), "ogx_controller") {
		t.Errorf("a forbidden answer carries metrics")
	}
	wantCounts(t, api, 1, 1)
}

func TestAllowed(t *testing.T) {
	s, api, _ := testServer(t)
	w := do(s, http.MethodGet, "/metrics", "bearer reader-token") // the scheme is case-insensitive
	wantCode(t, w, http.StatusOK)
	if ct := w.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Errorf("Content-Type %q", ct)
	}
	if !strings.Contains(w.Body.String(), `ogx_controller_build_info{version="test"} 1`) {
		t.Errorf("body lacks build info:\n%s", w.Body.String())
	}
	wantCounts(t, api, 1, 1)

	spec := api.sars[0].Spec
	if spec.User != "system:serviceaccount:ns:reader" || spec.UID != "uid-reader" ||
		len(spec.Groups) != 2 || spec.Extra["authentication.kubernetes.io/pod-name"][0] != "p" {
		t.Errorf("SubjectAccessReview spec does not carry the user: %+v", spec)
	}
	if spec.ResourceAttributes != nil || spec.NonResourceAttributes == nil ||
		*spec.NonResourceAttributes != (authorizationv1.NonResourceAttributes{Path: "/metrics", Verb: "get"}) {
		t.Errorf("SubjectAccessReview attributes: %+v / %+v", spec.ResourceAttributes, spec.NonResourceAttributes)
	}

	// HEAD is a read as well.
	wantCode(t, do(s, http.MethodHead, "/metrics", "Bearer reader-token"), http.StatusOK)
}

func TestCachesDecisions(t *testing.T) {
	s, api, clk := testServer(t)
	start := clk.Now()
	wantCode(t, do(s, http.MethodGet, "/metrics", "Bearer reader-token"), http.StatusOK)
	wantCode(t, do(s, http.MethodGet, "/metrics", "Bearer reader-token"), http.StatusOK)
	wantCounts(t, api, 1, 1)

	// Authentication expires after 2 min; the allow decision is kept.
	clk.SetTime(start.Add(AuthnCacheTTL - time.Second))
	wantCode(t, do(s, http.MethodGet, "/metrics", "Bearer reader-token"), http.StatusOK)
	wantCounts(t, api, 1, 1)
	clk.SetTime(start.Add(AuthnCacheTTL + time.Second))
	wantCode(t, do(s, http.MethodGet, "/metrics", "Bearer reader-token"), http.StatusOK)
	wantCounts(t, api, 2, 1)

	// An allow lasts 5 min, even after the binding is gone.
	api.set(func() { api.allowed = map[string]bool{} })
	clk.SetTime(start.Add(AllowCacheTTL - time.Second))
	wantCode(t, do(s, http.MethodGet, "/metrics", "Bearer reader-token"), http.StatusOK)
	wantCounts(t, api, 3, 1)
	clk.SetTime(start.Add(AllowCacheTTL + time.Second))
	wantCode(t, do(s, http.MethodGet, "/metrics", "Bearer reader-token"), http.StatusForbidden)
	wantCounts(t, api, 3, 2)
}

func TestDenyExpiresAfter30s(t *testing.T) {
	s, api, clk := testServer(t)
	start := clk.Now()
	wantCode(t, do(s, http.MethodGet, "/metrics", "Bearer stranger-token"), http.StatusForbidden)
	wantCounts(t, api, 1, 1)

	// The stranger is granted access; the cached denial still holds...
	api.set(func() { api.allowed["system:serviceaccount:ns:stranger"] = true })
	clk.SetTime(start.Add(DenyCacheTTL - time.Second))
	wantCode(t, do(s, http.MethodGet, "/metrics", "Bearer stranger-token"), http.StatusForbidden)
	wantCounts(t, api, 1, 1)

	// ...until it expires after 30 s.
	clk.SetTime(start.Add(DenyCacheTTL + time.Second))
	wantCode(t, do(s, http.MethodGet, "/metrics", "Bearer stranger-token"), http.StatusOK)
	wantCounts(t, api, 1, 2)
}

func TestAuthzCacheKeyCoversGroups(t *testing.T) {
	s, api, _ := testServer(t)
	api.set(func() {
		u := api.users["reader-token"]
		u.Groups = []string{"system:authenticated"}
		api.users["reader-token-2"] = u
	})
	wantCode(t, do(s, http.MethodGet, "/metrics", "Bearer reader-token"), http.StatusOK)
	wantCode(t, do(s, http.MethodGet, "/metrics", "Bearer reader-token-2"), http.StatusOK)
	wantCounts(t, api, 2, 2)

	// Same user and groups in another order: one decision.
	api.set(func() {
		u := api.users["reader-token"]
		u.Groups = []string{u.Groups[1], u.Groups[0]}
		api.users["reader-token-3"] = u
	})
	wantCode(t, do(s, http.MethodGet, "/metrics", "Bearer reader-token-3"), http.StatusOK)
	wantCounts(t, api, 3, 2)
}

func TestAPIErrorsAreNotCached(t *testing.T) {
	s, api, _ := testServer(t)
	api.set(func() { api.fail = errors.New("connection refused") })
	wantCode(t, do(s, http.MethodGet, "/metrics", "Bearer reader-token"), http.StatusInternalServerError)
	wantCode(t, do(s, http.MethodGet, "/metrics", "Bearer reader-token"), http.StatusInternalServerError)
	wantCounts(t, api, 2, 0)

	api.set(func() { api.fail = nil })
	wantCode(t, do(s, http.MethodGet, "/metrics", "Bearer reader-token"), http.StatusOK)
	wantCounts(t, api, 3, 1)

	// An authorisation error after a cached authentication.
	api.set(func() { api.fail = errors.New("timeout") })
	wantCode(t, do(s, http.MethodGet, "/metrics", "Bearer stranger-token"), http.StatusInternalServerError)
	wantCounts(t, api, 4, 1)
}

// TestReviewsInFlightAreCapped: while as many reviews as allowed wait on
// the API, a request needing one more gets a fast 503, a cached decision is
// still served, and a freed slot is used again.
func TestReviewsInFlightAreCapped(t *testing.T) {
	api := newFakeAPI()
	r := newReviewer(api.kube, testingclock.NewFakePassiveClock(time.Now()), 0, 2)
	h := r.protect(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }))
	send := func(token string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		return w
	}
	wantCode(t, send("reader-token"), http.StatusOK)

	gate := make(chan struct{})
	api.set(func() { api.gate = gate })
	var once sync.Once
	open := func() { once.Do(func() { close(gate) }) }
	t.Cleanup(open)
	var wg sync.WaitGroup
	for _, tok := range []string{"random-1", "random-2"} {
		wg.Add(1)
		go func() { defer wg.Done(); send(tok) }()
	}
	if err := wait.PollUntilContextTimeout(context.Background(), time.Millisecond, 10*time.Second, true,
		func(context.Context) (bool, error) { return len(r.inflight) == 2, nil }); err != nil {
		t.Fatal("the two reviews never went in flight")
	}
	answered := make(chan *httptest.ResponseRecorder, 1)
	go func() { answered <- send("random-3") }()
	var w *httptest.ResponseRecorder
	select {
	case w = <-answered:
	case <-time.After(10 * time.Second):
		t.Fatal("a request beyond the cap waited for a review instead of a 503")
	}
	wantCode(t, w, http.StatusServiceUnavailable)
	if w.Header().Get("Retry-After") == "" {
		t.Error("a 503 without Retry-After")
	}
	wantCode(t, send("reader-token"), http.StatusOK)

	open()
	wg.Wait()
	wantCode(t, send("random-3"), http.StatusUnauthorized)
	wantCounts(t, api, 4, 1)
}

func TestRouting(t *testing.T) {
	s, api, _ := testServer(t)
	for _, p := range []string{"/", "/metrics/", "/healthz", "/debug/pprof/"} {
		wantCode(t, do(s, http.MethodGet, p, "Bearer reader-token"), http.StatusNotFound)
	}
	w := do(s, http.MethodPost, "/metrics", "Bearer reader-token")
	wantCode(t, w, http.StatusMethodNotAllowed)
	if w.Header().Get("Allow") != "GET, HEAD" {
		t.Errorf("Allow %q", w.Header().Get("Allow"))
	}
	wantCounts(t, api, 0, 0)
}

func TestCacheIsBounded(t *testing.T) {
	api := newFakeAPI()
	s, err := NewServer(Options{Secure: true, Kube: api.kube, Metrics: New("t"), CacheSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, tok := range []string{"a", "b", "c", "a"} {
		wantCode(t, do(s, http.MethodGet, "/metrics", "Bearer "+tok), http.StatusUnauthorized)
	}
	// "a" was evicted by "c".
	wantCounts(t, api, 4, 0)
}

func TestNewServerValidation(t *testing.T) {
	kube := fake.NewClientset()
	m := New("t")
	cases := map[string]Options{
		"no metrics":       {Secure: true, Kube: kube},
		"disabled address": {Addr: "0", Secure: true, Kube: kube, Metrics: m},
		"TLS 1.1":          {Secure: true, Kube: kube, Metrics: m, MinTLSVersion: tls.VersionTLS11},
		"secure, no kube":  {Secure: true, Metrics: m},
	}
	for name, opts := range cases {
		if _, err := NewServer(opts); err == nil {
			t.Errorf("%s: NewServer accepted %+v", name, opts)
		}
	}
	s, err := NewServer(Options{Metrics: m})
	if err != nil {
		t.Fatalf("insecure server without kube: %v", err)
	}
	if s.opts.Addr != DefaultAddr {
		t.Errorf("default address %q", s.opts.Addr)
	}
}

// start starts s and stops it at the end of the test.
func start(t *testing.T, s *Server) string {
	t.Helper()
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Shutdown(context.Background()); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
	})
	return s.Addr().String()
}

// client trusts any certificate (as scrapers of a self-signed endpoint do)
// and offers HTTP/2.
func client(tlsCfg *tls.Config) *http.Client {
	if tlsCfg == nil {
		tlsCfg = &tls.Config{}
	}
	tlsCfg.InsecureSkipVerify = true
	return &http.Client{Timeout: 10 * time.Second,
		Transport: &http.Transport{TLSClientConfig: tlsCfg, ForceAttemptHTTP2: true}}
}

func get(t *testing.T, c *http.Client, url, token string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, string(body)
}

func TestServeSelfSigned(t *testing.T) {
	api := newFakeAPI()
	s, err := NewServer(Options{Addr: "127.0.0.1:0", Secure: true, Kube: api.kube, Metrics: New("tls")})
	if err != nil {
		t.Fatal(err)
	}
	if s.Addr() != nil {
		t.Errorf("Addr before Start = %v", s.Addr())
	}
	addr := start(t, s)
	c := client(nil)

	resp, _ := get(t, c, "https://"+addr+"/metrics", "")
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("without token: %d", resp.StatusCode)
	}
	resp, body := get(t, c, "https://"+addr+"/metrics", "reader-token")
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "ogx_controller_build_info") {
		t.Fatalf("reader: %d\n%s", resp.StatusCode, body)
	}
	if resp.ProtoMajor != 1 {
		t.Errorf("HTTP/%d.%d served with HTTP/2 disabled", resp.ProtoMajor, resp.ProtoMinor)
	}
	leaf := resp.TLS.PeerCertificates[0]
	if leaf.PublicKeyAlgorithm != x509.ECDSA || leaf.Subject.CommonName != "ogx-controller-metrics" {
		t.Errorf("served certificate: %v %v", leaf.PublicKeyAlgorithm, leaf.Subject)
	}
	if err := leaf.VerifyHostname("127.0.0.1"); err != nil {
		t.Errorf("self-signed certificate: %v", err)
	}
	if resp.TLS.Version < tls.VersionTLS12 {
		t.Errorf("TLS version %x", resp.TLS.Version)
	}

	if err := s.Start(context.Background()); err == nil {
		t.Errorf("second Start succeeded")
	}
}

func TestServeHTTP2WhenEnabled(t *testing.T) {
	api := newFakeAPI()
	s, err := NewServer(Options{Addr: "127.0.0.1:0", Secure: true, EnableHTTP2: true, Kube: api.kube, Metrics: New("h2")})
	if err != nil {
		t.Fatal(err)
	}
	addr := start(t, s)
	resp, _ := get(t, client(nil), "https://"+addr+"/metrics", "reader-token")
	if resp.StatusCode != http.StatusOK || resp.ProtoMajor != 2 {
		t.Errorf("status %d over HTTP/%d, want 200 over HTTP/2", resp.StatusCode, resp.ProtoMajor)
	}
}

func TestMinTLSVersion(t *testing.T) {
	api := newFakeAPI()
	s, err := NewServer(Options{Addr: "127.0.0.1:0", Secure: true, MinTLSVersion: tls.VersionTLS13,
		Kube: api.kube, Metrics: New("t")})
	if err != nil {
		t.Fatal(err)
	}
	addr := start(t, s)
	c := client(&tls.Config{MaxVersion: tls.VersionTLS12})
	if resp, err := c.Get("https://" + addr + "/metrics"); err == nil {
		resp.Body.Close()
		t.Fatalf("a TLS 1.2 client was served")
	}
	resp, _ := get(t, client(nil), "https://"+addr+"/metrics", "reader-token")
	if resp.TLS.Version != tls.VersionTLS13 {
		t.Errorf("negotiated %x", resp.TLS.Version)
	}
}

func TestServeInsecure(t *testing.T) {
	s, err := NewServer(Options{Addr: "127.0.0.1:0", Metrics: New("plain")})
	if err != nil {
		t.Fatal(err)
	}
	addr := start(t, s)
	resp, body := get(t, &http.Client{Timeout: 10 * time.Second}, "http://"+addr+"/metrics", "")
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `ogx_controller_build_info{version="plain"} 1`) {
		t.Errorf("plain HTTP: %d\n%s", resp.StatusCode, body)
	}
	resp, _ = get(t, &http.Client{Timeout: 10 * time.Second}, "http://"+addr+"/other", "")
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("/other: %d", resp.StatusCode)
	}
}

// writePair writes a fresh self-signed pair with the given common name.
func writePair(t *testing.T, dir, cn string) {
	t.Helper()
	cert, err := selfSignedCertificate(time.Now(), cn)
	if err != nil {
		t.Fatal(err)
	}
	der := cert.Certificate[0]
	keyDER, err := x509.MarshalPKCS8PrivateKey(cert.PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	// Write the key first, then the certificate: a reader may see a
	// mismatched pair in between, which must be kept out.
	if err := os.WriteFile(filepath.Join(dir, tlsserve.KeyFileName), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, tlsserve.CertFileName), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}

func servedCN(c *http.Client, url string) (string, error) {
	resp, err := c.Get(url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	c.CloseIdleConnections()
	return resp.TLS.PeerCertificates[0].Subject.CommonName, nil
}

func TestServeCertDirAndReload(t *testing.T) {
	dir := t.TempDir()
	writePair(t, dir, "first")
	api := newFakeAPI()
	s, err := NewServer(Options{Addr: "127.0.0.1:0", Secure: true, CertDir: dir, CertReloadInterval: 20 * time.Millisecond,
		Kube: api.kube, Metrics: New("t")})
	if err != nil {
		t.Fatal(err)
	}
	addr := start(t, s)
	url := "https://" + addr + "/metrics"
	c := client(nil)
	cn, err := servedCN(c, url)
	if err != nil || cn != "first" {
		t.Fatalf("served %q (%v), want first", cn, err)
	}

	// A broken pair is ignored; the previous one stays.
	if err := os.WriteFile(filepath.Join(dir, tlsserve.CertFileName), []byte("garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := s.files.Load(klog.NewContext(context.Background(), klog.Background())); err == nil {
		t.Fatalf("a garbage certificate loaded")
	}
	if cn, err := servedCN(c, url); err != nil || cn != "first" {
		t.Fatalf("after a broken write: served %q (%v), want first", cn, err)
	}

	writePair(t, dir, "second")
	waitServed(t, c, url, "second")
}

// waitServed polls url until it is served with a certificate named cn.
func waitServed(t *testing.T, c *http.Client, url, cn string) {
	t.Helper()
	var last string
	var lastErr error
	err := wait.PollUntilContextTimeout(context.Background(), 10*time.Millisecond, 10*time.Second, true,
		func(context.Context) (bool, error) {
			last, lastErr = servedCN(c, url)
			return lastErr == nil && last == cn, nil
		})
	if err != nil {
		t.Fatalf("%q not served before the deadline; last %q (%v)", cn, last, lastErr)
	}
}

func TestServeCertDirWithoutFiles(t *testing.T) {
	dir := t.TempDir()
	api := newFakeAPI()
	s, err := NewServer(Options{Addr: "127.0.0.1:0", Secure: true, CertDir: dir, CertReloadInterval: 20 * time.Millisecond,
		Kube: api.kube, Metrics: New("t")})
	if err != nil {
		t.Fatal(err)
	}
	addr := start(t, s)
	c := client(nil)
	if _, err := servedCN(c, "https://"+addr+"/metrics"); err == nil {
		t.Fatalf("served without a certificate")
	}
	writePair(t, dir, "late")
	waitServed(t, c, "https://"+addr+"/metrics", "late")
}

func TestShutdownIsIdempotent(t *testing.T) {
	s, err := NewServer(Options{Addr: "127.0.0.1:0", Metrics: New("t")})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Shutdown(context.Background()); err != nil {
		t.Errorf("Shutdown before Start: %v", err)
	}
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	addr := s.Addr().String()
	for range 2 {
		if err := s.Shutdown(context.Background()); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
	}
	if resp, err := (&http.Client{Timeout: time.Second}).Get("http://" + addr + "/metrics"); err == nil {
		resp.Body.Close()
		t.Errorf("still serving after Shutdown")
	}
}

func TestRunStopsWithContext(t *testing.T) {
	s, err := NewServer(Options{Addr: "127.0.0.1:0", Metrics: New("t")})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("Run did not return after cancel")
	}
}
