// Package integration holds the API-surface integration tests: the
// OGXServer and LlamaStackDistribution CustomResourceDefinitions generated
// from the Go types are installed into a real kube-apiserver (started by
// test/framework) and manifests are sent to it, so the OpenAPI schema, the
// structural defaults and the CEL rules are exercised by the same code that
// runs in a cluster.
//
// The tests need the control-plane programs; see framework.Options.AssetsDir
// (normally OGX_TEST_ASSETS=<repo>/bin).
package integration
