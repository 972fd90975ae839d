package metrics

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestWrapTransportCountsEveryWrite(t *testing.T) {
	m := New("v")
	rt := m.WrapTransport(roundTripFunc(func(req *http.Request) (*http.Response, error) {
		return httptest.NewRecorder().Result(), nil
	}))
	send := func(method, path, contentType string) {
		t.Helper()
		req := httptest.NewRequest(method, "https://api.example"+path, nil)
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		if _, err := rt.RoundTrip(req); err != nil {
			t.Fatal(err)
		}
	}
	send(http.MethodPatch, "/apis/apps/v1/namespaces/ns/deployments/d", "application/apply-patch+yaml")
	send(http.MethodPatch, "/apis/apps/v1/namespaces/ns/deployments/d", "application/merge-patch+json")
	send(http.MethodPatch, "/apis/ogx.io/v1beta1/namespaces/ns/ogxservers/s/status", "application/apply-patch+yaml")
	send(http.MethodPost, "/api/v1/namespaces/ns/persistentvolumeclaims", "application/json")
	send(http.MethodPost, "/apis/events.k8s.io/v1/namespaces/ns/events", "application/json")
	send(http.MethodPut, "/apis/coordination.k8s.io/v1/namespaces/ogx-system/leases/ogx-controller", "application/json")
	send(http.MethodDelete, "/api/v1/namespaces/ns/configmaps/old", "")
	send(http.MethodPost, "/api/v1/namespaces", "application/json")
	send(http.MethodGet, "/api/v1/namespaces/ns/pods", "")
	send(http.MethodPost, "/apis/authentication.k8s.io/v1/tokenreviews", "application/json")
	send(http.MethodPost, "/apis/authorization.k8s.io/v1/subjectaccessreviews", "application/json")
	for _, c := range []struct{ resource, verb string }{
		{"deployments", VerbApply}, {"deployments", VerbPatch}, {"ogxservers/status", VerbApply},
		{"persistentvolumeclaims", VerbCreate}, {"events", VerbCreate}, {"leases", VerbUpdate},
		{"configmaps", VerbDelete}, {"namespaces", VerbCreate},
	} {
		if got := value(t, m, "ogx_controller_writes_total", map[string]string{"resource": c.resource, "verb": c.verb}); got != 1 {
			t.Errorf("writes_total{%s,%s} = %v, want 1", c.resource, c.verb, got)
		}
	}
	for _, r := range []string{"pods", "tokenreviews", "subjectaccessreviews"} {
		if got := find(t, m, "ogx_controller_writes_total", map[string]string{"resource": r}); got != nil {
			t.Errorf("%s counted as a write", r)
		}
	}
}

func TestResourceOf(t *testing.T) {
	for path, want := range map[string]string{
		"/api/v1/namespaces/ns/services/s":                        "services",
		"/api/v1/namespaces/ns":                                   "namespaces",
		"/api/v1/namespaces/ns/status":                            "namespaces/status",
		"/apis/apps/v1/namespaces/ns/deployments/d/scale":         "deployments/scale",
		"/apis/apiextensions.k8s.io/v1/customresourcedefinitions": "customresourcedefinitions",
		"/healthz": "other",
	} {
		if got := resourceOf(path); got != want {
			t.Errorf("resourceOf(%s) = %q, want %q", path, got, want)
		}
	}
}
