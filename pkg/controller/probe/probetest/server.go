// Package probetest holds a stand-in OGX server for tests of the server
// probe.
package probetest

import (
	"net/http"
	"sync/atomic"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

// Server is a stand-in OGX server for tests of the probe; serve it with
// net/http/httptest on loopback. Its /v1/health answers Health (an HTTP code),
// /v1/version and /v1/providers answer the given bodies (404 when empty).
type Server struct {
	Health    atomic.Int32
	Version   atomic.Value // string
	Providers atomic.Value // string
	Requests  atomic.Int32
	Auth      atomic.Int32 // requests carrying credentials
}

// NewServer answers health, version and providers until told otherwise.
func NewServer(health int, version, providers string) *Server {
	p := &Server{}
	p.Health.Store(int32(health))
	p.Version.Store(version)
	p.Providers.Store(providers)
	return p
}

// ServeHTTP counts the request and answers it.
func (p *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.Requests.Add(1)
	if r.Header.Get("Authorization") != "" || r.Method != http.MethodGet {
		p.Auth.Add(1)
	}
	body := ""
	switch r.URL.Path {
	case "/v1/health":
		w.WriteHeader(int(p.Health.Load()))
		_, _ = w.Write([]byte(`{"status":"OK"}`))
		return
	case "/v1/version":
		body = p.Version.Load().(string)
	case "/v1/providers":
		body = p.Providers.Load().(string)
	}
	if body == "" {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(body))
}

// ProvidersBody is a /v1/providers answer with entries the probe must
// drop (no API, no type) or fill in (no health, no config).
const ProvidersBody = `{"data": [
 {"api": "vector_io", "provider_id": "faiss", "provider_type": "inline::faiss", "config": {"kvstore": {"type": "sqlite"}}, "health": {"status": "OK", "message": ""}},
 {"api": "inference", "provider_id": "vllm", "provider_type": "remote::vllm", "config": null},
 {"api": "inference", "provider_id": "", "provider_type": "remote::x"},
 {"provider_id": "orphan", "provider_type": "remote::x"},
 {"api": "inference", "provider_id": "no-type"},
 {"api": "inference", "provider_id": "bedrock", "provider_type": "remote::bedrock", "health": {"status": "Error", "message": "no credentials"}},
 {"api": "agents", "provider_id": "meta", "provider_type": "inline::meta-reference"}
]}`

// WantProviders is what the probe reports for ProvidersBody.
func WantProviders() []ogxv1beta1.ProviderInfo {
	notImpl := ogxv1beta1.ProviderHealthStatus{Status: "Not Implemented", Message: "health not reported"}
	return []ogxv1beta1.ProviderInfo{
		{API: "agents", ProviderID: "meta", ProviderType: "inline::meta-reference", Config: apiextensionsv1.JSON{Raw: []byte(`{}`)}, Health: notImpl},
		{API: "inference", ProviderID: "bedrock", ProviderType: "remote::bedrock", Config: apiextensionsv1.JSON{Raw: []byte(`{}`)},
			Health: ogxv1beta1.ProviderHealthStatus{Status: "Error", Message: "no credentials"}},
		{API: "inference", ProviderID: "vllm", ProviderType: "remote::vllm", Config: apiextensionsv1.JSON{Raw: []byte(`{}`)}, Health: notImpl},
		{API: "vector_io", ProviderID: "faiss", ProviderType: "inline::faiss", Config: apiextensionsv1.JSON{Raw: []byte(`{"kvstore": {"type": "sqlite"}}`)},
			Health: ogxv1beta1.ProviderHealthStatus{Status: "OK", Message: ""}},
	}
}
