package admission

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1/validation/validationtest"
	"k8s.io/utils/ptr"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

const testUID = types.UID("705ab4f5-6393-11e8-b7cc-42010a800002")

// rawObject encodes obj as the API server sends it: with apiVersion and kind.
func rawObject(t testing.TB, obj *ogxv1beta1.OGXServer) runtime.RawExtension {
	t.Helper()
	obj = obj.DeepCopy()
	obj.APIVersion, obj.Kind = "ogx.io/v1beta1", "OGXServer"
	data, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	return runtime.RawExtension{Raw: data}
}

// request builds an AdmissionRequest for obj (nil for none).
func request(t testing.TB, op admissionv1.Operation, obj *ogxv1beta1.OGXServer) *admissionv1.AdmissionRequest {
	t.Helper()
	req := &admissionv1.AdmissionRequest{
		UID:       testUID,
		Kind:      metav1.GroupVersionKind{Group: "ogx.io", Version: "v1beta1", Kind: "OGXServer"},
		Resource:  metav1.GroupVersionResource{Group: "ogx.io", Version: "v1beta1", Resource: "ogxservers"},
		Namespace: "ns",
		Operation: op,
	}
	if obj != nil {
		req.Name = obj.Name
		req.Object = rawObject(t, obj)
	}
	return req
}

func reviewBody(t testing.TB, req *admissionv1.AdmissionRequest) []byte {
	t.Helper()
	data, err := json.Marshal(&admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request:  req,
	})
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func post(h http.Handler, path string, body []byte) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// answer posts a review and returns the decoded response, failing unless the
// HTTP exchange is a well-formed review answer (docs/admission.md, Request
// handling).
func answer(t *testing.T, h http.Handler, req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
	t.Helper()
	w := post(h, ValidatePath, reviewBody(t, req))
	if w.Code != http.StatusOK {
		t.Fatalf("HTTP status = %d (%s), want 200", w.Code, w.Body)
	}
	if ct := w.Header().Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q, want application/json", ct)
	}
	var review admissionv1.AdmissionReview
	if err := json.Unmarshal(w.Body.Bytes(), &review); err != nil {
		t.Fatalf("decoding answer %s: %v", w.Body, err)
	}
	if review.APIVersion != "admission.k8s.io/v1" || review.Kind != "AdmissionReview" {
		t.Errorf("answer apiVersion/kind = %q/%q", review.APIVersion, review.Kind)
	}
	if review.Request != nil {
		t.Errorf("answer echoes the request")
	}
	if review.Response == nil {
		t.Fatalf("answer has no response: %s", w.Body)
	}
	if review.Response.UID != req.UID {
		t.Errorf("response.uid = %q, want %q", review.Response.UID, req.UID)
	}
	if len(review.Response.Warnings) > 0 || review.Response.Patch != nil || review.Response.PatchType != nil {
		t.Errorf("answer has warnings or a patch: %s", w.Body)
	}
	return review.Response
}

