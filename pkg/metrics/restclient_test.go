package metrics

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// installed is the Metrics that installed client-go's hooks in this test
// process: they are process-wide and set once, so with -count > 1 the later
// runs keep checking the first run's Metrics.
var installed struct {
	once sync.Once
	m    *Metrics
	ok   bool
}

func TestRegisterClientGoMetrics(t *testing.T) {
	installed.once.Do(func() {
		installed.m = New("dev")
		installed.ok = installed.m.RegisterClientGoMetrics()
	})
	if !installed.ok {
		t.Fatalf("the first RegisterClientGoMetrics did not install the adapters")
	}
	m := installed.m
	if m.RegisterClientGoMetrics() {
		t.Errorf("second call on the same Metrics reported an install")
	}
	other := New("other")
	if other.RegisterClientGoMetrics() {
		t.Errorf("a second Metrics reported an install")
	}

	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}`, http.StatusNotFound)
	}))
	defer api.Close()
	kube, err := kubernetes.NewForConfig(&rest.Config{Host: api.URL, QPS: -1})
	if err != nil {
		t.Fatal(err)
	}
	_, err = kube.CoreV1().Namespaces().Get(context.Background(), "missing", metav1.GetOptions{})
	if err == nil {
		t.Fatalf("expected a NotFound error")
	}
	u, _ := url.Parse(api.URL)
	// Each run has its own API server, so its own host label.
	if got := value(t, m, "rest_client_requests_total", map[string]string{"code": "404", "method": "GET", "host": u.Host}); got != 1 {
		t.Errorf("rest_client_requests_total{404,GET} = %v, want 1", got)
	}
	if got := value(t, m, "rest_client_request_duration_seconds", map[string]string{"verb": "GET", "host": u.Host}); got != 1 {
		t.Errorf("rest_client_request_duration_seconds samples = %v, want 1", got)
	}
	if find(t, other, "rest_client_requests_total", nil) != nil {
		t.Errorf("requests counted on the Metrics that did not register")
	}
}
