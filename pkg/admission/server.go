package admission

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"time"

	"k8s.io/klog/v2"

	"github.com/ogx-k8s/ogx-controller/pkg/tlsserve"
)

const (
	// DefaultAddr is the admission listener's default address.
	DefaultAddr = ":9443"

	// ShutdownTimeout is how long Shutdown lets in-flight reviews finish
	// before it closes their connections.
	ShutdownTimeout = tlsserve.ShutdownTimeout

	// The API server gives a review at most timeoutSeconds (10 s); these
	// bound slow or idle clients well beyond that.
	readHeaderTimeout = 10 * time.Second
	readTimeout       = 20 * time.Second
	writeTimeout      = 20 * time.Second
	idleTimeout       = 90 * time.Second
	maxHeaderBytes    = 64 << 10
)

// ServerOptions configures NewServer.
type ServerOptions struct {
	// Addr is the TCP address to listen on; empty means DefaultAddr. A port
	// of 0 picks a free port (see Server.Addr).
	Addr string

	// CertDir holds the serving pair as tls.crt and tls.key. Required.
	CertDir string

	// MinTLSVersion is the lowest TLS version accepted; 0 means TLS 1.2.
	MinTLSVersion uint16

	// EnableHTTP2 offers HTTP/2 through ALPN. Off by default, as hardening
	// against HTTP/2 stream abuse (rapid reset); the API server's webhook
	// client works with HTTP/1.1.
	EnableHTTP2 bool

	// ReloadInterval is how often the certificate files are re-read; zero
	// means tlsserve.DefaultReloadInterval.
	ReloadInterval time.Duration

	// Handler serves the requests; nil means NewHandler(HandlerOptions{}).
	Handler http.Handler
}

// Server is the admission HTTPS server: one TLS listener with a hot-reloaded
// serving certificate in front of the admission handler.
//
// It serves as soon as it listens; until a certificate has been loaded every
// TLS handshake fails and Ready is false. It is not leader-gated: every
// replica serves. The lifecycle is tlsserve.Server's, shared with the
// metrics server.
type Server struct {
	opts  ServerOptions
	certs *tlsserve.CertReloader
	srv   *http.Server
	life  *tlsserve.Server
}

// NewServer checks opts and builds a Server; nothing is opened until Start.
func NewServer(opts ServerOptions) (*Server, error) {
	if opts.CertDir == "" {
		return nil, errors.New("admission: a certificate directory is required")
	}
	if opts.Addr == "" {
		opts.Addr = DefaultAddr
	}
	if opts.MinTLSVersion == 0 {
		opts.MinTLSVersion = tls.VersionTLS12
	}
	if opts.MinTLSVersion < tls.VersionTLS12 || opts.MinTLSVersion > tls.VersionTLS13 {
		return nil, fmt.Errorf("admission: unsupported minimum TLS version %#04x (TLS 1.2 or 1.3)", opts.MinTLSVersion)
	}
	if opts.Handler == nil {
		opts.Handler = NewHandler(HandlerOptions{})
	}
	certs := tlsserve.NewCertReloader(filepath.Join(opts.CertDir, tlsserve.CertFileName),
		filepath.Join(opts.CertDir, tlsserve.KeyFileName), opts.ReloadInterval)
	s := &Server{opts: opts, certs: certs}
	s.srv = &http.Server{
		Handler: opts.Handler,
		TLSConfig: &tls.Config{
			MinVersion:     opts.MinTLSVersion,
			CipherSuites:   tlsserve.CipherSuites(),
			GetCertificate: certs.GetCertificate,
		},
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
	}
	if !opts.EnableHTTP2 {
		// A non-nil empty map keeps net/http from enabling HTTP/2.
		s.srv.TLSNextProto = map[string]func(*http.Server, *tls.Conn, http.Handler){}
	}
	s.life = tlsserve.NewServer(tlsserve.Options{
		Name:  "admission",
		Addr:  opts.Addr,
		HTTP:  s.srv,
		Certs: certs,
		Started: func(logger klog.Logger, addr net.Addr) {
			logger.Info("Serving admission webhook", "addr", addr.String(), "path", ValidatePath,
				"minTLSVersion", tls.VersionName(opts.MinTLSVersion), "http2", opts.EnableHTTP2)
		},
	})
	return s, nil
}

// Start loads the certificate, opens the listener and serves in the
// background. A missing or invalid certificate is logged and retried by the
// reloader; only a listen failure is returned. ctx provides the logger
// (klog.FromContext) for the server and its requests, but cancelling it does
// not stop the server: call Shutdown, so admission can keep answering while
// the rest of the process shuts down.
func (s *Server) Start(ctx context.Context) error { return s.life.Start(ctx) }

// Addr is the listener's address once Start succeeded, else nil.
func (s *Server) Addr() net.Addr { return s.life.Addr() }

// Ready reports whether the server is serving with a loaded certificate,
// the admission part of /readyz.
func (s *Server) Ready() bool { return s.life.Serving() && s.certs.Ready() }

// Certificates returns the server's certificate reloader.
func (s *Server) Certificates() *tlsserve.CertReloader { return s.certs }

// Shutdown stops accepting connections, lets in-flight reviews finish for
// up to ShutdownTimeout (or until ctx is done, if sooner), then closes the
// remaining connections and stops the reloader. It is safe to call more
// than once and before Start.
func (s *Server) Shutdown(ctx context.Context) error { return s.life.Shutdown(ctx) }

// Run starts the server and blocks until ctx is done or serving fails, then
// shuts it down. It returns the listen or serve error, if any.
func (s *Server) Run(ctx context.Context) error { return s.life.Run(ctx) }

// ParseTLSVersion maps a --tls-min-version value (VersionTLS12 or
// VersionTLS13) to its crypto/tls constant.
func ParseTLSVersion(name string) (uint16, error) {
	switch name {
	case "VersionTLS12":
		return tls.VersionTLS12, nil
	case "VersionTLS13":
		return tls.VersionTLS13, nil
	}
	return 0, fmt.Errorf("unknown TLS version %q (VersionTLS12 or VersionTLS13)", name)
}