func TestHandlerMalformedRequests(t *testing.T) {
	h := NewHandler(HandlerOptions{})
	valid := reviewBody(t, request(t, admissionv1.Create, validationtest.Server()))
	withReview := func(mutate func(map[string]any)) []byte {
		var m map[string]any
		if err := json.Unmarshal(valid, &m); err != nil {
			t.Fatal(err)
		}
		mutate(m)
		data, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}

	tests := []struct {
		name        string
		method      string
		path        string
		contentType string
		body        []byte
		wantCode    int
		wantText    string
	}{
		{name: "GET", method: http.MethodGet, body: nil, wantText: "method GET not supported"},
		{name: "PUT", method: http.MethodPut, body: valid, wantText: "method PUT not supported"},
		{name: "no content type", contentType: "-", body: valid, wantText: `content type "" not supported`},
		{name: "text/plain", contentType: "text/plain", body: valid, wantText: `content type "text/plain" not supported`},
		{name: "yaml", contentType: "application/yaml", body: valid, wantText: "expected application/json"},
		{name: "bad media type", contentType: "application/json; ;", body: valid, wantText: "not supported"},
		{name: "empty body", body: []byte{}, wantText: "empty request body"},
		{name: "oversized body", body: append(append([]byte(`{"x":"`), bytes.Repeat([]byte("a"), MaxRequestBytes)...), `"}`...),
			wantText: "request body exceeds 3145728 bytes"},
		{name: "not JSON", body: []byte("{not json"), wantText: "decoding AdmissionReview"},
		{name: "JSON array", body: []byte(`[1,2]`), wantText: "decoding AdmissionReview"},
		{name: "JSON null", body: []byte(`null`), wantText: `expected apiVersion admission.k8s.io/v1 kind AdmissionReview, got apiVersion "" kind ""`},
		{name: "v1beta1 review", body: withReview(func(m map[string]any) { m["apiVersion"] = "admission.k8s.io/v1beta1" }),
			wantText: `got apiVersion "admission.k8s.io/v1beta1" kind "AdmissionReview"`},
		{name: "wrong kind", body: withReview(func(m map[string]any) { m["kind"] = "Status" }), wantText: `kind "Status"`},
		{name: "no request", body: withReview(func(m map[string]any) { delete(m, "request") }), wantText: "AdmissionReview has no request"},
		{name: "no uid", body: withReview(func(m map[string]any) { delete(m["request"].(map[string]any), "uid") }),
			wantText: "AdmissionReview request has no uid"},
		{name: "request of wrong type", body: withReview(func(m map[string]any) { m["request"] = "x" }), wantText: "decoding AdmissionReview"},
		{name: "trailing garbage", body: append(append([]byte{}, valid...), "}"...), wantText: "decoding AdmissionReview"},
		{name: "other path", path: "/validate", body: valid, wantCode: http.StatusNotFound, wantText: "404 page not found"},
		{name: "sub path", path: ValidatePath + "/x", body: valid, wantCode: http.StatusNotFound, wantText: "404 page not found"},
		{name: "mutate path", path: "/mutate-ogx-io-v1beta1-ogxserver", body: valid, wantCode: http.StatusNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			method := tc.method
			if method == "" {
				method = http.MethodPost
			}
			path := tc.path
			if path == "" {
				path = ValidatePath
			}
			r := httptest.NewRequest(method, path, bytes.NewReader(tc.body))
			switch tc.contentType {
			case "":
				r.Header.Set("Content-Type", "application/json")
			case "-":
			default:
				r.Header.Set("Content-Type", tc.contentType)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			wantCode := tc.wantCode
			if wantCode == 0 {
				wantCode = http.StatusBadRequest
			}
			if w.Code != wantCode {
				t.Errorf("HTTP status = %d, want %d (body %q)", w.Code, wantCode, w.Body)
			}
			if !strings.Contains(w.Body.String(), tc.wantText) {
				t.Errorf("body = %q, want it to contain %q", w.Body, tc.wantText)
			}
			if strings.HasPrefix(w.Body.String(), "{") || strings.HasPrefix(w.Header().Get("Content-Type"), "application/json") {
				t.Errorf("malformed request answered with a review: %q", w.Body)
			}
		})
	}
}

func TestHandlerAcceptsJSONWithParameters(t *testing.T) {
	h := NewHandler(HandlerOptions{})
	r := httptest.NewRequest(http.MethodPost, ValidatePath, bytes.NewReader(reviewBody(t, request(t, admissionv1.Create, validationtest.Server()))))
	r.Header.Set("Content-Type", "application/json; charset=utf-8")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != http.StatusOK {
		t.Fatalf("HTTP status = %d (%s)", w.Code, w.Body)
	}
}

// TestHandlerServesOnlyTheWebhook: the admission port carries the webhook
// path alone; health is served by the health listener, so a probe pointed at
// the webhook port must fail loudly rather than pass against the wrong
// server.
func TestHandlerServesOnlyTheWebhook(t *testing.T) {
	h := NewHandler(HandlerOptions{})
	for _, path := range []string{"/healthz", "/readyz", "/livez", "/", "/metrics"} {
		for _, method := range []string{http.MethodGet, http.MethodHead} {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest(method, path, nil))
			if w.Code != http.StatusNotFound {
				t.Errorf("%s %s = %d, want 404", method, path, w.Code)
			}
		}
	}
}

