package probe

// The server probe against net/http/httptest servers (docs/status.md, Server
// probe).

import (
	"context"
	"encoding/pem"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/probe/probetest"
	"github.com/ogx-k8s/ogx-controller/pkg/testcerts"
)

func TestProbeHTTPResults(t *testing.T) {
	for _, tc := range []struct {
		name string
		srv  *probetest.Server
		want Result
	}{
		{
			name: "healthy with version and providers",
			srv:  probetest.NewServer(200, `{"version": "0.4.1"}`, probetest.ProvidersBody),
			want: Result{Healthy: true, Version: "0.4.1", Providers: probetest.WantProviders()},
		},
		{
			name: "503 on /v1/health: unhealthy, the other fields still read",
			srv:  probetest.NewServer(503, `{"version": "0.4.1"}`, `{"data": []}`),
			want: Result{HealthMessage: "GET /v1/health returned HTTP 503", Version: "0.4.1", Providers: []ogxv1beta1.ProviderInfo{}},
		},
		{
			name: "any code but 200 is unhealthy",
			srv:  probetest.NewServer(204, "", ""),
			want: Result{HealthMessage: "GET /v1/health returned HTTP 204"},
		},
		{
			name: "version and providers missing or malformed",
			srv:  probetest.NewServer(200, `not json`, `{"data": {"api": "x"}}`),
			want: Result{Healthy: true},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := httptest.NewServer(tc.srv)
			defer ts.Close()
			got := NewHTTPProber(5*time.Second, "").Probe(context.Background(), Target{BaseURL: ts.URL})
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("probe (-want +got):\n%s", diff)
			}
			if n := tc.srv.Requests.Load(); n != 3 {
				t.Errorf("requests = %d, want 3 (health, version, providers)", n)
			}
			if n := tc.srv.Auth.Load(); n != 0 {
				t.Errorf("%d requests carried credentials or were not GETs", n)
			}
		})
	}

	t.Run("unreachable", func(t *testing.T) {
		ts := httptest.NewServer(http.NotFoundHandler())
		url := ts.URL
		ts.Close()
		got := NewHTTPProber(2*time.Second, "").Probe(context.Background(), Target{BaseURL: url})
		if got.Healthy || !strings.HasPrefix(got.HealthMessage, "GET /v1/health: ") || got.Version != "" || got.Providers != nil {
			t.Errorf("probe of a closed server = %+v, want unhealthy with a GET /v1/health: <error> message", got)
		}
	})

	t.Run("oversized response is an error", func(t *testing.T) {
		big := `{"version": "` + strings.Repeat("9", maxProbeBody) + `"}`
		ts := httptest.NewServer(probetest.NewServer(200, big, `{"data":[]}`))
		defer ts.Close()
		got := NewHTTPProber(5*time.Second, "").Probe(context.Background(), Target{BaseURL: ts.URL})
		if diff := cmp.Diff(Result{Healthy: true, Providers: []ogxv1beta1.ProviderInfo{}}, got); diff != "" {
			t.Errorf("probe with a 1 MiB+ version body (-want +got):\n%s", diff)
		}
	})

	t.Run("slow server times out", func(t *testing.T) {
		release := make(chan struct{})
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-release }))
		defer ts.Close()
		defer close(release)
		got := NewHTTPProber(50*time.Millisecond, "").Probe(context.Background(), Target{BaseURL: ts.URL})
		if got.Healthy || !strings.HasPrefix(got.HealthMessage, "GET /v1/health: ") {
			t.Errorf("probe of a hanging server = %+v, want a timeout error", got)
		}
	})
}

func TestProbeHTTPTLS(t *testing.T) {
	srv := probetest.NewServer(200, `{"version":"1.0"}`, `{"data":[]}`)
	ts := httptest.NewUnstartedServer(srv)
	ts.Config.ErrorLog = log.New(io.Discard, "", 0) // the failing handshakes below are expected
	ts.StartTLS()
	defer ts.Close()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ts.Certificate().Raw})
	otherCA := phOtherCA(t)

	p := NewHTTPProber(5*time.Second, "")
	// httptest certificates are issued for example.com.
	if got := p.Probe(context.Background(), Target{BaseURL: ts.URL, TLS: true, CA: ca, ServerName: "example.com"}); !got.Healthy || got.Version != "1.0" {
		t.Errorf("verified TLS probe = %+v, want healthy", got)
	}
	if got := p.Probe(context.Background(), Target{BaseURL: ts.URL, TLS: true, ServerName: "demo-service.team-a.svc"}); !got.Healthy {
		t.Errorf("TLS probe without a CA (no verification) = %+v, want healthy", got)
	}
	got := p.Probe(context.Background(), Target{BaseURL: ts.URL, TLS: true, CA: ca, ServerName: "demo-service.team-a.svc"})
	if got.Healthy || !strings.HasPrefix(got.HealthMessage, "GET /v1/health: ") {
		t.Errorf("TLS probe with a wrong server name = %+v, want a verification error", got)
	}
	got = p.Probe(context.Background(), Target{BaseURL: ts.URL, TLS: true, CA: otherCA, ServerName: "example.com"})
	if got.Healthy || !strings.HasPrefix(got.HealthMessage, "GET /v1/health: ") {
		t.Errorf("TLS probe against another CA = %+v, want a verification error", got)
	}
}

func TestProbeHTTPParseProviders(t *testing.T) {
	if diff := cmp.Diff(probetest.WantProviders(), parseProviders([]byte(probetest.ProvidersBody))); diff != "" {
		t.Errorf("parseProviders (-want +got):\n%s", diff)
	}
	for _, body := range []string{``, `[]`, `{"data": 3}`, `{"data": [1]}`} {
		if got := parseProviders([]byte(body)); got != nil {
			t.Errorf("parseProviders(%q) = %+v, want nil", body, got)
		}
	}
}

// phOtherCA returns the PEM of a fresh CA, unrelated to the httptest
// certificate.
func phOtherCA(t *testing.T) []byte {
	t.Helper()
	ca, err := testcerts.NewCA("other CA")
	if err != nil {
		t.Fatal(err)
	}
	return ca.PEM
}

// TestProbeHTTPDoesNotFollowRedirects: a server answering with a redirect
// to another address is reported unhealthy with the redirect's code, and
// the target of the redirect receives nothing.
func TestProbeHTTPDoesNotFollowRedirects(t *testing.T) {
	var elsewhere atomic.Int32
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Add(1)
		_, _ = w.Write([]byte(`{"status":"OK"}`))
	}))
	defer target.Close()
	redirecting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL+r.URL.Path, http.StatusFound)
	}))
	defer redirecting.Close()

	r := NewHTTPProber(5*time.Second, "").Probe(context.Background(), Target{BaseURL: redirecting.URL})
	if r.Healthy || !strings.Contains(r.HealthMessage, "HTTP 302") {
		t.Errorf("probe of a redirecting server: healthy %v, message %q; want unhealthy with HTTP 302", r.Healthy, r.HealthMessage)
	}
	if n := elsewhere.Load(); n != 0 {
		t.Errorf("the redirect's target received %d requests, want 0", n)
	}
}
