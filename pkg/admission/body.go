package admission

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"

	admissionv1 "k8s.io/api/admission/v1"
)

// smallBody is the declared length up to which a body does not count
// against the byte budget: real reviews are a few KiB, and one slow sender
// of a large body must not make them wait (the slots still bound them).
const smallBody = 64 << 10

// bodyCharge is what a request's body counts against the byte budget: its
// declared length, the most it may be when it declares none, and nothing
// for a small declared body.
func bodyCharge(r *http.Request) int64 {
	switch {
	case r.ContentLength < 0 || r.ContentLength > MaxRequestBytes:
		return MaxRequestBytes
	case r.ContentLength <= smallBody:
		return 0
	}
	return r.ContentLength
}

// readReview checks the HTTP request and decodes its AdmissionReview.
func readReview(w http.ResponseWriter, r *http.Request) (*admissionv1.AdmissionRequest, error) {
	if r.Method != http.MethodPost {
		return nil, &badRequest{http.StatusBadRequest, fmt.Sprintf("method %s not supported: an AdmissionReview must be POSTed", r.Method)}
	}
	ct := r.Header.Get("Content-Type")
	if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
		return nil, &badRequest{http.StatusBadRequest, fmt.Sprintf("content type %q not supported: expected application/json", ct)}
	}
	body, err := readBody(w, r)
	if err != nil {
		if errors.As(err, new(*http.MaxBytesError)) {
			return nil, &badRequest{http.StatusBadRequest, tooLarge}
		}
		return nil, &badRequest{http.StatusBadRequest, fmt.Sprintf("reading request body: %v", err)}
	}
	if len(body) == 0 {
		return nil, &badRequest{http.StatusBadRequest, "empty request body: expected an AdmissionReview"}
	}
	var review admissionv1.AdmissionReview
	if err := json.Unmarshal(body, &review); err != nil {
		return nil, &badRequest{http.StatusBadRequest, fmt.Sprintf("decoding AdmissionReview: %v", err)}
	}
	if gvk := review.GroupVersionKind(); gvk != admissionReviewGVK {
		return nil, &badRequest{http.StatusBadRequest, fmt.Sprintf("expected apiVersion %s kind %s, got apiVersion %q kind %q",
			admissionReviewGVK.GroupVersion(), admissionReviewGVK.Kind, review.APIVersion, review.Kind)}
	}
	if review.Request == nil {
		return nil, &badRequest{http.StatusBadRequest, "AdmissionReview has no request"}
	}
	if review.Request.UID == "" {
		return nil, &badRequest{http.StatusBadRequest, "AdmissionReview request has no uid"}
	}
	return review.Request, nil
}

// tooLarge is the answer to a body over MaxRequestBytes.
var tooLarge = fmt.Sprintf("request body exceeds %d bytes", MaxRequestBytes)

// readBody reads a declared length into one buffer of that size (the
// server has checked it against MaxRequestBytes): io.ReadAll's doubling
// would leave up to twice the body behind as garbage, which a flood of
// large bodies turns into resident memory. A body of unknown length is
// read with the limit.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	if r.ContentLength < 0 {
		return io.ReadAll(http.MaxBytesReader(w, r.Body, MaxRequestBytes))
	}
	body := make([]byte, r.ContentLength)
	_, err := io.ReadFull(r.Body, body)
	return body, err
}
