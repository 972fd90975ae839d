package controller

import (
	"sync"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

// serverTLSNotConfigured is the note of the ServerTLSNotConfigured Warning
// (docs/config-generation.md, TLS).
const serverTLSNotConfigured = "spec.network.tls is set but the override config does not set server.tls_certfile; " +
	"use ${env.OGX_TLS_CERTFILE} and ${env.OGX_TLS_KEYFILE}"

// overrideSetsServerTLS reports whether a user's config.yaml sets
// server.tls_certfile. Unparsable text counts as not setting it.
func overrideSetsServerTLS(configYAML string) bool {
	var cfg struct {
		Server struct {
			TLSCertFile any `json:"tls_certfile"`
		} `json:"server"`
	}
	if err := yaml.Unmarshal([]byte(configYAML), &cfg); err != nil {
		return false
	}
	v, ok := cfg.Server.TLSCertFile.(string)
	return ok && v != ""
}

// tlsWarnings remembers which override config (by content hash) was
// already warned about per OGXServer, so the Warning is recorded once per
// config, not on every pass.
type tlsWarnings struct {
	mu     sync.Mutex
	warned map[types.UID]string
}

// check emits ServerTLSNotConfigured when server TLS is on in override mode
// and the override config (text, hash) does not configure it.
func (w *tlsWarnings) check(s *ogxv1beta1.OGXServer, text, hash string, events eventSink) {
	if s.Spec.ServerTLS() == nil || s.Spec.ConfigMode() != ogxv1beta1.ConfigModeOverride || overrideSetsServerTLS(text) {
		return
	}
	w.mu.Lock()
	if w.warned == nil {
		w.warned = map[types.UID]string{}
	}
	if w.warned[s.UID] == hash {
		w.mu.Unlock()
		return
	}
	w.warned[s.UID] = hash
	w.mu.Unlock()
	events.warn(s, "ServerTLSNotConfigured", serverTLSNotConfigured)
}

// forget drops a deleted server's record.
func (w *tlsWarnings) forget(uid types.UID) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.warned, uid)
}

// retain is forget for every server that is not live (Manager.sweep).
func (w *tlsWarnings) retain(live func(types.UID) bool) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return retainLive(w.warned, live)
}
