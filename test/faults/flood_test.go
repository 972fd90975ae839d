//go:build faults

package faults

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ogx-k8s/ogx-controller/pkg/admission"
	"github.com/ogx-k8s/ogx-controller/test/framework"
)

// floodWindow is how long each flood lasts.
const floodWindow = 60 * time.Second

// floodClients is how many connections each flood keeps busy at once.
const floodClients = 32

// floodResult counts a flood's answers by HTTP status; 0 counts requests
// that got no answer.
type floodResult struct {
	mu    sync.Mutex
	codes map[int]int
}

func (r *floodResult) add(code int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.codes == nil {
		r.codes = map[int]int{}
	}
	r.codes[code]++
}

// answered is the number of requests that got an HTTP answer.
func (r *floodResult) answered() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for code, c := range r.codes {
		if code != 0 {
			n += c
		}
	}
	return n
}

func (r *floodResult) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return fmt.Sprint(maps.Clone(r.codes))
}

// flood sends requests made by next from floodClients goroutines for the
// window, over loopback TLS without verification (the listeners use
// self-signed or test certificates; the flood is the attacker, not a
// client the test trusts), and counts the answers in res as they come.
func flood(ctx context.Context, window time.Duration, res *floodResult, next func() (*http.Request, error)) {
	tr := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // see above
		MaxIdleConnsPerHost: floodClients}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 15 * time.Second}
	ctx, cancel := context.WithTimeout(ctx, window)
	defer cancel()
	var wg sync.WaitGroup
	for range floodClients {
		wg.Go(func() {
			for ctx.Err() == nil {
				req, err := next()
				if err != nil {
					res.add(0)
					continue
				}
				resp, err := client.Do(req.WithContext(ctx))
				if err != nil {
					if ctx.Err() == nil {
						res.add(0)
					}
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				res.add(resp.StatusCode)
			}
		})
	}
	wg.Wait()
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// leaseTransitions returns the Lease's holder and transition count in ns.
func leaseTransitions(ctx context.Context, ns string) (string, int32, error) {
	l, err := s.cp.Client().CoordinationV1().Leases(ns).Get(ctx, leaseName, metav1.GetOptions{})
	if err != nil {
		return "", 0, err
	}
	var holder string
	var transitions int32
	if l.Spec.HolderIdentity != nil {
		holder = *l.Spec.HolderIdentity
	}
	if l.Spec.LeaseTransitions != nil {
		transitions = *l.Spec.LeaseTransitions
	}
	return holder, transitions, nil
}

// TestMetricsFloodKeepsLease floods the leader's metrics listener with
// requests carrying a new random bearer token each, for a minute. Each
// costs a TokenReview the API server answers "not authenticated"; they are
// sent on a client of their own with a cap on reviews in flight, so the
// Lease renewals, on a client nothing else uses, must go on: the leader
// keeps the Lease with no transition, and a rollout started during the
// flood converges.
func TestMetricsFloodKeepsLease(t *testing.T) {
	n := min(s.fleet, 50)
	ns := s.cp.CreateNamespace(t, "metricsflood")
	addr := framework.FreeAddr(t)
	replicas := startReplicasWith(t, ns, []string{"--metrics-bind-address=" + addr}, "replica-a")
	leader := waitLeader(t, ns, time.Minute, "replica-a")
	createFleet(t, ns, n, "v1")
	waitConverged(t, ns, n, "v1", fleetTimeout(n))
	holder, transitions, err := leaseTransitions(t.Context(), ns)
	if err != nil {
		t.Fatal(err)
	}

	url := "https://" + addr + "/metrics"
	res := &floodResult{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		flood(t.Context(), floodWindow, res, func() (*http.Request, error) {
			req, err := http.NewRequest(http.MethodGet, url, nil)
			if err == nil {
				req.Header.Set("Authorization", "Bearer "+randomHex(24))
			}
			return req, err
		})
	}()
	// The rollout starts once the flood is under way.
	poll(t, floodWindow/2, 100*time.Millisecond, "the flood's first 1000 answers", func(context.Context) (bool, error) {
		return res.answered() >= 1000, nil
	})
	rollout(t, ns, n, "v2")
	took := waitConverged(t, ns, n, "v2", floodWindow)
	<-done
	t.Logf("metrics flood of %s: answers by status %s; rollout of %d servers converged in %s during it",
		floodWindow, res, n, took.Round(100*time.Millisecond))
	if got := res.answered(); got < 1000 {
		t.Errorf("the flood got %d answers, want thousands (%s): it did not load the listener", got, res)
	}
	if res.codes[http.StatusOK] > 0 {
		t.Errorf("%d requests with random tokens were answered 200", res.codes[http.StatusOK])
	}

	after, afterTransitions, err := leaseTransitions(t.Context(), ns)
	if err != nil {
		t.Fatal(err)
	}
	if after != holder || afterTransitions != transitions {
		t.Errorf("the Lease moved during the flood: holder %q -> %q, transitions %d -> %d",
			holder, after, transitions, afterTransitions)
	}
	if r := replicas[leader].Restarts(); r != 0 {
		t.Errorf("%s restarted %d times during the flood", leader, r)
	}
}

// rssKiB is the resident set size of the replica's current process.
func (r *replica) rssKiB() (int, error) {
	r.mu.Lock()
	pid := r.cmd.Process.Pid
	r.mu.Unlock()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(data)) {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			return strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
}

// floodReview is an AdmissionReview of an OGXServer whose annotation pads
// the body to about size bytes, with a made-up operation.
func floodReview(ns string, size int) ([]byte, error) {
	review := map[string]any{
		"apiVersion": "admission.k8s.io/v1",
		"kind":       "AdmissionReview",
		"request": map[string]any{
			"uid":       randomHex(8),
			"kind":      map[string]string{"group": "ogx.io", "version": "v1beta1", "kind": "OGXServer"},
			"resource":  map[string]string{"group": "ogx.io", "version": "v1beta1", "resource": "ogxservers"},
			"namespace": ns,
			"name":      "flood",
			"operation": "OP-" + randomHex(6),
			"userInfo":  map[string]string{"username": "flood"},
			"object": map[string]any{
				"apiVersion": "ogx.io/v1beta1",
				"kind":       "OGXServer",
				"metadata": map[string]any{"name": "flood", "namespace": ns,
					"annotations": map[string]string{"flood": strings.Repeat("x", size)}},
				"spec": map[string]any{"distribution": map[string]string{"name": "starter"}},
			},
		},
	}
	return json.Marshal(review)
}

// TestAdmissionFloodBoundsMemory floods the admission listener for a
// minute with reviews of up to 4 MiB (some above the 3 MiB limit) and
// made-up operations, while valid servers are created through the API
// server. The cap on reviews in flight bounds what the bodies can hold:
// the replica's RSS stays under twice its idle value, and every valid
// create passes.
func TestAdmissionFloodBoundsMemory(t *testing.T) {
	ns := s.cp.CreateNamespace(t, "admissionflood")
	ep := newAdmissionEndpoint(t)
	startReplicas(t, ns, "replica-a")
	waitLeader(t, ns, time.Minute, "replica-a")
	webhook := startReplicasWith(t, ns, ep.flags(), "replica-b")["replica-b"]
	ep.register(t, ns)
	idle := 0
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for range 5 { // the largest of a few paced samples, so a GC in between does not halve it
		kib, err := webhook.rssKiB()
		if err != nil {
			t.Fatal(err)
		}
		idle = max(idle, kib)
		<-tick.C
	}

	var peak atomic.Int64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			if kib, err := webhook.rssKiB(); err == nil && int64(kib) > peak.Load() {
				peak.Store(int64(kib))
			}
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()

	url := "https://" + ep.addr + admission.ValidatePath
	var bodies atomic.Int64
	res := &floodResult{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		flood(t.Context(), floodWindow, res, func() (*http.Request, error) {
			var sizeBuf [2]byte
			_, _ = rand.Read(sizeBuf[:])
			size := (1 << 20) + int(sizeBuf[0])<<14 // 1 MiB to about 5 MiB
			body, err := floodReview(ns, size)
			if err != nil {
				return nil, err
			}
			bodies.Add(int64(len(body)))
			req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
			if err == nil {
				req.Header.Set("Content-Type", "application/json")
			}
			return req, err
		})
	}()

	ogx := ogxClient(t)
	created := 0
	deadline := time.Now().Add(floodWindow - 5*time.Second)
	pace := time.NewTicker(2 * time.Second) // one valid create every 2 s
	defer pace.Stop()
	for i := 0; time.Now().Before(deadline); i++ {
		if _, err := ogx.OgxV1beta1().OGXServers(ns).Create(t.Context(), newServer(ns, serverName(i), "v1"), metav1.CreateOptions{}); err != nil {
			t.Errorf("valid create %d during the flood: %v", i, err)
			continue
		}
		created++
		<-pace.C
	}
	<-done
	close(stop)
	<-sampled
	t.Logf("admission flood of %s: %d MiB sent, answers by status %s; %d valid creates passed; RSS idle %d KiB, peak %d KiB",
		floodWindow, bodies.Load()>>20, res, created, idle, peak.Load())
	if got := res.answered(); got < 100 {
		t.Errorf("the flood got %d answers (%s): it did not load the listener", got, res)
	}
	if created < 10 {
		t.Errorf("%d valid creates passed during the flood, want at least 10", created)
	}
	if peak.Load() >= 2*int64(idle) {
		t.Errorf("RSS peaked at %d KiB during the flood, want under twice the idle %d KiB", peak.Load(), idle)
	}
	if r := webhook.Restarts(); r != 0 {
		t.Errorf("the admission replica restarted %d times during the flood", r)
	}
}
