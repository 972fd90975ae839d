//go:build faults

package faults

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/retry"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/generated/clientset/versioned"
)

// rolloutEnv is the variable whose value each rollout changes on every
// server.
const rolloutEnv = "FAULT_ROLLOUT"

// writers bounds the test's own concurrent requests when it creates or
// updates the fleet.
const writers = 8

func ogxClient(t *testing.T) versioned.Interface {
	t.Helper()
	return versioned.NewForConfigOrDie(s.cp.Config())
}

// poll waits until cond returns true, checking every interval, and fails
// the test after timeout with cond's last error.
func poll(t *testing.T, timeout, interval time.Duration, what string, cond func(ctx context.Context) (bool, error)) {
	t.Helper()
	var last error
	err := wait.PollUntilContextTimeout(t.Context(), interval, timeout, true, func(ctx context.Context) (bool, error) {
		ok, err := cond(ctx)
		// A request cut short by the poll's own deadline says nothing
		// about the condition; keep the error before it.
		if err != nil && ctx.Err() == nil {
			last = err
		}
		return ok && err == nil, nil
	})
	if err != nil {
		t.Fatalf("timed out after %s waiting for %s (last error: %v)", timeout, what, last)
	}
}

func serverName(i int) string { return fmt.Sprintf("srv-%03d", i) }

func newServer(ns, name, value string) *ogxv1beta1.OGXServer {
	starter := "starter"
	return &ogxv1beta1.OGXServer{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: ogxv1beta1.OGXServerSpec{
			Distribution: ogxv1beta1.DistributionSpec{Name: &starter},
			Workload: &ogxv1beta1.WorkloadSpec{Overrides: &ogxv1beta1.WorkloadOverrides{
				Env: []corev1.EnvVar{{Name: rolloutEnv, Value: value}}}},
		},
	}
}

// parallel runs f(i) for i in [0, n) on at most writers goroutines and
// returns the first error.
func parallel(n int, f func(i int) error) error {
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	next := make(chan int)
	for range min(writers, n) {
		wg.Go(func() {
			for i := range next {
				if err := f(i); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	return first
}

// createFleet creates n servers with the rollout variable at value.
func createFleet(t *testing.T, ns string, n int, value string) {
	t.Helper()
	ogx := ogxClient(t)
	err := parallel(n, func(i int) error {
		_, err := ogx.OgxV1beta1().OGXServers(ns).Create(t.Context(), newServer(ns, serverName(i), value), metav1.CreateOptions{})
		return err
	})
	if err != nil {
		t.Fatalf("creating the fleet: %v", err)
	}
}

// rollout sets the rollout variable of every server to value.
func rollout(t *testing.T, ns string, n int, value string) {
	t.Helper()
	ogx := ogxClient(t)
	err := parallel(n, func(i int) error {
		return retry.RetryOnConflict(retry.DefaultRetry, func() error {
			cur, err := ogx.OgxV1beta1().OGXServers(ns).Get(t.Context(), serverName(i), metav1.GetOptions{})
			if err != nil {
				return err
			}
			cur.Spec.Workload.Overrides.Env = []corev1.EnvVar{{Name: rolloutEnv, Value: value}}
			_, err = ogx.OgxV1beta1().OGXServers(ns).Update(t.Context(), cur, metav1.UpdateOptions{})
			return err
		})
	})
	if err != nil {
		t.Fatalf("rolling out %s=%s: %v", rolloutEnv, value, err)
	}
}

// progress counts the servers of ns whose Deployment carries the rollout
// value and those that are converged: the Deployment has the value and the
// server reports Ready for its current generation. It also returns a few
// names of servers that are not converged, for error messages.
func progress(ctx context.Context, ns, value string) (updated, converged, total int, pending []string, err error) {
	ogx := versioned.NewForConfigOrDie(s.cp.Config())
	servers, err := ogx.OgxV1beta1().OGXServers(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return 0, 0, 0, nil, err
	}
	deps, err := s.cp.Client().AppsV1().Deployments(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return 0, 0, 0, nil, err
	}
	envOf := map[string]string{}
	for _, d := range deps.Items {
		for _, c := range d.Spec.Template.Spec.Containers {
			for _, e := range c.Env {
				if e.Name == rolloutEnv {
					envOf[d.Name] = e.Value
				}
			}
		}
	}
	for _, srv := range servers.Items {
		total++
		hasValue := envOf[srv.Name] == value
		if hasValue {
			updated++
		}
		if hasValue && ready(&srv) {
			converged++
		} else if len(pending) < 5 {
			pending = append(pending, srv.Name)
		}
	}
	return updated, converged, total, pending, nil
}

// ready is kubectl wait --for=condition=Ready for the current generation.
func ready(srv *ogxv1beta1.OGXServer) bool {
	c := apimeta.FindStatusCondition(srv.Status.Conditions, "Ready")
	return c != nil && c.Status == metav1.ConditionTrue && c.ObservedGeneration == srv.Generation &&
		srv.Status.ObservedGeneration == srv.Generation
}

// waitConverged waits until all n servers of ns are converged on value and
// returns how long that took.
func waitConverged(t *testing.T, ns string, n int, value string, timeout time.Duration) time.Duration {
	t.Helper()
	begin := time.Now()
	var last string
	poll(t, timeout, time.Second, fmt.Sprintf("%d servers converged on %s=%s", n, rolloutEnv, value), func(ctx context.Context) (bool, error) {
		updated, converged, total, pending, err := progress(ctx, ns, value)
		if err != nil {
			return false, err
		}
		last = fmt.Sprintf("%d/%d updated, %d/%d converged, pending %s", updated, total, converged, total, strings.Join(pending, ","))
		if total != n {
			return false, fmt.Errorf("%d servers in %s, want %d; %s", total, ns, n, last)
		}
		if converged != n {
			return false, fmt.Errorf("%s", last)
		}
		return true, nil
	})
	return time.Since(begin)
}

// waitUpdated waits until at least want Deployments carry value, so a fault
// lands mid-rollout, and returns how many did.
func waitUpdated(t *testing.T, ns, value string, want int, timeout time.Duration) int {
	t.Helper()
	var got int
	poll(t, timeout, 50*time.Millisecond, fmt.Sprintf("%d Deployments with %s=%s", want, rolloutEnv, value), func(ctx context.Context) (bool, error) {
		var err error
		got, _, _, _, err = progress(ctx, ns, value)
		return got >= want, err
	})
	return got
}

// fleetTimeout scales a convergence deadline with the fleet: a base plus
// 1.5 s per server, generous for 2 shared cores.
func fleetTimeout(n int) time.Duration {
	return 2*time.Minute + time.Duration(n)*1500*time.Millisecond
}

// sortedKeys is for stable error messages.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }
