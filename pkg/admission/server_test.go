package admission

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1/validation/validationtest"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/klog/v2/ktesting"

	"github.com/ogx-k8s/ogx-controller/pkg/admission/admissiontest"
	"github.com/ogx-k8s/ogx-controller/pkg/testcerts"
	"github.com/ogx-k8s/ogx-controller/pkg/tlsserve"
)

// eventually polls cond every 10 ms until it holds or the deadline passes.
func eventually(t *testing.T, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		<-tick.C
	}
}

type testServer struct {
	*Server
	dir string
	ca  *testcerts.CA
}

func newCA(t testing.TB) *testcerts.CA {
	t.Helper()
	ca, err := testcerts.NewCA("admission-test-ca")
	if err != nil {
		t.Fatal(err)
	}
	return ca
}

func issue(t testing.TB, ca *testcerts.CA) *testcerts.Pair {
	t.Helper()
	p, err := ca.Issue(testcerts.Leaf{CommonName: "admission", IPs: []net.IP{net.IPv4(127, 0, 0, 1)}, DNSNames: []string{"localhost"}})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func writeVolume(t testing.TB, dir string, files map[string][]byte) {
	t.Helper()
	if err := admissiontest.WriteSecretVolume(dir, files); err != nil {
		t.Fatal(err)
	}
}

// startServer starts a Server on a free loopback port with a fast reloader.
// With withCert, a first pair is written before the start.
func startServer(t *testing.T, withCert bool, mutate func(*ServerOptions)) *testServer {
	t.Helper()
	ts := &testServer{dir: filepath.Join(t.TempDir(), "certs"), ca: newCA(t)}
	if withCert {
		writeVolume(t, ts.dir, issue(t, ts.ca).Files())
	} else if err := os.MkdirAll(ts.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	opts := ServerOptions{Addr: "127.0.0.1:0", CertDir: ts.dir, ReloadInterval: 20 * time.Millisecond}
	if mutate != nil {
		mutate(&opts)
	}
	s, err := NewServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	_, ctx := ktesting.NewTestContext(t)
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Shutdown(context.Background()); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
	})
	ts.Server = s
	return ts
}

func (ts *testServer) url(path string) string { return "https://" + ts.Addr().String() + path }

func (ts *testServer) client(mutate func(*tls.Config)) *http.Client {
	cfg := &tls.Config{RootCAs: ts.ca.Pool(), ServerName: "127.0.0.1"}
	if mutate != nil {
		mutate(cfg)
	}
	return &http.Client{Transport: &http.Transport{TLSClientConfig: cfg, ForceAttemptHTTP2: true}, Timeout: 10 * time.Second}
}

// servedCert does one handshake and returns the server's leaf certificate.
func (ts *testServer) servedCert(cfg *tls.Config) (*x509.Certificate, *tls.ConnectionState, error) {
	if cfg == nil {
		cfg = &tls.Config{RootCAs: ts.ca.Pool(), ServerName: "127.0.0.1"}
	}
	d := &net.Dialer{Timeout: 5 * time.Second}
	conn, err := tls.DialWithDialer(d, "tcp", ts.Addr().String(), cfg)
	if err != nil {
		return nil, nil, err
	}
	defer func() { _ = conn.Close() }()
	st := conn.ConnectionState()
	return st.PeerCertificates[0], &st, nil
}

func TestServerServesReviews(t *testing.T) {
	ts := startServer(t, true, nil)
	if !ts.Ready() {
		t.Fatal("Ready() = false with a certificate loaded")
	}
	c := ts.client(nil)
	resp, err := c.Post(ts.url(ValidatePath), "application/json", bytes.NewReader(reviewBody(t, request(t, admissionv1.Create, validationtest.Server()))))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	var review admissionv1.AdmissionReview
	if err := json.NewDecoder(resp.Body).Decode(&review); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || review.Response == nil || !review.Response.Allowed || review.Response.UID != testUID {
		t.Errorf("HTTP %d, response %+v; want an allowed review", resp.StatusCode, review.Response)
	}
	if resp.ProtoMajor != 1 {
		t.Errorf("protocol = %s, want HTTP/1.1 (HTTP/2 is off by default)", resp.Proto)
	}

	for path, want := range map[string]int{"/healthz": http.StatusNotFound, "/metrics": http.StatusNotFound} {
		resp, err := c.Get(ts.url(path))
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("GET %s = %d, want %d", path, resp.StatusCode, want)
		}
	}
}

func TestServerHTTP2(t *testing.T) {
	h2 := func(c *tls.Config) { c.NextProtos = []string{"h2", "http/1.1"} }
	cfg := func(ts *testServer) *tls.Config {
		c := &tls.Config{RootCAs: ts.ca.Pool(), ServerName: "127.0.0.1"}
		h2(c)
		return c
	}

	off := startServer(t, true, nil)
	_, st, err := off.servedCert(cfg(off))
	if err != nil {
		t.Fatal(err)
	}
	if st.NegotiatedProtocol == "h2" {
		t.Errorf("negotiated h2 with HTTP/2 disabled")
	}

	on := startServer(t, true, func(o *ServerOptions) { o.EnableHTTP2 = true })
	_, st, err = on.servedCert(cfg(on))
	if err != nil {
		t.Fatal(err)
	}
	if st.NegotiatedProtocol != "h2" {
		t.Errorf("negotiated %q with HTTP/2 enabled, want h2", st.NegotiatedProtocol)
	}
	// Any answer tells the protocol; a GET of the webhook path is a 400.
	resp, err := on.client(h2).Get(on.url(ValidatePath))
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.ProtoMajor != 2 {
		t.Errorf("protocol = %s, want HTTP/2", resp.Proto)
	}
}

func TestServerMinTLSVersion(t *testing.T) {
	maxVersion := func(ts *testServer, v uint16) *tls.Config {
		return &tls.Config{RootCAs: ts.ca.Pool(), ServerName: "127.0.0.1", MaxVersion: v}
	}

	def := startServer(t, true, nil)
	if _, _, err := def.servedCert(maxVersion(def, tls.VersionTLS11)); err == nil {
		t.Error("TLS 1.1 handshake succeeded; the default minimum is TLS 1.2")
	}
	if _, st, err := def.servedCert(maxVersion(def, tls.VersionTLS12)); err != nil || st.Version != tls.VersionTLS12 {
		t.Errorf("TLS 1.2 handshake: %v", err)
	}

	// A TLS 1.2 client offering only CBC suites with SHA-1 MACs is refused.
	cbc := maxVersion(def, tls.VersionTLS12)
	cbc.CipherSuites = []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA, tls.TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA,
		tls.TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA, tls.TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA}
	if _, st, err := def.servedCert(cbc); err == nil {
		t.Errorf("TLS 1.2 handshake with CBC-SHA1 suites only succeeded (%s)", tls.CipherSuiteName(st.CipherSuite))
	}

	v13 := startServer(t, true, func(o *ServerOptions) { o.MinTLSVersion = tls.VersionTLS13 })
	if _, _, err := v13.servedCert(maxVersion(v13, tls.VersionTLS12)); err == nil {
		t.Error("TLS 1.2 handshake succeeded with minimum TLS 1.3")
	}
	if _, st, err := v13.servedCert(nil); err != nil || st.Version != tls.VersionTLS13 {
		t.Errorf("TLS 1.3 handshake: %v", err)
	}
}

func TestServerReloadsCertificate(t *testing.T) {
	ts := startServer(t, true, nil)
	first, _, err := ts.servedCert(nil)
	if err != nil {
		t.Fatal(err)
	}

	// A Secret volume update (symlink swap) is picked up by new handshakes.
	second := issue(t, ts.ca)
	writeVolume(t, ts.dir, second.Files())
	eventually(t, "the rotated certificate to be served", 10*time.Second, func() bool {
		got, _, err := ts.servedCert(nil)
		return err == nil && admissiontest.SameCertificate(got, second.Leaf)
	})
	if admissiontest.SameCertificate(first, second.Leaf) {
		t.Fatal("issued the same certificate twice")
	}

	// Garbage, a half-updated pair (new certificate, old key) and missing
	// files are logged and ignored: the last good pair stays.
	_, ctx := ktesting.NewTestContext(t)
	third := issue(t, ts.ca)
	for name, files := range map[string]map[string][]byte{
		"garbage":       {tlsserve.CertFileName: []byte("garbage"), tlsserve.KeyFileName: []byte("more garbage")},
		"mismatched":    {tlsserve.CertFileName: third.CertPEM, tlsserve.KeyFileName: second.KeyPEM},
		"key not a key": {tlsserve.CertFileName: third.CertPEM, tlsserve.KeyFileName: third.CertPEM},
	} {
		writeVolume(t, ts.dir, files)
		if err := ts.Certificates().Load(ctx); err == nil {
			t.Errorf("%s: Load succeeded", name)
		}
		got, _, err := ts.servedCert(nil)
		if err != nil || !admissiontest.SameCertificate(got, second.Leaf) {
			t.Errorf("%s: served certificate changed (err %v)", name, err)
		}
		if !ts.Ready() {
			t.Errorf("%s: Ready() = false while the previous pair is kept", name)
		}
	}

	// A later valid pair is loaded again.
	writeVolume(t, ts.dir, third.Files())
	eventually(t, "the third certificate to be served", 10*time.Second, func() bool {
		got, _, err := ts.servedCert(nil)
		return err == nil && admissiontest.SameCertificate(got, third.Leaf)
	})
	if !admissiontest.SameCertificate(ts.Certificates().Certificate(), third.Leaf) {
		t.Error("Certificate() does not report the served certificate")
	}
}

