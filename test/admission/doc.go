// Package admission tests the OGXServer validating webhook end to end: the
// admission server of pkg/admission runs on loopback with a certificate from
// a throwaway CA, a real kube-apiserver (started by test/framework) calls it
// through a ValidatingWebhookConfiguration built from
// config/webhook/manifests.yaml, and the tests check what a client of the
// API sees: denials with the webhook's message and field causes, admitted
// objects, certificate rotation without restart and the Fail failure policy.
//
// Every test registers its own webhook configuration, limited by a namespace
// selector to the test's own namespace and pointing at its own server, so the
// tests are independent and may stop their server.
//
// The tests need the control-plane programs; see framework.Options.AssetsDir
// (normally OGX_TEST_ASSETS=<repo>/bin).
package admission
