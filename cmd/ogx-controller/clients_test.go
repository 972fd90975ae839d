package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/metrics"
)

// TestClientsContentTypes: the clients of built-in kinds ask for protobuf
// (cheaper to decode, docs/performance.md), the OGXServer client asks for
// JSON, the only form the API server serves custom resources in, and none
// asks for compressed responses.
func TestClientsContentTypes(t *testing.T) {
	var mu sync.Mutex
	accept := map[string]string{}
	var encodings []string
	// TLS, as an API server speaks: without a TLS config client-go uses
	// http.DefaultTransport, which ignores DisableCompression.
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		accept[r.URL.Path] = r.Header.Get("Accept")
		encodings = append(encodings, r.Header.Values("Accept-Encoding")...)
		mu.Unlock()
		http.Error(w, "not here", http.StatusNotFound)
	}))
	defer srv.Close()
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kubeconfig, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "`+srv.URL+`", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
`), 0o600); err != nil {
		t.Fatal(err)
	}
	o, err := parseTestFlags("--kubeconfig=" + kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	c, err := newClients(o, metrics.New("test"), "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	get := metav1.GetOptions{}
	_, _ = c.kube.AppsV1().Deployments("ns").Get(ctx, "kube", get)
	_, _ = c.events.CoreV1().ConfigMaps("ns").Get(ctx, "events", get)
	_, _ = c.lease.CoordinationV1().Leases("ns").Get(ctx, "lease", get)
	_, _ = c.ogx.OgxV1beta1().OGXServers("ns").Get(ctx, "ogx", get)
	// The monitoring kinds' client shares the kube client's HTTP client.
	dyn, err := base.DynamicClientFor(c.kube)
	if err != nil || dyn == nil {
		t.Fatalf("dynamic client: %v, %v", dyn, err)
	}
	monitors := schema.GroupVersionResource{Group: "monitoring.coreos.com", Version: "v1", Resource: "servicemonitors"}
	_, _ = dyn.Resource(monitors).Namespace("ns").Get(ctx, "dyn", get)
	const protobuf = "application/vnd.kubernetes.protobuf,application/json"
	want := map[string]string{
		"/apis/apps/v1/namespaces/ns/deployments/kube":                     protobuf,
		"/api/v1/namespaces/ns/configmaps/events":                          protobuf,
		"/apis/coordination.k8s.io/v1/namespaces/ns/leases/lease":          protobuf,
		"/apis/ogx.io/v1beta1/namespaces/ns/ogxservers/ogx":                "application/json, */*",
		"/apis/monitoring.coreos.com/v1/namespaces/ns/servicemonitors/dyn": "application/json",
	}
	mu.Lock()
	defer mu.Unlock()
	if diff := cmp.Diff(want, accept); diff != "" {
		t.Errorf("Accept headers by path (-want +got):\n%s", diff)
	}
	// Uncompressed responses (restConfig): no client offers gzip.
	if len(encodings) != 0 {
		t.Errorf("Accept-Encoding sent: %q", encodings)
	}
}
