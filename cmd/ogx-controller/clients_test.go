package main

import (
	"context"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ogx-k8s/ogx-controller/pkg/metrics"
)

// acceptEncodings runs one list through each client newClients builds,
// against a stand-in API server, and returns the Accept-Encoding each
// request carried, by path.
func acceptEncodings(t *testing.T, flags ...string) map[string]string {
	t.Helper()
	var mu sync.Mutex
	got := map[string]string{}
	// TLS as in any real cluster: client-go builds its own transport, which
	// honours DisableCompression, only for a TLS (or proxied) config.
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got[r.URL.Path] = r.Header.Get("Accept-Encoding")
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"metadata":{},"items":[]}`)
	}))
	t.Cleanup(srv.Close)
	ca := base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}))
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kubeconfig, []byte(strings.Join([]string{
		"apiVersion: v1", "kind: Config", "current-context: c",
		"clusters: [{name: c, cluster: {server: " + srv.URL + ", certificate-authority-data: " + ca + "}}]",
		"contexts: [{name: c, context: {cluster: c, user: u}}]",
		"users: [{name: u, user: {token: t}}]",
	}, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	o, err := parseTestFlags(append([]string{"--kubeconfig=" + kubeconfig}, flags...)...)
	if err != nil {
		t.Fatal(err)
	}
	c, err := newClients(o, metrics.New("test"), "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for name, list := range map[string]func() error{
		"kube":   func() error { _, err := c.kube.CoreV1().Pods("a").List(ctx, metav1.ListOptions{}); return err },
		"ogx":    func() error { _, err := c.ogx.OgxV1beta1().OGXServers("a").List(ctx, metav1.ListOptions{}); return err },
		"events": func() error { _, err := c.events.CoreV1().Events("a").List(ctx, metav1.ListOptions{}); return err },
		"unfenced": func() error {
			_, err := c.unfenced.CoordinationV1().Leases("a").List(ctx, metav1.ListOptions{})
			return err
		},
	} {
		if err := list(); err != nil {
			t.Fatalf("%s client: %v", name, err)
		}
	}
	return got
}

func TestClientsCompression(t *testing.T) {
	paths := []string{
		"/api/v1/namespaces/a/events",
		"/api/v1/namespaces/a/pods",
		"/apis/coordination.k8s.io/v1/namespaces/a/leases",
		"/apis/ogx.io/v1beta1/namespaces/a/ogxservers",
	}
	for _, tc := range []struct {
		flags []string
		want  string
	}{
		{flags: nil, want: ""},
		{flags: []string{"--kube-api-compression=true"}, want: "gzip"},
	} {
		want := map[string]string{}
		for _, p := range paths {
			want[p] = tc.want
		}
		got := acceptEncodings(t, tc.flags...)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%v: Accept-Encoding by path (-want +got):\n%s", tc.flags, diff)
		}
	}
}
