package controller

// The server probe against net/http/httptest servers (docs/status.md, Server
// probe).

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/testcerts"
)

// phServer is a fake OGX server: /v1/health answers health (an HTTP code),
// /v1/version and /v1/providers answer the given bodies (404 when empty).
type phServer struct {
	health    atomic.Int32
	version   atomic.Value // string
	providers atomic.Value // string
	requests  atomic.Int32
	auth      atomic.Int32 // requests carrying credentials
}

func newPHServer(health int, version, providers string) *phServer {
	p := &phServer{}
	p.health.Store(int32(health))
	p.version.Store(version)
	p.providers.Store(providers)
	return p
}

func (p *phServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.requests.Add(1)
	if r.Header.Get("Authorization") != "" || r.Method != http.MethodGet {
		p.auth.Add(1)
	}
	body := ""
	switch r.URL.Path {
	case "/v1/health":
		w.WriteHeader(int(p.health.Load()))
		_, _ = w.Write([]byte(`{"status":"OK"}`))
		return
	case "/v1/version":
		body = p.version.Load().(string)
	case "/v1/providers":
		body = p.providers.Load().(string)
	}
	if body == "" {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(body))
}

const phProviders = `{"data": [
 {"api": "vector_io", "provider_id": "faiss", "provider_type": "inline::faiss", "config": {"kvstore": {"type": "sqlite"}}, "health": {"status": "OK", "message": ""}},
 {"api": "inference", "provider_id": "vllm", "provider_type": "remote::vllm", "config": null},
 {"api": "inference", "provider_id": "", "provider_type": "remote::x"},
 {"provider_id": "orphan", "provider_type": "remote::x"},
 {"api": "inference", "provider_id": "no-type"},
 {"api": "inference", "provider_id": "bedrock", "provider_type": "remote::bedrock", "health": {"status": "Error", "message": "no credentials"}},
 {"api": "agents", "provider_id": "meta", "provider_type": "inline::meta-reference"}
]}`

func phWantProviders() []ogxv1beta1.ProviderInfo {
	notImpl := ogxv1beta1.ProviderHealthStatus{Status: "Not Implemented", Message: "health not reported"}
	return []ogxv1beta1.ProviderInfo{
		{API: "agents", ProviderID: "meta", ProviderType: "inline::meta-reference", Config: apiextensionsv1.JSON{Raw: []byte(`{}`)}, Health: notImpl},
		{API: "inference", ProviderID: "bedrock", ProviderType: "remote::bedrock", Config: apiextensionsv1.JSON{Raw: []byte(`{}`)},
			Health: ogxv1beta1.ProviderHealthStatus{Status: "Error", Message: "no credentials"}},
		{API: "inference", ProviderID: "vllm", ProviderType: "remote::vllm", Config: apiextensionsv1.JSON{Raw: []byte(`{}`)}, Health: notImpl},
		{API: "vector_io", ProviderID: "faiss", ProviderType: "inline::faiss", Config: apiextensionsv1.JSON{Raw: []byte(`{"kvstore": {"type": "sqlite"}}`)},
			Health: ogxv1beta1.ProviderHealthStatus{Status: "OK", Message: ""}},
	}
}

