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
	send(http.MethodPost, "/apis/example.io/v1/namespaces/ns/widgets", "application/json")
	for _, c := range []struct{ kind, verb string }{
		{"Deployment", VerbApply}, {"Deployment", VerbPatch}, {"OGXServer/status", VerbApply},
		{"PersistentVolumeClaim", VerbCreate}, {"Event", VerbCreate}, {"Lease", VerbUpdate},
		{"ConfigMap", VerbDelete}, {"Namespace", VerbCreate}, {"widgets", VerbCreate},
	} {
		if got := value(t, m, "ogx_controller_writes_total", map[string]string{"kind": c.kind, "verb": c.verb}); got != 1 {
			t.Errorf("writes_total{%s,%s} = %v, want 1", c.kind, c.verb, got)
		}
	}
	for _, k := range []string{"Pod", "pods", "tokenreviews", "subjectaccessreviews"} {
		if got := find(t, m, "ogx_controller_writes_total", map[string]string{"kind": k}); got != nil {
			t.Errorf("%s counted as a write", k)
		}
	}
	// The labels are exactly kind and verb (docs/operations-monitoring.md,
	// the controller's metrics): dashboards and alerts select on them.
	for _, metric := range gather(t, m)["ogx_controller_writes_total"].GetMetric() {
		var names []string
		for _, lp := range metric.GetLabel() {
			names = append(names, lp.GetName())
		}
		if len(names) != 2 || names[0] != "kind" || names[1] != "verb" {
			t.Errorf("writes_total labels %v, want [kind verb]", names)
		}
	}
}

func TestKindOf(t *testing.T) {
	for resource, want := range map[string]string{
		"deployments":       "Deployment",
		"ogxservers/status": "OGXServer/status",
		"deployments/scale": "Deployment/scale",
		"widgets":           "widgets",
		"other":             "other",
	} {
		if got := kindOf(writtenKinds(), resource); got != want {
			t.Errorf("kindOf(%s) = %q, want %q", resource, got, want)
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