func TestHandlerAllows(t *testing.T) {
	h := NewHandler(HandlerOptions{})
	invalid := validationtest.Server(func(s *ogxv1beta1.OGXServer) { s.Spec.Distribution.Name = ptr.To("nope") })
	terminating := invalid.DeepCopy()
	now := metav1.Now()
	terminating.DeletionTimestamp = &now
	terminating.Finalizers = []string{"ogx.io/finalizer"}

	tests := []struct {
		name string
		req  *admissionv1.AdmissionRequest
	}{
		{name: "CREATE valid", req: request(t, admissionv1.Create, validationtest.Server())},
		{name: "CREATE valid with providers and models", req: request(t, admissionv1.Create, validationtest.Server(
			validationtest.RemoteInference(ogxv1beta1.RemoteInferenceProviders{Vllm: []ogxv1beta1.VLLMProvider{{Endpoint: "http://vllm:8000"}}}),
			func(s *ogxv1beta1.OGXServer) {
				s.Spec.Resources = &ogxv1beta1.ResourcesSpec{Models: []ogxv1beta1.ModelSpec{{Name: "m", Provider: "remote-vllm"}}}
			}))},
		{name: "UPDATE valid", req: func() *admissionv1.AdmissionRequest {
			r := request(t, admissionv1.Update, validationtest.Server())
			r.OldObject = rawObject(t, invalid) // the old object is ignored
			return r
		}()},
		{name: "UPDATE of a terminating invalid object", req: request(t, admissionv1.Update, terminating)},
		{name: "DELETE without object", req: request(t, admissionv1.Delete, nil)},
		{name: "DELETE of an invalid object", req: func() *admissionv1.AdmissionRequest {
			r := request(t, admissionv1.Delete, nil)
			r.OldObject = rawObject(t, invalid)
			return r
		}()},
		{name: "CONNECT", req: request(t, admissionv1.Connect, nil)},
		{name: "DELETE of another kind", req: func() *admissionv1.AdmissionRequest {
			r := request(t, admissionv1.Delete, nil)
			r.Kind = metav1.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
			return r
		}()},
		{name: "CREATE without request kind", req: func() *admissionv1.AdmissionRequest {
			r := request(t, admissionv1.Create, validationtest.Server())
			r.Kind = metav1.GroupVersionKind{}
			return r
		}()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp := answer(t, h, tc.req)
			if !resp.Allowed || resp.Result != nil {
				t.Errorf("response = allowed %v, status %+v; want allowed without status", resp.Allowed, resp.Result)
			}
		})
	}
}

// decodeAnswer returns the raw JSON of a review answer as generic values,
// so the test checks the exact wire shape rather than Go structs.
func decodeAnswer(t *testing.T, w *httptest.ResponseRecorder) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &m); err != nil {
		t.Fatalf("decoding %s: %v", w.Body, err)
	}
	return m
}

func TestHandlerDenialShapeOneError(t *testing.T) {
	h := NewHandler(HandlerOptions{})
	obj := validationtest.Server(func(s *ogxv1beta1.OGXServer) { s.Spec.Distribution.Name = ptr.To("nope") })
	w := post(h, ValidatePath, reviewBody(t, request(t, admissionv1.Create, obj)))
	if w.Code != http.StatusOK {
		t.Fatalf("HTTP status = %d", w.Code)
	}
	const detail = `unknown distribution "nope"; available distributions: meta-reference-gpu, postgres-demo, remote-vllm, starter`
	want := map[string]any{
		"apiVersion": "admission.k8s.io/v1",
		"kind":       "AdmissionReview",
		"response": map[string]any{
			"uid":     string(testUID),
			"allowed": false,
			"status": map[string]any{
				"metadata": map[string]any{},
				"status":   "Failure",
				"code":     float64(422),
				"reason":   "Invalid",
				"message":  `spec.distribution.name: Invalid value: "nope": ` + detail,
				"details": map[string]any{
					"group": "ogx.io",
					"kind":  "OGXServer",
					"name":  "llm",
					"causes": []any{map[string]any{
						"reason":  "FieldValueInvalid",
						"field":   "spec.distribution.name",
						"message": `Invalid value: "nope": ` + detail,
					}},
				},
			},
		},
	}
	if diff := cmp.Diff(want, decodeAnswer(t, w)); diff != "" {
		t.Errorf("denial (-want +got):\n%s", diff)
	}
}

