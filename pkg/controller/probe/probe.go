// Package probe asks a running OGX server for its health, version and
// providers over HTTP, and remembers each server's last result so probes
// happen at most once per interval.
package probe

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/record"
)

// maxProbeBody bounds a probe response; a larger one is an error.
const maxProbeBody = 1 << 20

// Result is what the server probe found.
type Result struct {
	// Healthy reports GET /v1/health returned 200.
	Healthy bool
	// HealthMessage explains a failed health check.
	HealthMessage string
	// Version is the server version from /v1/version ("" when unknown).
	Version string
	// Providers are the providers from /v1/providers (nil when unknown).
	Providers []ogxv1beta1.ProviderInfo
}

// Target is one probe: the base URL and, with server TLS, the CA to
// verify against (nil: no verification) and the server name.
type Target struct {
	BaseURL    string
	CA         []byte
	ServerName string
	TLS        bool
}

// Prober probes an OGX server over HTTP.
type Prober interface {
	Probe(ctx context.Context, t Target) Result
}

// httpProber is the real prober: sequential GETs of /v1/health, /v1/version
// and /v1/providers, each bounded by the timeout and the body limit. It sends
// no credentials.
type httpProber struct {
	timeout time.Duration
	// dialAddress, when set, is where every probe connects, whatever the
	// URL names (a loopback stand-in for tests and benchmarks).
	dialAddress string
}

// NewHTTPProber returns the production prober; a non-empty dialAddress
// (host:port) replaces the address every probe connects to.
func NewHTTPProber(timeout time.Duration, dialAddress string) Prober {
	return &httpProber{timeout: timeout, dialAddress: dialAddress}
}

func (p *httpProber) client(t Target) *http.Client {
	tr := &http.Transport{Proxy: nil, DisableKeepAlives: true}
	if p.dialAddress != "" {
		d := &net.Dialer{Timeout: p.timeout}
		tr.DialContext = func(ctx context.Context, network, _ string) (net.Conn, error) {
			return d.DialContext(ctx, network, p.dialAddress)
		}
	}
	if t.TLS {
		cfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: t.ServerName}
		if len(t.CA) > 0 {
			pool := x509.NewCertPool()
			pool.AppendCertsFromPEM(t.CA)
			cfg.RootCAs = pool
		} else {
			// Without a CA to check against, the probe still tells whether
			// the server answers; it carries no credentials.
			cfg.InsecureSkipVerify = true //nolint:gosec
		}
		tr.TLSClientConfig = cfg
	}
	// A redirect is answered, not followed: the server's answer is what
	// status reports, and following it would let whoever runs the server
	// make the operator fetch any address (a cloud metadata endpoint, the
	// API server) and read the outcome from status.
	return &http.Client{Transport: tr, Timeout: p.timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

func (p *httpProber) get(ctx context.Context, c *http.Client, url string) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, nil, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxProbeBody+1))
	if err != nil {
		return resp.StatusCode, nil, err
	}
	if len(body) > maxProbeBody {
		return resp.StatusCode, nil, fmt.Errorf("response larger than %d bytes", maxProbeBody)
	}
	return resp.StatusCode, body, nil
}

func (p *httpProber) Probe(ctx context.Context, t Target) Result {
	c := p.client(t)
	var r Result
	code, _, err := p.get(ctx, c, t.BaseURL+"/v1/health")
	switch {
	case err != nil:
		// Unreachable: the other endpoints would only wait out their own
		// timeouts, holding a probe slot three times as long.
		r.HealthMessage = "GET /v1/health: " + err.Error()
		return r
	case code != http.StatusOK:
		r.HealthMessage = fmt.Sprintf("GET /v1/health returned HTTP %d", code)
	default:
		r.Healthy = true
	}
	if code, body, err := p.get(ctx, c, t.BaseURL+"/v1/version"); err == nil && code == http.StatusOK {
		var v struct {
			Version string `json:"version"`
		}
		if json.Unmarshal(body, &v) == nil {
			r.Version = v.Version
		}
	}
	if code, body, err := p.get(ctx, c, t.BaseURL+"/v1/providers"); err == nil && code == http.StatusOK {
		r.Providers = parseProviders(body)
	}
	return r
}

// State remembers the last probe of each OGXServer, so probes happen at
// most once per interval unless what they depend on (available replicas, the
// pod template) changed, and which probes are in flight.
type State struct {
	interval time.Duration
	last     record.Slot[probeRecord]
	inFlight sync.Map // types.UID → struct{}
}

type probeRecord struct {
	at      time.Time
	trigger string
	result  Result
}

// NewState probes each server at most once per interval unless its
// trigger changes; it keeps its results in r.
func NewState(interval time.Duration, r *record.Store) *State {
	return &State{interval: interval, last: record.NewSlot[probeRecord](r)}
}

// Due returns the previous result (has: there is one) and whether a new
// probe is due.
func (p *State) Due(uid types.UID, trigger string, now time.Time) (prev Result, has, due bool) {
	r, ok := p.last.Get(uid)
	if !ok {
		return Result{}, false, true
	}
	return r.result, true, r.trigger != trigger || now.Sub(r.at) >= p.interval
}

// Begin marks a probe of uid in flight; false when one already is.
func (p *State) Begin(uid types.UID) bool {
	_, running := p.inFlight.LoadOrStore(uid, struct{}{})
	return !running
}

// End clears the in-flight mark of uid.
func (p *State) End(uid types.UID) { p.inFlight.Delete(uid) }

// Store records a probe result; a version the server did not report keeps
// the previous one.
func (p *State) Store(uid types.UID, trigger string, now time.Time, res Result) {
	p.last.Update(uid, func(prev probeRecord, _ bool) (probeRecord, bool) {
		if res.Version == "" {
			res.Version = prev.result.Version
		}
		return probeRecord{at: now, trigger: trigger, result: res}, true
	})
}

// InFlight is how many probes are running.
func (p *State) InFlight() int {
	n := 0
	p.inFlight.Range(func(any, any) bool {
		n++
		return true
	})
	return n
}