func TestProbeHTTPResults(t *testing.T) {
	for _, tc := range []struct {
		name string
		srv  *phServer
		want Result
	}{
		{
			name: "healthy with version and providers",
			srv:  newPHServer(200, `{"version": "0.4.1"}`, phProviders),
			want: Result{Healthy: true, Version: "0.4.1", Providers: phWantProviders()},
		},
		{
			name: "503 on /v1/health: unhealthy, the other fields still read",
			srv:  newPHServer(503, `{"version": "0.4.1"}`, `{"data": []}`),
			want: Result{HealthMessage: "GET /v1/health returned HTTP 503", Version: "0.4.1", Providers: []ogxv1beta1.ProviderInfo{}},
		},
		{
			name: "any code but 200 is unhealthy",
			srv:  newPHServer(204, "", ""),
			want: Result{HealthMessage: "GET /v1/health returned HTTP 204"},
		},
		{
			name: "version and providers missing or malformed",
			srv:  newPHServer(200, `not json`, `{"data": {"api": "x"}}`),
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
			if n := tc.srv.requests.Load(); n != 3 {
				t.Errorf("requests = %d, want 3 (health, version, providers)", n)
			}
			if n := tc.srv.auth.Load(); n != 0 {
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
		ts := httptest.NewServer(newPHServer(200, big, `{"data":[]}`))
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
	srv := newPHServer(200, `{"version":"1.0"}`, `{"data":[]}`)
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
	if diff := cmp.Diff(phWantProviders(), parseProviders([]byte(phProviders))); diff != "" {
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

// phRedirect sends every probe to one test server, whatever the service URL.
type phRedirect struct {
	url    string
	inner  Prober
	probes atomic.Int32
	last   atomic.Value // ProbeTarget
}

func (r *phRedirect) Probe(ctx context.Context, t Target) Result {
	r.probes.Add(1)
	r.last.Store(t)
	t.BaseURL = r.url
	return r.inner.Probe(ctx, t)
}

// TestProbeHTTPHealthCheckFollowsProbe runs the status controller on fakes
// with the probe on: 503 gives HealthCheck False with the HTTP code, 200 gives
// True, and Ready stays True throughout.
func TestProbeHTTPHealthCheckFollowsProbe(t *testing.T) {
	srv := newPHServer(503, `{"version":"0.9.0"}`, phProviders)
	ts := httptest.NewServer(srv)
	defer ts.Close()
	prober := &phRedirect{url: ts.URL, inner: NewHTTPProber(5*time.Second, "")}

	s := sfServer(sfNamespace, sfName, sfUID)
	e := newSFEnv(t, Options{ProbeEnabled: true, ProbeInterval: time.Minute, Prober: prober}, nil, s)
	clock := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	e.m.status.now = func() time.Time { return clock }
	e.syncChildren(sfKey)
	e.makeAvailable(sfName)

	// A pass starts a due probe in the background and reports the last
	// result; the pass after the probe reports its result.
	check := func(step string, wantStatus metav1.ConditionStatus, wantReason, wantMsg string) *ogxv1beta1.OGXServer {
		t.Helper()
		if _, err := e.m.status.sync(e.ctx, sfKey); err != nil {
			t.Fatal(err)
		}
		phProbesSettled(t, e.m.status.probes)
		e.waitCaught()
		if _, err := e.m.status.sync(e.ctx, sfKey); err != nil {
			t.Fatal(err)
		}
		e.waitCaught()
		got, err := e.ogx.OgxV1beta1().OGXServers(sfNamespace).Get(e.ctx, sfName, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		hc := apimeta.FindStatusCondition(got.Status.Conditions, ogxv1beta1.ConditionHealthCheck)
		if hc == nil || hc.Status != wantStatus || hc.Reason != wantReason || hc.Message != wantMsg {
			t.Errorf("%s: HealthCheck = %+v, want %s %s %q", step, hc, wantStatus, wantReason, wantMsg)
		}
		ready := apimeta.FindStatusCondition(got.Status.Conditions, ogxv1beta1.ConditionReady)
		if got.Status.Phase != ogxv1beta1.PhaseReady || ready == nil || ready.Status != metav1.ConditionTrue || ready.Reason != "Available" {
			t.Errorf("%s: phase %q Ready %+v, want Ready True Available whatever the probe says", step, got.Status.Phase, ready)
		}
		return got
	}

	got := check("503", metav1.ConditionFalse, "HealthCheckFailed", "GET /v1/health returned HTTP 503")
	if got.Status.Version.ServerVersion != "0.9.0" {
		t.Errorf("serverVersion = %q, want 0.9.0", got.Status.Version.ServerVersion)
	}
	// The stored config is the same JSON, compacted by the round trip.
	jsonValue := cmp.Transformer("json", func(j apiextensionsv1.JSON) any {
		var v any
		if err := json.Unmarshal(j.Raw, &v); err != nil {
			return string(j.Raw)
		}
		return v
	})
	if diff := cmp.Diff(phWantProviders(), got.Status.DistributionConfig.Providers, jsonValue); diff != "" {
		t.Errorf("providers (-want +got):\n%s", diff)
	}
	tgt := prober.last.Load().(Target)
	if tgt.BaseURL != "http://demo-service.team-a.svc.cluster.local:8321" || tgt.TLS {
		t.Errorf("probe target = %+v, want the Service URL over http", tgt)
	}

	// Within the interval and with an unchanged Deployment, no new probe.
	srv.health.Store(200)
	clock = clock.Add(10 * time.Second)
	before := prober.probes.Load()
	check("cached 503", metav1.ConditionFalse, "HealthCheckFailed", "GET /v1/health returned HTTP 503")
	if n := prober.probes.Load() - before; n != 0 {
		t.Errorf("probed %d times within the interval", n)
	}

	// After the interval: 200 → True; the version is kept when /v1/version fails.
	srv.version.Store("")
	clock = clock.Add(time.Minute)
	got = check("200", metav1.ConditionTrue, "HealthCheckPassed", "Health check passed")
	if got.Status.Version.ServerVersion != "0.9.0" {
		t.Errorf("serverVersion after a failed /v1/version = %q, want 0.9.0 kept", got.Status.Version.ServerVersion)
	}
	if prober.probes.Load()-before != 1 {
		t.Errorf("probes after the interval = %d, want 1", prober.probes.Load()-before)
	}
}

// phProbesSettled waits until no probe is in flight.
func phProbesSettled(t *testing.T, p *State) {
	t.Helper()
	sfEventually(t, "probes in flight to finish", func() (bool, string) {
		p.mu.Lock()
		defer p.mu.Unlock()
		return len(p.inFlight) == 0, fmt.Sprintf("%d in flight", len(p.inFlight))
	})
}

// phBlockingProber blocks every probe until release is closed.
type phBlockingProber struct {
	started chan struct{}
	release chan struct{}
}

func (p *phBlockingProber) Probe(ctx context.Context, _ Target) Result {
	p.started <- struct{}{}
	select {
	case <-p.release:
	case <-ctx.Done():
	}
	return Result{HealthMessage: "GET /v1/health: connection refused"}
}

// TestStatusPassNeverWaitsOnProbe: with a probe that does not answer, the
// status pass still writes Ready; the probe's result arrives later and
// enqueues the key.
func TestStatusPassNeverWaitsOnProbe(t *testing.T) {
	prober := &phBlockingProber{started: make(chan struct{}, 1), release: make(chan struct{})}
	s := sfServer(sfNamespace, sfName, sfUID)
	e := newSFEnv(t, Options{ProbeEnabled: true, ProbeInterval: time.Minute, Prober: prober}, nil, s)
	defer close(prober.release)
	e.syncChildren(sfKey)
	e.makeAvailable(sfName)
	// The prober blocks until the test ends, so a pass that waited on it
	// would never return.
	if _, err := e.m.status.sync(e.ctx, sfKey); err != nil {
		t.Fatal(err)
	}
	<-prober.started
	got, err := e.ogx.OgxV1beta1().OGXServers(sfNamespace).Get(e.ctx, sfName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Status.Phase != ogxv1beta1.PhaseReady {
		t.Errorf("phase %q with the probe in flight, want Ready", got.Status.Phase)
	}
	// A second pass while the probe is in flight starts no other probe.
	if _, err := e.m.status.sync(e.ctx, sfKey); err != nil {
		t.Fatal(err)
	}
	select {
	case <-prober.started:
		t.Error("a second probe started while one was in flight")
	default:
	}
}
