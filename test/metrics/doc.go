// Package metrics tests the controller's metrics listener (pkg/metrics)
// against a real kube-apiserver started by test/framework: the server runs on
// loopback with its in-memory self-signed certificate and sends its
// TokenReviews and SubjectAccessReviews with an admin client, while the tests
// scrape /metrics with ServiceAccount tokens issued by the API server
// (docs/controllers.md, Metrics endpoint): no token is 401, a ServiceAccount
// without RBAC is 403, and one bound to the ClusterRole of
// config/rbac/metrics_reader_role.yaml gets the metrics.
//
// The tests need the control-plane programs; see framework.Options.AssetsDir
// (normally OGX_TEST_ASSETS=<repo>/bin).
package metrics
