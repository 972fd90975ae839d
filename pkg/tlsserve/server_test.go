package tlsserve

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/klog/v2"
)

func plainServer(prepare func() error) (*Server, *[]string) {
	var started []string
	s := NewServer(Options{
		Name:    "test",
		Addr:    "127.0.0.1:0",
		Plain:   true,
		HTTP:    &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") })},
		Prepare: prepare,
		Started: func(_ klog.Logger, addr net.Addr) { started = append(started, addr.String()) },
	})
	return s, &started
}

func TestServerLifecycle(t *testing.T) {
	s, started := plainServer(nil)
	if err := s.Shutdown(context.Background()); err != nil || s.Addr() != nil || s.Serving() {
		t.Fatalf("before Start: Shutdown %v, Addr %v, Serving %v", err, s.Addr(), s.Serving())
	}
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(*started) != 1 || (*started)[0] != s.Addr().String() || !s.Serving() {
		t.Fatalf("after Start: Started calls %v, Addr %v, Serving %v", *started, s.Addr(), s.Serving())
	}
	if err := s.Start(context.Background()); err == nil {
		t.Error("second Start succeeded")
	}
	resp, err := http.Get("http://" + s.Addr().String() + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if string(body) != "ok" {
		t.Errorf("served %q, want ok", body)
	}
	for range 2 {
		if err := s.Shutdown(context.Background()); err != nil {
			t.Fatalf("Shutdown: %v", err)
		}
	}
	if s.Serving() {
		t.Error("serving after Shutdown")
	}
}

func TestServerPrepareFailure(t *testing.T) {
	boom := errors.New("boom")
	s, started := plainServer(func() error { return boom })
	if err := s.Start(context.Background()); !errors.Is(err, boom) {
		t.Fatalf("Start: %v, want boom", err)
	}
	if s.Addr() != nil || len(*started) != 0 {
		t.Errorf("a failed Start left address %v, Started calls %v", s.Addr(), *started)
	}
}

func TestServerRun(t *testing.T) {
	s, _ := plainServer(nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	if err := wait.PollUntilContextTimeout(context.Background(), 5*time.Millisecond, 10*time.Second, true,
		func(context.Context) (bool, error) { return s.Serving(), nil }); err != nil {
		t.Fatalf("the server did not start serving: %v", err)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after cancel")
	}
}
