package main

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/tools/leaderelection"
)

func TestHealthHandler(t *testing.T) {
	var ready atomic.Bool
	h := healthHandler(ready.Load, leaderelection.NewLeaderHealthzAdaptor(20*time.Second))
	get := func(path string) int {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		return rec.Code
	}
	if c := get("/healthz"); c != http.StatusOK {
		t.Errorf("/healthz = %d, want 200 (no elector yet: not leading)", c)
	}
	if c := get("/readyz"); c != http.StatusServiceUnavailable {
		t.Errorf("/readyz before sync = %d, want 503", c)
	}
	ready.Store(true)
	if c := get("/readyz"); c != http.StatusOK {
		t.Errorf("/readyz after sync = %d, want 200", c)
	}
	if c := get("/other"); c != http.StatusNotFound {
		t.Errorf("/other = %d, want 404", c)
	}
}
