package controller

import (
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
	uidStore[string]
}

// check emits ServerTLSNotConfigured when server TLS is on in override mode
// and the override config (text, hash) does not configure it.
func (w *tlsWarnings) check(s *ogxv1beta1.OGXServer, text, hash string, events eventSink) {
	if s.Spec.ServerTLS() == nil || s.Spec.ConfigMode() != ogxv1beta1.ConfigModeOverride || overrideSetsServerTLS(text) {
		return
	}
	warned := false
	w.update(s.UID, func(prev string, ok bool) (string, bool) {
		// No record is the empty hash: nothing to keep for it.
		warned = prev == hash
		return hash, ok || !warned
	})
	if !warned {
		events.warn(s, "ServerTLSNotConfigured", serverTLSNotConfigured)
	}
}
