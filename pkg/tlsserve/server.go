package tlsserve

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/klog/v2"
)

// ShutdownTimeout is how long Shutdown lets in-flight requests finish
// before it closes their connections.
const ShutdownTimeout = 5 * time.Second

// Options configures NewServer.
type Options struct {
	// Name is the logger name (klog WithName) and the prefix of returned
	// errors, such as "admission". Required.
	Name string

	// Addr is the TCP address to listen on.
	Addr string

	// HTTP is the server to run, with its handler, timeouts and (unless
	// Plain) TLSConfig set by the caller. Start sets its BaseContext and
	// ErrorLog. Required.
	HTTP *http.Server

	// Plain serves HTTP without TLS.
	Plain bool

	// Certs, when set, is loaded when Start listens and polled until
	// Shutdown. The caller plugs its GetCertificate into HTTP.TLSConfig.
	Certs *CertReloader

	// Prepare, when set, runs once in Start before listening (under the
	// lifecycle lock, so not on an already started server); its error
	// fails Start and leaves the server unstarted.
	Prepare func() error

	// Started, when set, runs at the end of a successful Start with the
	// server's logger and listen address, to log what is served.
	Started func(logger klog.Logger, addr net.Addr)
}

// Server is the lifecycle of one HTTP(S) listener: Start serves in the
// background, Shutdown drains, Run does both around a context. Start and
// Shutdown each act once; later calls are no-ops that report the first
// outcome.
type Server struct {
	opts Options

	mu          sync.Mutex
	ln          net.Listener
	started     bool
	shutdown    bool
	serving     atomic.Bool
	serveDone   chan struct{}
	serveErr    error
	stopReload  context.CancelFunc
	reloadDone  chan struct{}
	shutdownErr error
}

// NewServer returns a Server for opts; nothing is opened until Start.
func NewServer(opts Options) *Server { return &Server{opts: opts} }

// Start runs Prepare, opens the listener, loads the certificate (a missing
// or invalid one is logged and retried by the reloader) and serves in the
// background. Only a Prepare or listen failure is returned. ctx provides the
// logger (klog.FromContext) for the server and its requests, but cancelling
// it does not stop the server: call Shutdown (or use Run).
func (s *Server) Start(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started {
		return fmt.Errorf("%s: server already started", s.opts.Name)
	}
	logger := klog.FromContext(ctx).WithName(s.opts.Name)
	ctx = klog.NewContext(context.WithoutCancel(ctx), logger)

	if s.opts.Prepare != nil {
		if err := s.opts.Prepare(); err != nil {
			return err
		}
	}
	ln, err := net.Listen("tcp", s.opts.Addr)
	if err != nil {
		return fmt.Errorf("%s: listening on %s: %w", s.opts.Name, s.opts.Addr, err)
	}
	s.started = true
	s.ln = ln
	srv := s.opts.HTTP
	srv.BaseContext = func(net.Listener) context.Context { return ctx }
	srv.ErrorLog = log.New(errorLogWriter{logger}, "", 0)

	reloadCtx, stop := context.WithCancel(ctx)
	s.stopReload = stop
	s.reloadDone = make(chan struct{})
	if certs := s.opts.Certs; certs != nil {
		_ = certs.Load(ctx) // logged; polled again below
		go func() {
			defer close(s.reloadDone)
			certs.poll(reloadCtx)
		}()
	} else {
		close(s.reloadDone)
	}

	s.serveDone = make(chan struct{})
	s.serving.Store(true)
	go func() {
		defer close(s.serveDone)
		var err error
		if s.opts.Plain {
			err = srv.Serve(ln)
		} else {
			err = srv.ServeTLS(ln, "", "")
		}
		s.serving.Store(false)
		if !errors.Is(err, http.ErrServerClosed) {
			logger.Error(err, "Server stopped")
			s.mu.Lock()
			s.serveErr = err
			s.mu.Unlock()
		}
	}()
	if s.opts.Started != nil {
		s.opts.Started(logger, ln.Addr())
	}
	return nil
}

// Addr is the listener's address once Start succeeded, else nil.
func (s *Server) Addr() net.Addr {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ln == nil {
		return nil
	}
	return s.ln.Addr()
}

// Serving reports whether the server is serving: started, and neither shut
// down nor failed.
func (s *Server) Serving() bool { return s.serving.Load() }

// Shutdown stops accepting connections, lets in-flight requests finish for
// up to ShutdownTimeout (or until ctx is done, if sooner), then closes the
// remaining connections and stops the reloader. It is safe to call more
// than once and before Start.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	if !s.started || s.shutdown {
		err := s.shutdownErr
		s.mu.Unlock()
		return err
	}
	s.shutdown = true
	s.mu.Unlock()

	ctx, cancel := context.WithTimeout(ctx, ShutdownTimeout)
	defer cancel()
	err := s.opts.HTTP.Shutdown(ctx)
	if err != nil {
		err = errors.Join(fmt.Errorf("%s: draining requests: %w", s.opts.Name, err), s.opts.HTTP.Close())
	}
	<-s.serveDone
	s.stopReload()
	<-s.reloadDone

	s.mu.Lock()
	s.shutdownErr = err
	s.mu.Unlock()
	return err
}

// Run starts the server and blocks until ctx is done or serving fails, then
// shuts it down. It returns the start, serve or shutdown error, if any.
func (s *Server) Run(ctx context.Context) error {
	if err := s.Start(ctx); err != nil {
		return err
	}
	select {
	case <-ctx.Done():
	case <-s.serveDone:
	}
	shutdownErr := s.Shutdown(context.WithoutCancel(ctx))
	s.mu.Lock()
	defer s.mu.Unlock()
	return errors.Join(s.serveErr, shutdownErr)
}

// errorLogWriter sends net/http's own error lines (TLS handshake failures,
// dropped connections) to the contextual logger. They are common and mostly
// harmless (probes that connect and leave), hence verbosity 1.
type errorLogWriter struct{ logger klog.Logger }

func (w errorLogWriter) Write(p []byte) (int, error) {
	w.logger.V(1).Info("HTTP server error", "err", strings.TrimSpace(string(p)))
	return len(p), nil
}
