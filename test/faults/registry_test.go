//go:build faults

package faults

import (
	"context"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
)

// stalledRegistry accepts TCP connections on loopback and never answers,
// as a registry behind a broken proxy would. It counts the connections
// and the most it held open at once.
type stalledRegistry struct {
	l net.Listener

	mu             sync.Mutex
	conns          []net.Conn
	accepted, peak int
}

func newStalledRegistry(t *testing.T) *stalledRegistry {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &stalledRegistry{l: l}
	go r.serve()
	t.Cleanup(r.close)
	return r
}

func (r *stalledRegistry) serve() {
	for {
		c, err := r.l.Accept()
		if err != nil {
			return
		}
		r.mu.Lock()
		r.conns = append(r.conns, c)
		r.accepted++
		r.mu.Unlock()
		// Hold it until the peer gives up; then it is no longer open.
		go func() {
			_, _ = io.Copy(io.Discard, c) // returns when the peer closes
			_ = c.Close()
			r.mu.Lock()
			r.conns = dropConn(r.conns, c)
			r.mu.Unlock()
		}()
		r.mu.Lock()
		r.peak = max(r.peak, len(r.conns))
		r.mu.Unlock()
	}
}

func dropConn(conns []net.Conn, c net.Conn) []net.Conn {
	for i, x := range conns {
		if x == c {
			return append(conns[:i], conns[i+1:]...)
		}
	}
	return conns
}

func (r *stalledRegistry) stats() (accepted, peak int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.accepted, r.peak
}

func (r *stalledRegistry) close() {
	_ = r.l.Close()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.conns {
		_ = c.Close()
	}
}

// stalledServer is a server in generated mode whose image is on the stalled
// registry, so its base config must be read from the image's labels.
func stalledServer(ns string, i int, registry string) *ogxv1beta1.OGXServer {
	image := fmt.Sprintf("%s/team/ogx:%d", registry, i)
	return &ogxv1beta1.OGXServer{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("stalled-%03d", i), Namespace: ns},
		Spec: ogxv1beta1.OGXServerSpec{
			Distribution: ogxv1beta1.DistributionSpec{Image: &image},
			Providers: &ogxv1beta1.ProvidersSpec{Inference: &ogxv1beta1.InferenceProviders{Remote: &ogxv1beta1.RemoteInferenceProviders{
				Vllm: []ogxv1beta1.VLLMProvider{{Endpoint: "http://vllm:8000/v1"}}}}},
			Resources: &ogxv1beta1.ResourcesSpec{Models: []ogxv1beta1.ModelSpec{{Name: "llama"}}},
		},
	}
}

// TestStalledRegistryDelaysOnlyItsNamespace: the servers of one namespace
// read their base configs from a registry that accepts connections and
// never answers (each resolution then runs into the resolver's timeouts).
// Servers of another namespace created meanwhile must converge about as
// fast as the same number did before, with no stall: resolutions run off
// the controllers' workers, at most DefaultResolutionsPerNamespace at once
// per namespace (checked on the registry's side).
func TestStalledRegistryDelaysOnlyItsNamespace(t *testing.T) {
	n := min(s.fleet, 50)
	stalled := s.cp.CreateNamespace(t, "stalled")
	before := s.cp.CreateNamespace(t, "fair-before")
	during := s.cp.CreateNamespace(t, "fair-during")
	reg := newStalledRegistry(t)
	startReplicasWith(t, stalled, []string{"--watch-namespaces=" + strings.Join([]string{stalled, before, during}, ",")}, "replica-a")
	waitLeader(t, stalled, time.Minute, "replica-a")

	createFleet(t, before, n, "v1")
	baseline := waitConverged(t, before, n, "v1", fleetTimeout(n))

	ogx := ogxClient(t)
	err := parallel(n, func(i int) error {
		_, err := ogx.OgxV1beta1().OGXServers(stalled).Create(t.Context(), stalledServer(stalled, i, reg.l.Addr().String()), metav1.CreateOptions{})
		return err
	})
	if err != nil {
		t.Fatalf("creating the servers on the stalled registry: %v", err)
	}
	poll(t, time.Minute, 100*time.Millisecond, "the operator to connect to the stalled registry", func(context.Context) (bool, error) {
		accepted, _ := reg.stats()
		return accepted > 0, nil
	})

	createFleet(t, during, n, "v1")
	took := waitConverged(t, during, n, "v1", fleetTimeout(n))
	accepted, peak := reg.stats()
	t.Logf("%d servers converged in %s before the stall and in %s during it; the stalled registry accepted %d connections, at most %d open at once",
		n, baseline.Round(100*time.Millisecond), took.Round(100*time.Millisecond), accepted, peak)
	if bound := 2*baseline + 10*time.Second; took > bound {
		t.Errorf("%d servers of another namespace took %s to converge during the stall, more than %s (twice the %s without it, plus 10 s)",
			n, took, bound, baseline)
	}
	// Each resolution holds one connection at a time (HTTPS, then plain
	// HTTP to loopback); a closed one may be counted a moment after the
	// next opened, hence twice the cap. Without a cap it would be one per
	// server.
	if limit := 2 * base.DefaultResolutionsPerNamespace; peak > limit {
		t.Errorf("the stalled registry had %d connections open at once, want at most %d (twice the per-namespace cap)",
			peak, limit)
	}
}
