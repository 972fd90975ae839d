package resolve

import "fmt"

// Messages for causes that both the controllers and the render command
// report, so one cause reads the same wherever it is seen: in a condition,
// an Event or render's stderr.

// MissingConfigMapKeyMessage: a referenced ConfigMap lacks the key; what
// names the reference ("base ConfigMap", "override config", ...).
func MissingConfigMapKeyMessage(what, namespace, name, key string) string {
	return fmt.Sprintf("failed to find %s key '%s' in ConfigMap %s/%s", what, key, namespace, name)
}

// MissingServerTLSKeyMessage: the serving Secret of spec.network.tls lacks
// tls.crt or tls.key.
func MissingServerTLSKeyMessage(namespace, name, key string) string {
	return fmt.Sprintf("server TLS Secret %s/%s lacks key %s", namespace, name, key)
}

// MissingSecretKeyMessage: a Secret referenced for an environment variable
// lacks the key.
func MissingSecretKeyMessage(namespace, name, key, env string) string {
	return fmt.Sprintf("Secret %s/%s has no key %q (env %s)", namespace, name, key, env)
}

// WhatBaseConfig names spec.baseConfig's ConfigMap in messages.
const WhatBaseConfig = "base ConfigMap"
