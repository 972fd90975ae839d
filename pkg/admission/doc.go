// Package admission is the net/http server that answers the API server's
// AdmissionReview calls for OGXServers with the validator of
// pkg/apis/ogx/v1beta1/validation.
//
// The validator is a pure function of the object and the built-in
// distribution registry: it makes no API calls, so it is deterministic, fast
// and safe to run anywhere. This server, the controller's own re-validation
// on every pass and `kubectl ogx render --validate` all call the same
// validation.Validate, so they can never disagree.
package admission