func TestHandlerDenialShapeSeveralErrors(t *testing.T) {
	h := NewHandler(HandlerOptions{})
	obj := validationtest.Server(func(s *ogxv1beta1.OGXServer) {
		s.Name = "9lives"
		s.Spec.Distribution = ogxv1beta1.DistributionSpec{Image: ptr.To(" img ")}
		s.Spec.Storage = &ogxv1beta1.StateStorageSpec{KV: &ogxv1beta1.KVStorageSpec{Type: "redis"}}
	})
	resp := answer(t, h, request(t, admissionv1.Update, obj))
	if resp.Allowed || resp.Result == nil {
		t.Fatalf("response allowed %v status %v, want a denial", resp.Allowed, resp.Result)
	}
	st := resp.Result
	const (
		e1 = `spec.distribution.image: Invalid value: " img ": must not have leading or trailing whitespace`
		e2 = `metadata.name: Invalid value: "9lives": must be a lowercase RFC 1035 label (start with a letter; letters, digits and '-' only; end with a letter or digit)`
		e3 = `spec.storage.kv.endpoint: Required value: must not be empty when type is redis`
	)
	if want := "[" + e1 + ", " + e2 + ", " + e3 + "]"; st.Message != want {
		t.Errorf("message = %q\nwant      %q", st.Message, want)
	}
	if st.Code != 422 || st.Reason != metav1.StatusReasonInvalid || st.Status != metav1.StatusFailure {
		t.Errorf("code/reason/status = %d/%s/%s, want 422/Invalid/Failure", st.Code, st.Reason, st.Status)
	}
	wantDetails := &metav1.StatusDetails{Group: "ogx.io", Kind: "OGXServer", Name: "9lives", Causes: []metav1.StatusCause{
		{Type: metav1.CauseTypeFieldValueInvalid, Field: "spec.distribution.image", Message: strings.TrimPrefix(e1, "spec.distribution.image: ")},
		{Type: metav1.CauseTypeFieldValueInvalid, Field: "metadata.name", Message: strings.TrimPrefix(e2, "metadata.name: ")},
		{Type: metav1.CauseTypeFieldValueRequired, Field: "spec.storage.kv.endpoint", Message: strings.TrimPrefix(e3, "spec.storage.kv.endpoint: ")},
	}}
	if diff := cmp.Diff(wantDetails, st.Details); diff != "" {
		t.Errorf("details (-want +got):\n%s", diff)
	}
}

func TestHandlerDenialNameFromRequest(t *testing.T) {
	// The API server always sends the final name in the object; should it
	// be missing there, details.name falls back to the request's name.
	h := NewHandler(HandlerOptions{})
	obj := validationtest.Server(func(s *ogxv1beta1.OGXServer) { s.Spec.Distribution.Name = ptr.To("nope") })
	req := request(t, admissionv1.Create, obj)
	obj.Name = ""
	req.Object = rawObject(t, obj)
	req.Name = "from-request"
	resp := answer(t, h, req)
	if resp.Allowed || resp.Result.Details == nil || resp.Result.Details.Name != "from-request" {
		t.Errorf("response = %+v, want a denial naming from-request", resp.Result)
	}
}

func TestHandlerBadReviews(t *testing.T) {
	h := NewHandler(HandlerOptions{})
	withRaw := func(op admissionv1.Operation, raw string) *admissionv1.AdmissionRequest {
		r := request(t, op, validationtest.Server())
		r.Object = runtime.RawExtension{Raw: []byte(raw)}
		return r
	}
	tests := []struct {
		name    string
		req     *admissionv1.AdmissionRequest
		wantMsg string
	}{
		{name: "CREATE without object", req: request(t, admissionv1.Create, nil), wantMsg: "request has no object"},
		{name: "UPDATE with null object", req: withRaw(admissionv1.Update, "null"), wantMsg: "request has no object"},
		{name: "object is a string", req: withRaw(admissionv1.Create, `"x"`),
			wantMsg: "decoding object as ogx.io/v1beta1 OGXServer: json: cannot unmarshal string"},
		{name: "spec of wrong type", req: withRaw(admissionv1.Create, `{"apiVersion":"ogx.io/v1beta1","kind":"OGXServer","metadata":{"name":"a"},"spec":[]}`),
			wantMsg: "decoding object as ogx.io/v1beta1 OGXServer"},
		{name: "ConfigMap object", req: withRaw(admissionv1.Create, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}`),
			wantMsg: `expected object of ogx.io/v1beta1 OGXServer, got apiVersion "v1" kind "ConfigMap"`},
		{name: "other version", req: withRaw(admissionv1.Update, `{"apiVersion":"ogx.io/v1alpha1","kind":"OGXServer","metadata":{"name":"a"}}`),
			wantMsg: `got apiVersion "ogx.io/v1alpha1" kind "OGXServer"`},
		{name: "object without type", req: withRaw(admissionv1.Create, `{"metadata":{"name":"a"},"spec":{"distribution":{"name":"starter"}}}`),
			wantMsg: `got apiVersion "" kind ""`},
		{name: "terminating object of other kind", req: withRaw(admissionv1.Update,
			`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"a","deletionTimestamp":"2024-01-01T00:00:00Z"}}`),
			wantMsg: `got apiVersion "v1" kind "Secret"`},
		{name: "request kind LlamaStackDistribution", req: func() *admissionv1.AdmissionRequest {
			r := request(t, admissionv1.Create, validationtest.Server())
			r.Kind = metav1.GroupVersionKind{Group: "llamastack.io", Version: "v1alpha1", Kind: "LlamaStackDistribution"}
			return r
		}(), wantMsg: "expected a request for ogx.io/v1beta1 OGXServer, got llamastack.io/v1alpha1 LlamaStackDistribution"},
		{name: "unknown operation", req: request(t, "PATCH", validationtest.Server()), wantMsg: `unsupported operation "PATCH"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp := answer(t, h, tc.req)
			if resp.Allowed || resp.Result == nil {
				t.Fatalf("response allowed %v status %v, want a denial", resp.Allowed, resp.Result)
			}
			st := resp.Result
			if st.Code != http.StatusBadRequest || st.Reason != metav1.StatusReasonBadRequest || st.Status != metav1.StatusFailure {
				t.Errorf("code/reason/status = %d/%s/%s, want 400/BadRequest/Failure", st.Code, st.Reason, st.Status)
			}
			if !strings.Contains(st.Message, tc.wantMsg) {
				t.Errorf("message = %q, want it to contain %q", st.Message, tc.wantMsg)
			}
		})
	}
}

