// Package admission holds the OGXServer validator (checks A1–A11 of the API
// spec) and the net/http server that answers the API server's
// AdmissionReview calls with it.
//
// The validator is a pure function of the object and the built-in
// distribution registry: it makes no API calls, so it is deterministic, fast
// and safe to run anywhere. The admission server, the controller's own
// re-validation on every reconcile and `ogx-controller render --validate` all
// call the same Validate, so they can never disagree.
package admission