func TestCertReloaderPlainFiles(t *testing.T) {
	// Files rewritten in place (no symlinks) are detected by content.
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "c.pem"), filepath.Join(dir, "k.pem")
	write := func(p *testcerts.Pair) {
		if err := os.WriteFile(certFile, p.CertPEM, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(keyFile, p.KeyPEM, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	_, ctx := ktesting.NewTestContext(t)
	r := tlsserve.NewCertReloader(certFile, keyFile, 0)
	if r.Ready() {
		t.Fatal("Ready before any load")
	}
	if _, err := r.GetCertificate(nil); !errors.Is(err, tlsserve.ErrNoCertificate) {
		t.Errorf("GetCertificate before load: %v, want tlsserve.ErrNoCertificate", err)
	}
	if err := r.Load(ctx); err == nil || !strings.Contains(err.Error(), "c.pem") {
		t.Errorf("Load without files = %v, want an error naming the file", err)
	}

	ca := newCA(t)
	a, b := issue(t, ca), issue(t, ca)
	write(a)
	if err := r.Load(ctx); err != nil {
		t.Fatal(err)
	}
	if !admissiontest.SameCertificate(r.Certificate(), a.Leaf) {
		t.Error("first pair not loaded")
	}
	write(b)
	if err := r.Load(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := r.GetCertificate(nil)
	if err != nil || !admissiontest.SameCertificate(got.Leaf, b.Leaf) {
		t.Errorf("GetCertificate after rewrite: %v, want the second pair", err)
	}
	if err := os.Remove(keyFile); err != nil {
		t.Fatal(err)
	}
	if err := r.Load(ctx); err == nil {
		t.Error("Load with the key missing succeeded")
	}
	if !admissiontest.SameCertificate(r.Certificate(), b.Leaf) {
		t.Error("missing key dropped the loaded pair")
	}
}

func TestCertReloaderRun(t *testing.T) {
	dir := t.TempDir()
	ca := newCA(t)
	a := issue(t, ca)
	writeVolume(t, dir, a.Files())
	r := tlsserve.NewCertReloader(filepath.Join(dir, tlsserve.CertFileName), filepath.Join(dir, tlsserve.KeyFileName), 10*time.Millisecond)
	_, ctx := ktesting.NewTestContext(t)
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); r.Run(ctx) }()
	eventually(t, "the first pair", 10*time.Second, r.Ready)
	b := issue(t, ca)
	writeVolume(t, dir, b.Files())
	eventually(t, "the second pair", 10*time.Second, func() bool { return admissiontest.SameCertificate(r.Certificate(), b.Leaf) })
	cancel()
	<-done
}

func TestServerWithoutCertificateBecomesReady(t *testing.T) {
	ts := startServer(t, false, nil)
	if ts.Ready() {
		t.Fatal("Ready() = true without a certificate")
	}
	if _, _, err := ts.servedCert(nil); err == nil {
		t.Fatal("handshake succeeded without a certificate")
	}
	p := issue(t, ts.ca)
	writeVolume(t, ts.dir, p.Files())
	eventually(t, "Ready", 10*time.Second, ts.Ready)
	got, _, err := ts.servedCert(nil)
	if err != nil || !admissiontest.SameCertificate(got, p.Leaf) {
		t.Errorf("handshake after the certificate appeared: %v", err)
	}
}

func TestServerShutdownDrainsInFlightReviews(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	slow := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(entered)
		<-release
		NewHandler(HandlerOptions{}).ServeHTTP(w, r)
	})
	ts := startServer(t, true, func(o *ServerOptions) { o.Handler = slow })
	addr := ts.Addr().String()
	c := ts.client(nil)

	type result struct {
		code int
		err  error
	}
	got := make(chan result, 1)
	go func() {
		resp, err := c.Post(ts.url(ValidatePath), "application/json", bytes.NewReader(reviewBody(t, request(t, admissionv1.Create, validationtest.Server()))))
		if err != nil {
			got <- result{err: err}
			return
		}
		_ = resp.Body.Close()
		got <- result{code: resp.StatusCode}
	}()
	<-entered

	shutdownErr := make(chan error, 1)
	go func() { shutdownErr <- ts.Shutdown(context.Background()) }()
	// The listener closes at once: not ready, no new connections.
	eventually(t, "the server to stop listening", 10*time.Second, func() bool { return !ts.Ready() })
	if conn, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		_ = conn.Close()
		t.Error("new connection accepted during shutdown")
	}
	select {
	case err := <-shutdownErr:
		t.Fatalf("Shutdown returned (%v) with a review in flight", err)
	default:
	}
	close(release)
	if r := <-got; r.err != nil || r.code != http.StatusOK {
		t.Errorf("in-flight review: HTTP %d, %v; want 200", r.code, r.err)
	}
	if err := <-shutdownErr; err != nil {
		t.Errorf("Shutdown: %v", err)
	}
	if err := ts.Shutdown(context.Background()); err != nil {
		t.Errorf("second Shutdown: %v", err)
	}
}

