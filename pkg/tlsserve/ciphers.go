package tlsserve

import "crypto/tls"

// CipherSuites are the TLS 1.2 suites the listeners accept: ECDHE key
// exchange with an AEAD cipher only. Go's defaults also keep CBC suites
// with SHA-1 MACs for old clients; the webhook's and the metrics' clients
// (the API server, Prometheus) all speak these. TLS 1.3 suites are not
// configurable and are all AEAD.
func CipherSuites() []uint16 {
	return []uint16{
		tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
		tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
		tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
		tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
		tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
		tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
	}
}
