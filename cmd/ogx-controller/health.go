package main

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/klog/v2"

	"github.com/ogx-k8s/ogx-controller/pkg/admission"
)

// readiness is /readyz: caches synced, a certificate loaded when admission
// is on, and ctx not done. It fails the moment a shutdown starts, before
// the passes in flight drain, so that traffic (admission reviews) moves to
// other replicas first.
func readiness(ctx context.Context, synced *atomic.Bool, adm *admission.Server) func() bool {
	return func() bool { return ctx.Err() == nil && synced.Load() && (adm == nil || adm.Ready()) }
}

// startHealthServer serves /healthz (always OK while running) and /readyz
// (OK once the caches are synced); addr "0" disables it.
func startHealthServer(ctx context.Context, addr string, ready func() bool, watchdog *leaderelection.HealthzAdaptor) *http.Server {
	if addr == "0" || addr == "" {
		return nil
	}
	srv := &http.Server{Addr: addr, Handler: healthHandler(ready, watchdog), ReadHeaderTimeout: 5 * time.Second,
		BaseContext: func(net.Listener) context.Context { return ctx }}
	go func() {
		if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
			klog.FromContext(ctx).Error(err, "Health server failed")
		}
	}()
	return srv
}

// healthHandler serves /healthz (the process runs and, when leading, keeps
// renewing its Lease) and /readyz (caches synced and, with admission on, a
// certificate loaded).
func healthHandler(ready func() bool, watchdog *leaderelection.HealthzAdaptor) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		if watchdog != nil {
			if err := watchdog.Check(r); err != nil {
				http.Error(w, err.Error(), http.StatusServiceUnavailable)
				return
			}
		}
		_, _ = io.WriteString(w, "ok")
	})
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		if !ready() {
			http.Error(w, "not ready", http.StatusServiceUnavailable)
			return
		}
		_, _ = io.WriteString(w, "ok")
	})
	return mux
}

// shutdown stops the health or profiling server (nil: not started).
func shutdown(srv *http.Server) {
	if srv != nil {
		stopServer(srv, 5*time.Second)
	}
}