func TestServerRun(t *testing.T) {
	dir := t.TempDir()
	writeVolume(t, dir, issue(t, newCA(t)).Files())
	s, err := NewServer(ServerOptions{Addr: "127.0.0.1:0", CertDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	_, ctx := ktesting.NewTestContext(t)
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	eventually(t, "Ready", 10*time.Second, s.Ready)
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run: %v", err)
	}
	if s.Ready() {
		t.Error("Ready after Run returned")
	}
	if err := s.Start(ctx); err == nil {
		t.Error("Start after Run succeeded")
	}
}

func TestServerListenError(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ln.Close() }()
	s, err := NewServer(ServerOptions{Addr: ln.Addr().String(), CertDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	_, ctx := ktesting.NewTestContext(t)
	if err := s.Start(ctx); err == nil {
		t.Error("Start on a used port succeeded")
	}
	if err := s.Shutdown(context.Background()); err != nil {
		t.Errorf("Shutdown of a server that never started: %v", err)
	}
}

func TestNewServerOptions(t *testing.T) {
	if _, err := NewServer(ServerOptions{}); err == nil {
		t.Error("NewServer without a cert dir succeeded")
	}
	if _, err := NewServer(ServerOptions{CertDir: "x", MinTLSVersion: tls.VersionTLS11}); err == nil {
		t.Error("NewServer with TLS 1.1 succeeded")
	}
	s, err := NewServer(ServerOptions{CertDir: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if s.opts.Addr != DefaultAddr || s.opts.MinTLSVersion != tls.VersionTLS12 || s.srv.TLSNextProto == nil ||
		s.srv.ReadHeaderTimeout == 0 || s.srv.ReadTimeout == 0 || s.srv.WriteTimeout == 0 || s.srv.IdleTimeout == 0 {
		t.Errorf("defaults not applied: %+v", s.opts)
	}
	if s.Addr() != nil || s.Ready() {
		t.Error("unstarted server has an address or is ready")
	}
}

func TestParseTLSVersion(t *testing.T) {
	for in, want := range map[string]uint16{"VersionTLS12": tls.VersionTLS12, "VersionTLS13": tls.VersionTLS13} {
		if got, err := ParseTLSVersion(in); err != nil || got != want {
			t.Errorf("ParseTLSVersion(%q) = %#x, %v", in, got, err)
		}
	}
	for _, in := range []string{"", "VersionTLS11", "1.2", "versiontls12"} {
		if _, err := ParseTLSVersion(in); err == nil {
			t.Errorf("ParseTLSVersion(%q) succeeded", in)
		}
	}
}
