package metrics

import (
	"context"
	"net/url"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	clientmetrics "k8s.io/client-go/tools/metrics"
)

// restMetrics are the client-go REST client metrics.
type restMetrics struct {
	latency     *prometheus.HistogramVec
	results     *prometheus.CounterVec
	rateLimiter *prometheus.HistogramVec
}

func newRESTMetrics() restMetrics {
	const subsystem = "rest_client"
	buckets := []float64{0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60}
	return restMetrics{
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Subsystem: subsystem, Name: "request_duration_seconds",
			Help:    "Latency of API server requests, by verb and host.",
			Buckets: buckets,
		}, []string{"verb", "host"}),
		results: prometheus.NewCounterVec(prometheus.CounterOpts{
			Subsystem: subsystem, Name: "requests_total",
			Help: "API server requests, by status code, method and host.",
		}, []string{"code", "method", "host"}),
		rateLimiter: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Subsystem: subsystem, Name: "rate_limiter_duration_seconds",
			Help:    "Time API server requests waited for the client-side rate limiter, by verb and host.",
			Buckets: buckets,
		}, []string{"verb", "host"}),
	}
}

func (r restMetrics) register(reg prometheus.Registerer) {
	reg.MustRegister(r.latency, r.results, r.rateLimiter)
}

// restLatency adapts a histogram to clientmetrics.LatencyMetric.
type restLatency struct{ h *prometheus.HistogramVec }

func (l restLatency) Observe(_ context.Context, verb string, u url.URL, latency time.Duration) {
	l.h.WithLabelValues(verb, u.Host).Observe(latency.Seconds())
}

// restResult adapts a counter to clientmetrics.ResultMetric.
type restResult struct{ c *prometheus.CounterVec }

func (r restResult) Increment(_ context.Context, code, method, host string) {
	r.c.WithLabelValues(code, method, host).Inc()
}

// clientGoOnce guards the one call of clientmetrics.Register this package
// makes. client-go keeps its REST client metrics hooks in package variables
// that can be set only once per process (Register has its own sync.Once
// and ignores later calls), so this is the one piece of package-level state
// here: the first Metrics to call RegisterClientGoMetrics receives the
// rest_client_* observations of every client in the process.
var clientGoOnce sync.Once

// RegisterClientGoMetrics installs this Metrics' adapters as client-go's REST
// client metrics (request latency, request results and rate-limiter
// latency) through k8s.io/client-go/tools/metrics.Register. Call it once,
// early in main and before any client sends a request (client-go reads the
// hooks without locking).
//
// It reports whether this call installed the adapters: only the first call
// in a process can (later calls, from this or another Metrics, return false
// and change nothing), and it returns false as well when something else
// already called client-go's Register. Until it has run, the rest_client_*
// metrics stay empty. A nil Metrics installs nothing.
func (m *Metrics) RegisterClientGoMetrics() bool {
	if m == nil {
		return false
	}
	installed := false
	clientGoOnce.Do(func() {
		result := restResult{c: m.rest.results}
		clientmetrics.Register(clientmetrics.RegisterOpts{
			RequestLatency:     restLatency{h: m.rest.latency},
			RequestResult:      result,
			RateLimiterLatency: restLatency{h: m.rest.rateLimiter},
		})
		// client-go ignores the call if its hooks were already set.
		installed = clientmetrics.RequestResult == clientmetrics.ResultMetric(result)
	})
	return installed
}
