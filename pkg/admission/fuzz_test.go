package admission

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1/validation/validationtest"
	"k8s.io/utils/ptr"

	admissionv1 "k8s.io/api/admission/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

// FuzzHandler posts arbitrary bodies to the webhook path. Whatever the body,
// the handler must not panic and must answer either HTTP 400 (not a review)
// or HTTP 200 with a well-formed review answer echoing the request's uid;
// a denial carries code 400 or 422, never 500 (which would mean the
// validator panicked). The seeds run as part of every `go test`.
func FuzzHandler(f *testing.F) {
	seeds := []*admissionv1.AdmissionRequest{
		request(f, admissionv1.Create, validationtest.Server()),
		request(f, admissionv1.Update, validationtest.Server(func(s *ogxv1beta1.OGXServer) { s.Spec.Distribution.Name = ptr.To("nope") })),
		request(f, admissionv1.Delete, nil),
		request(f, admissionv1.Connect, nil),
		request(f, admissionv1.Create, nil),
		request(f, admissionv1.Create, validationtest.Server(func(s *ogxv1beta1.OGXServer) {
			s.Name = "x-"
			s.Annotations = map[string]string{ogxv1beta1.AnnotationAdoptStorage: "x-", ogxv1beta1.AnnotationAdoptNetworking: "Bad"}
			s.Spec.Distribution = ogxv1beta1.DistributionSpec{Name: ptr.To(""), Image: ptr.To(" ")}
			s.Spec.Storage = &ogxv1beta1.StateStorageSpec{KV: &ogxv1beta1.KVStorageSpec{Type: "redis"}}
			s.Spec.Resources = &ogxv1beta1.ResourcesSpec{Models: []ogxv1beta1.ModelSpec{{Name: "m", Provider: "p"}}}
			s.Spec.Providers = &ogxv1beta1.ProvidersSpec{Inference: &ogxv1beta1.InferenceProviders{Remote: &ogxv1beta1.RemoteInferenceProviders{
				Vllm: []ogxv1beta1.VLLMProvider{{Endpoint: "a"}, {Endpoint: "b"}},
				Custom: []ogxv1beta1.CustomProvider{
					{Type: "remote::", Settings: &apiextensionsv1.JSON{Raw: []byte(`[1]`)}},
					{Type: "inline::x", Settings: &apiextensionsv1.JSON{Raw: []byte(`{"k":1}`)},
						SecretRefs: map[string]ogxv1beta1.SecretKeyRef{"k": validationtest.Key("s", "k")}},
				},
			}}}
		})),
	}
	for _, req := range seeds {
		f.Add(reviewBody(f, req))
	}
	for _, raw := range []string{
		``, `{`, `null`, `[]`, `"x"`, `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}`,
		`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","operation":"CREATE","object":{}}}`,
		`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","operation":"CREATE","object":"x"}}`,
		`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","operation":"UPDATE",` +
			`"object":{"apiVersion":"ogx.io/v1beta1","kind":"OGXServer","metadata":{"deletionTimestamp":"2024-01-01T00:00:00Z"}}}}`,
		`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","operation":"CREATE",` +
			`"object":{"apiVersion":"ogx.io/v1beta1","kind":"OGXServer","metadata":{"name":"a"},"spec":{"providers":{"inference":{"remote":{"custom":[{"type":"remote::x","settings":null}]}}}}}}}`,
		`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","operation":"CREATE",` +
			`"object":{"apiVersion":"ogx.io/v1beta1","kind":"OGXServer","metadata":{"name":"a"},"spec":{"resources":{"models":[{"provider":"x"}]},"providers":{}}}}}`,
	} {
		f.Add([]byte(raw))
	}

	h := NewHandler(HandlerOptions{})
	f.Fuzz(func(t *testing.T, body []byte) { checkAnswer(t, h, body) })
}

