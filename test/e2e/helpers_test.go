package e2e

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/generated/clientset/versioned"
	"github.com/ogx-k8s/ogx-controller/test/framework"
)

// writeCounter counts the mutating requests a client sends, per verb and
// path, so tests can assert an idle controller writes nothing and never
// sends a PUT.
type writeCounter struct {
	mu     sync.Mutex
	counts map[string]int
	log    []string
}

func (w *writeCounter) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripperFunc(func(r *http.Request) (*http.Response, error) {
		if r.Method != http.MethodGet {
			w.mu.Lock()
			w.counts[r.Method]++
			w.log = append(w.log, r.Method+" "+r.URL.Path)
			w.mu.Unlock()
		}
		return rt.RoundTrip(r)
	})
}

func (w *writeCounter) snapshot() (int, []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, c := range w.counts {
		n += c
	}
	return n, append([]string(nil), w.log...)
}

func (w *writeCounter) puts() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for _, l := range w.log {
		if strings.HasPrefix(l, http.MethodPut+" ") {
			out = append(out, l)
		}
	}
	return out
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// running is a controller started by a test.
type running struct {
	writes *writeCounter
	cancel context.CancelFunc
	done   chan struct{}
}

// startController runs an in-process controller watching only namespace ns
// through a write-counting client; it stops when the test ends. opts may
// adjust the options.
func startController(t *testing.T, ns string, adjust ...func(*base.Options)) *running {
	t.Helper()
	wc := &writeCounter{counts: map[string]int{}}
	cfg := cp.Config()
	cfg.WrapTransport = wc.wrap
	kube := kubernetes.NewForConfigOrDie(cfg)
	ogx := versioned.NewForConfigOrDie(cfg)
	opts := base.Options{
		WatchNamespaces:   []string{ns},
		OperatorNamespace: ns,
		OperatorVersion:   "e2e",
		ProbeEnabled:      false,
		Metadata:          metadata.NewForConfigOrDie(cfg),
	}
	for _, a := range adjust {
		a(&opts)
	}
	mgr, err := controller.NewManager(kube, ogx, opts)
	if err != nil {
		t.Fatalf("NewManager: %v", err)
	}
	logger := ktesting.NewLogger(t, ktesting.NewConfig(ktesting.Verbosity(2)))
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), logger))
	r := &running{writes: wc, cancel: cancel, done: make(chan struct{})}
	if err := mgr.Start(ctx); err != nil {
		cancel()
		t.Fatalf("starting caches: %v", err)
	}
	go func() { defer close(r.done); mgr.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-r.done
		if puts := wc.puts(); len(puts) > 0 {
			t.Errorf("the controller sent PUT requests: %v", puts)
		}
	})
	return r
}

func clients(t *testing.T) (kubernetes.Interface, versioned.Interface) {
	t.Helper()
	return cp.Client(), versioned.NewForConfigOrDie(cp.Config())
}

// waitReady waits for condition Ready=True with observedGeneration equal to
// the generation, as `kubectl wait --for=condition=Ready` would.
func waitReady(t *testing.T, ogx versioned.Interface, ns, name string, timeout time.Duration) *ogxv1beta1.OGXServer {
	t.Helper()
	var got *ogxv1beta1.OGXServer
	framework.Poll(t, timeout, fmt.Sprintf("OGXServer %s/%s Ready", ns, name), func(ctx context.Context) (bool, error) {
		s, err := ogx.OgxV1beta1().OGXServers(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		got = s
		c := apimeta.FindStatusCondition(s.Status.Conditions, "Ready")
		return c != nil && c.Status == metav1.ConditionTrue && c.ObservedGeneration == s.Generation &&
			s.Status.ObservedGeneration == s.Generation, nil
	})
	return got
}

// waitGone waits until get reports NotFound.
func waitGone(t *testing.T, timeout time.Duration, what string, get func(ctx context.Context) error) {
	t.Helper()
	framework.Poll(t, timeout, what+" to be deleted", func(ctx context.Context) (bool, error) {
		err := get(ctx)
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, err
	})
}

func newServer(ns, name string) *ogxv1beta1.OGXServer {
	starter := "starter"
	return &ogxv1beta1.OGXServer{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec:       ogxv1beta1.OGXServerSpec{Distribution: ogxv1beta1.DistributionSpec{Name: &starter}},
	}
}

// quietConfig returns a rest config without the counting wrapper.
func quietConfig() *rest.Config { return cp.Config() }

// updateServer changes an OGXServer, retrying on conflicts with the
// controller's own status writes.
func updateServer(t *testing.T, ogx versioned.Interface, ns, name string, mutate func(*ogxv1beta1.OGXServer)) {
	t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur, err := ogx.OgxV1beta1().OGXServers(ns).Get(t.Context(), name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		mutate(cur)
		_, err = ogx.OgxV1beta1().OGXServers(ns).Update(t.Context(), cur, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatalf("updating OGXServer %s/%s: %v", ns, name, err)
	}
}

// observe waits for a fixed observation window. It is not a wait for a
// condition (those poll with deadlines): tests that prove nothing happens,
// such as zero idle writes, must watch for a while.
func observe(d time.Duration) { <-time.After(d) }
