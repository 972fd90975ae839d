package oci

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"os"
	"syscall"
	"time"
)

// Defaults (docs/config-generation.md, Platform selection, Limits and
// timeouts).
const (
	DefaultPlatform = "linux/amd64"
	DefaultTimeout  = 30 * time.Second

	dialTimeout           = 5 * time.Second
	tlsHandshakeTimeout   = 5 * time.Second
	responseHeaderTimeout = 10 * time.Second
	maxRedirects          = 10
)

// Options configure a Resolver.
type Options struct {
	// Client sends every request. Nil means NewHTTPClient(RootCAs). A
	// redirect policy is added when the client has none.
	Client *http.Client
	// Platform is os/arch[/variant], picked from an image index
	// (--base-config-platform); empty means linux/amd64.
	Platform string
	// InsecureHosts may fall back to plain HTTP after an HTTPS transport
	// failure (--insecure-registry), as host or host:port. Loopback hosts
	// always may.
	InsecureHosts []string
	// TokenHosts may serve token realms for any registry
	// (--registry-token-host), as host names; a realm on the registry's own
	// host or its registrable domain needs no entry (realmAllowed). Nil
	// means DefaultTokenHosts.
	TokenHosts []string
	// AllowedRegistries, when not empty, are the only registries contacted
	// (--allowed-registry): a registry domain as an image reference names it
	// (docker.io, quay.io, host:port), or *.domain for any host under
	// domain (a port is part of the name: host:5000 is another registry).
	// Redirects and token realms follow their own rules.
	AllowedRegistries []string
	// DetailedErrors puts the network's reason for a failed request in
	// UnavailableError's text (the render command); the controller keeps it
	// for the log.
	DetailedErrors bool
	// RootCAs are the trusted roots of the default client; nil means the
	// system roots. See LoadCAPool.
	RootCAs *x509.CertPool
	// Timeout bounds one whole resolution (--oci-timeout); zero means 30 s.
	Timeout time.Duration
	// Now is the clock for token lifetimes; nil means time.Now.
	Now func() time.Time
}

// DefaultTokenHost is the token service of a well-known registry outside
// the registry's own domain: registry.redhat.io hands out its tokens from
// sso.redhat.com.
const DefaultTokenHost = "sso.redhat.com"

// dialControl, when set, vets every dial of clients made by NewHTTPClient.
// Tests set it to refuse any non-loopback address, so that no unit test can
// ever reach the network.
var dialControl func(network, address string, c syscall.RawConn) error

// NewHTTPClient is the client used when Options.Client is nil: the proxy of
// the environment (HTTPS_PROXY, HTTP_PROXY, NO_PROXY) and the dial, TLS
// handshake and response-header timeouts (5 s, 5 s, 10 s). Redirects are
// limited by the Resolver.
func NewHTTPClient(roots *x509.CertPool) *http.Client {
	dialer := &net.Dialer{Timeout: dialTimeout, KeepAlive: 30 * time.Second, Control: dialControl}
	return &http.Client{Transport: &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           dialer.DialContext,
		TLSClientConfig:       &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12},
		TLSHandshakeTimeout:   tlsHandshakeTimeout,
		ResponseHeaderTimeout: responseHeaderTimeout,
		MaxIdleConns:          16,
		IdleConnTimeout:       90 * time.Second,
		ForceAttemptHTTP2:     true,
	}}
}

// LoadCAPool returns the system roots plus the PEM certificates of file
// (--registry-ca-file). An empty file name gives nil, the system roots.
func LoadCAPool(file string) (*x509.CertPool, error) {
	if file == "" {
		return nil, nil
	}
	pem, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("reading registry CA file: %w", err)
	}
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("registry CA file %s holds no PEM certificate", file)
	}
	return pool, nil
}