// FuzzReviewObject wraps arbitrary bytes as the object of an otherwise
// well-formed review, so the fuzzer spends its time in object decoding and
// the validator rather than in the AdmissionReview envelope.
func FuzzReviewObject(f *testing.F) {
	f.Add("CREATE", []byte(rawObject(f, validationtest.Server()).Raw))
	f.Add("UPDATE", []byte(rawObject(f, validationtest.Server(func(s *ogxv1beta1.OGXServer) { s.Name = "Bad" })).Raw))
	f.Add("CREATE", []byte(`{"apiVersion":"ogx.io/v1beta1","kind":"OGXServer","metadata":{"name":"a","annotations":{"ogx.io/adopt-storage":"a"}},`+
		`"spec":{"distribution":{"image":""},"storage":{"kv":{"type":"redis"}},"resources":{"models":[{"name":"m","provider":"x"}]},`+
		`"providers":{"inference":{"remote":{"vllm":[{"endpoint":"a"},{"endpoint":"b"}],"custom":[{"type":"inline::","settings":"s"},`+
		`{"type":"remote::x","settings":{"k":1},"secretRefs":{"k":{"name":"s","key":"k"}}}]}}}}}`))
	f.Add("UPDATE", []byte(`{"apiVersion":"ogx.io/v1beta1","kind":"OGXServer","metadata":{"deletionTimestamp":"2024-01-01T00:00:00Z"}}`))
	f.Add("DELETE", []byte(`null`))
	h := NewHandler(HandlerOptions{})
	f.Fuzz(func(t *testing.T, op string, object []byte) {
		opJSON, _ := json.Marshal(op) // a Go string always marshals

		body := []byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"fuzz","operation":` +
			string(opJSON) + `,"object":` + string(object) + `}}`)
		checkAnswer(t, h, body)
	})
}

// checkAnswer posts body and checks the invariants of every answer: HTTP 400
// without a review, or HTTP 200 with a well-formed review echoing the uid,
// whose denials carry code 400 or 422 (422 with causes), never 500.
func checkAnswer(t *testing.T, h http.Handler, body []byte) {
	t.Helper()
	w := post(h, ValidatePath, body)
	switch w.Code {
	case http.StatusBadRequest:
		if bytes.HasPrefix(w.Body.Bytes(), []byte("{")) {
			t.Fatalf("HTTP 400 with a JSON body: %s", w.Body)
		}
		return
	case http.StatusOK:
	default:
		t.Fatalf("HTTP status %d: %s", w.Code, w.Body)
	}
	var in admissionv1.AdmissionReview
	if err := json.Unmarshal(body, &in); err != nil || in.Request == nil {
		t.Fatalf("answered a body that is not a review (%v): %q", err, body)
	}
	var out admissionv1.AdmissionReview
	if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil {
		t.Fatalf("answer does not decode: %v: %s", err, w.Body)
	}
	if out.APIVersion != "admission.k8s.io/v1" || out.Kind != "AdmissionReview" || out.Response == nil {
		t.Fatalf("malformed answer: %s", w.Body)
	}
	if out.Response.UID != in.Request.UID || out.Response.UID == "" {
		t.Fatalf("answer uid %q, request uid %q", out.Response.UID, in.Request.UID)
	}
	r := out.Response
	if r.Allowed {
		if r.Result != nil {
			t.Fatalf("allowed with a status: %s", w.Body)
		}
		return
	}
	if r.Result == nil || r.Result.Status != metav1.StatusFailure || r.Result.Message == "" {
		t.Fatalf("denial without a failure status and message: %s", w.Body)
	}
	switch r.Result.Code {
	case http.StatusBadRequest:
	case http.StatusUnprocessableEntity:
		if r.Result.Details == nil || len(r.Result.Details.Causes) == 0 {
			t.Fatalf("422 denial without causes: %s", w.Body)
		}
	default:
		t.Fatalf("denial with code %d: %s", r.Result.Code, w.Body)
	}
}
