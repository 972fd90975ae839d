package deployment

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/events"
	"github.com/ogx-k8s/ogx-controller/pkg/resolve"
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

// warnServerTLS sends ServerTLSNotConfigured once per override config (by
// its hash) while server TLS is on in override mode and that config does
// not configure it; it is sent again only for another config, or when the
// cause went away and came back.
func warnServerTLS(ctx context.Context, r *base.Resolver, sink *events.Sink, s *ogxv1beta1.OGXServer, configHash string) {
	holds := false
	if s.Spec.ServerTLS() != nil && s.Spec.ConfigMode() == ogxv1beta1.ConfigModeOverride {
		text, err := r.ConfigMapKey(ctx, s.Namespace, *s.Spec.OverrideConfig, "spec.overrideConfig",
			resolve.PrefixConfigMap, "override config")
		if err != nil {
			// Unknown: the pass fails on the same read, and a transient
			// error must not end the Warning and send it again.
			return
		}
		holds = !overrideSetsServerTLS(text)
	}
	sink.While(s, corev1.EventTypeWarning, ogxv1beta1.EventServerTLSNotConfigured, configHash, serverTLSNotConfigured, holds)
}