func TestHandlerDeniesInvalidUpdate(t *testing.T) {
	h := NewHandler(HandlerOptions{})
	obj := validationtest.Server(func(s *ogxv1beta1.OGXServer) { s.Spec.Distribution.Name = ptr.To("nope") })
	req := request(t, admissionv1.Update, obj)
	req.OldObject = rawObject(t, obj) // no ratcheting: an unchanged invalid object is still denied
	resp := answer(t, h, req)
	if resp.Allowed || resp.Result.Code != 422 {
		t.Errorf("response = allowed %v, status %+v; want a 422 denial", resp.Allowed, resp.Result)
	}
}

func TestHandlerRecoversFromPanics(t *testing.T) {
	inner := newHandler(HandlerOptions{})
	inner.validate = func(*ogxv1beta1.OGXServer) field.ErrorList { panic("boom") }
	w := post(http.HandlerFunc(inner.serveValidate), ValidatePath, reviewBody(t, request(t, admissionv1.Create, validationtest.Server())))
	var review admissionv1.AdmissionReview
	if err := json.Unmarshal(w.Body.Bytes(), &review); err != nil || w.Code != http.StatusOK {
		t.Fatalf("HTTP %d %s: %v", w.Code, w.Body, err)
	}
	if r := review.Response; r == nil || r.Allowed || r.Result.Code != http.StatusInternalServerError || r.UID != testUID {
		t.Errorf("response = %+v, want a 500 denial", review.Response)
	}
}

func TestHandlerObserve(t *testing.T) {
	var (
		mu  sync.Mutex
		got []Review
	)
	h := NewHandler(HandlerOptions{Observe: func(r Review) {
		mu.Lock()
		defer mu.Unlock()
		if r.Duration <= 0 {
			t.Errorf("review %+v has no duration", r)
		}
		r.Duration = 0
		got = append(got, r)
	}})
	answer(t, h, request(t, admissionv1.Create, validationtest.Server()))
	answer(t, h, request(t, admissionv1.Update, validationtest.Server(func(s *ogxv1beta1.OGXServer) { s.Name = "UPPER" })))
	answer(t, h, request(t, admissionv1.Create, nil))
	answer(t, h, request(t, admissionv1.Delete, nil))
	post(h, ValidatePath, []byte("{")) // malformed: not observed
	want := []Review{
		{Operation: admissionv1.Create, Allowed: true},
		{Operation: admissionv1.Update, Code: 422},
		{Operation: admissionv1.Create, Code: 400},
		{Operation: admissionv1.Delete, Allowed: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("observed reviews (-want +got):\n%s", diff)
	}
}

// TestHandlerCapsReviewsInFlight: while the only slot is held by a review
// whose body is still arriving, another request waits InFlightWait and is
// answered 429 without its body being read; once the slot is free a valid
// review is answered again.
func TestHandlerCapsReviewsInFlight(t *testing.T) {
	h := NewHandler(HandlerOptions{MaxInFlight: 1, InFlightWait: 20 * time.Millisecond})
	valid := reviewBody(t, request(t, admissionv1.Create, validationtest.Server()))

	body, feed := io.Pipe()
	slow := httptest.NewRequest(http.MethodPost, ValidatePath, body)
	slow.Header.Set("Content-Type", "application/json")
	done := make(chan int, 1)
	go func() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, slow)
		done <- w.Code
	}()
	// The write returns once the handler reads the body: it holds the slot.
	if _, err := feed.Write(valid[:1]); err != nil {
		t.Fatal(err)
	}

	w := post(h, ValidatePath, valid)
	if w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") == "" {
		t.Fatalf("second review: %d (Retry-After %q), want 429 with Retry-After; body %s",
			w.Code, w.Header().Get("Retry-After"), w.Body)
	}

	_ = feed.CloseWithError(io.ErrUnexpectedEOF)
	if code := <-done; code != http.StatusBadRequest {
		t.Errorf("the cut-off review: %d, want 400", code)
	}
	if w := post(h, ValidatePath, valid); w.Code != http.StatusOK {
		t.Errorf("a review after the slot was freed: %d, want 200; body %s", w.Code, w.Body)
	}
}

