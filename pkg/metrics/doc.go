// Package metrics holds the controller's Prometheus metrics and the metrics
// listener (docs/controllers.md, Metrics endpoint).
//
// A Metrics value owns its own prometheus.Registry (the global default
// registry is never used) with:
//
//   - the Go and process collectors;
//   - the client-go workqueue metrics (workqueue_*), fed by the provider
//     returned by Metrics.WorkqueueMetricsProvider, labelled by queue name;
//   - the client-go REST client metrics (rest_client_*), fed once
//     RegisterClientGoMetrics has installed this Metrics' adapters in
//     k8s.io/client-go/tools/metrics (a process-wide, once-only hook);
//   - the ogx_controller_* metrics, updated through small methods such as
//     ObserveReconcile and CountWrite.
//
// All methods are safe on a nil *Metrics, where they do nothing, so code
// paths that run without metrics (unit tests, offline commands) need no
// checks.
//
// Server serves the registry at /metrics. In secure mode (the default) it is
// HTTPS, with a certificate from a directory (re-read when it changes) or an
// in-memory self-signed one, and every request must carry a bearer token
// that a TokenReview authenticates and a SubjectAccessReview for the
// non-resource URL /metrics, verb get, authorises. Decisions are cached:
// authentication 2 min, allowed 5 min, denied 30 s.
package metrics
