package controller

import "testing"

func TestOverrideSetsServerTLS(t *testing.T) {
	for text, want := range map[string]bool{
		"version: 2\nserver:\n  tls_certfile: ${env.OGX_TLS_CERTFILE}\n": true,
		"version: 2\nserver:\n  port: 8321\n":                            false,
		"version: 2\n":                                                   false,
		"server:\n  tls_certfile: \"\"\n":                                false,
		"{not yaml":                                                      false,
	} {
		if got := overrideSetsServerTLS(text); got != want {
			t.Errorf("overrideSetsServerTLS(%q) = %v, want %v", text, got, want)
		}
	}
}