// TestHandlerBoundsBytesInFlight: a body declared at MaxRequestBytes takes
// the whole byte budget while it arrives, so another large body waits and
// is answered 429, while a small review is not charged and passes; a body
// declared above MaxRequestBytes is refused without being read.
func TestHandlerBoundsBytesInFlight(t *testing.T) {
	h := NewHandler(HandlerOptions{MaxInFlight: 4, MaxInFlightBytes: 1, InFlightWait: 20 * time.Millisecond})
	valid := reviewBody(t, request(t, admissionv1.Create, validationtest.Server()))
	large := func(body io.Reader) *http.Request {
		r := httptest.NewRequest(http.MethodPost, ValidatePath, body)
		r.Header.Set("Content-Type", "application/json")
		r.ContentLength = MaxRequestBytes
		return r
	}

	body, feed := io.Pipe()
	done := make(chan int, 1)
	go func() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, large(body))
		done <- w.Code
	}()
	if _, err := feed.Write([]byte("{")); err != nil { // returns once the handler reads
		t.Fatal(err)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, large(unreadable{t}))
	if w.Code != http.StatusTooManyRequests {
		t.Fatalf("a second large body while the budget is taken: %d, want 429; body %s", w.Code, w.Body)
	}
	if w := post(h, ValidatePath, valid); w.Code != http.StatusOK {
		t.Errorf("a small review while the budget is taken: %d, want 200; body %s", w.Code, w.Body)
	}
	_ = feed.CloseWithError(io.ErrUnexpectedEOF)
	if code := <-done; code != http.StatusBadRequest {
		t.Errorf("the cut-off review: %d, want 400", code)
	}

	over := httptest.NewRequest(http.MethodPost, ValidatePath, unreadable{t})
	over.Header.Set("Content-Type", "application/json")
	over.ContentLength = MaxRequestBytes + 1
	w = httptest.NewRecorder()
	h.ServeHTTP(w, over)
	if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "request body exceeds") {
		t.Errorf("a body declared over the limit: %d %q, want 400 naming the limit", w.Code, w.Body)
	}
}

// unreadable fails the test when read.
type unreadable struct{ t *testing.T }

func (u unreadable) Read([]byte) (int, error) {
	u.t.Error("the body was read")
	return 0, io.EOF
}

// TestHandlerBodyTimeoutFreesTheSlot: a review whose body stops arriving
// loses its slot after BodyTimeout (answered 400), so the next review is
// served instead of waiting for the listener's read timeout.
func TestHandlerBodyTimeoutFreesTheSlot(t *testing.T) {
	srv := httptest.NewServer(NewHandler(HandlerOptions{MaxInFlight: 1, InFlightWait: 10 * time.Second, BodyTimeout: 200 * time.Millisecond}))
	defer srv.Close()
	conn, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// Headers and ten of the thousand bytes declared, then nothing.
	if _, err := fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"kind\":\"A", ValidatePath); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer to the stalled body: %v", err)
	}
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("stalled body answered %d, want 400", resp.StatusCode)
	}
	valid := reviewBody(t, request(t, admissionv1.Create, validationtest.Server()))
	r, err := http.Post(srv.URL+ValidatePath, "application/json", bytes.NewReader(valid))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	if r.StatusCode != http.StatusOK {
		t.Errorf("the next review got %d, want 200: the slot was not freed", r.StatusCode)
	}
}
