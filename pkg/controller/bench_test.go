package controller

// BenchmarkFullPass1000 measures the steady-state pass of the child and
// status controllers over 1,000 converged OGXServers on fake clientsets:
// cache lookup, input resolution, render, Extract, comparison and skip, and
// the status computation and comparison. TestFullPass1000Steady runs the
// same pass once as part of `go test` and checks that it writes nothing.

import (
	"context"
	"fmt"
	goruntime "runtime"
	"sync"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/caches"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/controllertest"
)

const benchFleetSize = 1000

// benchSpec gives server i one of several shapes.
func benchSpec(i int, s *ogxv1beta1.OGXServerSpec) {
	switch i % 10 {
	case 0: // defaults
	case 1:
		s.Workload = &ogxv1beta1.WorkloadSpec{Replicas: ptr.To[int32](3)}
	case 2:
		q := resource.MustParse(fmt.Sprintf("%dGi", 5+i%7))
		s.Workload = &ogxv1beta1.WorkloadSpec{Storage: &ogxv1beta1.PVCStorageSpec{Size: &q, MountPath: "/data"}}
	case 3:
		s.Distribution = ogxv1beta1.DistributionSpec{Image: ptr.To(fmt.Sprintf("quay.io/example/ogx:1.%d", i%5))}
		s.Network = &ogxv1beta1.NetworkSpec{Port: 9000}
	case 4:
		s.Monitoring = &ogxv1beta1.MonitoringSpec{Enabled: ptr.To(false)}
		s.Distribution = ogxv1beta1.DistributionSpec{Name: ptr.To("remote-vllm")}
	case 5:
		s.Workload = &ogxv1beta1.WorkloadSpec{Autoscaling: &ogxv1beta1.AutoscalingSpec{MinReplicas: ptr.To[int32](1), MaxReplicas: 4}}
	case 6:
		s.Workload = &ogxv1beta1.WorkloadSpec{
			Workers: ptr.To[int32](2),
			Resources: &corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("2Gi")},
				Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("4Gi")},
			},
			Overrides: &ogxv1beta1.WorkloadOverrides{
				Env:     []corev1.EnvVar{{Name: "LOG_LEVEL", Value: "debug"}, {Name: "OGX_PORT", Value: "8321"}},
				Command: []string{"python", "-m", "ogx.server"},
				Args:    []string{"--verbose"},
			},
		}
	case 7:
		s.OverrideConfig = &ogxv1beta1.ConfigMapKeyRef{Name: "shared-config", Key: "config.yaml"}
	case 8:
		s.Workload = &ogxv1beta1.WorkloadSpec{Replicas: ptr.To[int32](0)}
	case 9:
		q := resource.MustParse("1Gi")
		s.Workload = &ogxv1beta1.WorkloadSpec{Replicas: ptr.To[int32](2), Storage: &ogxv1beta1.PVCStorageSpec{Size: &q}}
		s.Monitoring = &ogxv1beta1.MonitoringSpec{MetricsPort: ptr.To[int32](8321)}
	}
}

// benchFleet is a Manager whose n OGXServers are converged: children
// written, Deployments rolled out, status stored, caches caught up.
type benchFleet struct {
	*sfEnv
	keys []string
}

func newBenchFleet(tb testing.TB, n int) *benchFleet {
	tb.Helper()
	const namespaces = 10
	var kubeObjs []runtime.Object
	for ns := range namespaces {
		kubeObjs = append(kubeObjs, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: "shared-config", Namespace: fmt.Sprintf("bench-%d", ns),
				Labels: map[string]string{ogxv1beta1.WatchLabel: "true"}},
			Data: map[string]string{"config.yaml": "version: 2\nimage_name: bench\n"},
		})
	}
	servers := make([]*ogxv1beta1.OGXServer, n)
	keys := make([]string, n)
	for i := range n {
		ns := fmt.Sprintf("bench-%d", i%namespaces)
		name := fmt.Sprintf("server-%04d", i)
		servers[i] = controllertest.Server(ns, name, types.UID(fmt.Sprintf("uid-%04d", i)), func(s *ogxv1beta1.OGXServerSpec) { benchSpec(i, s) })
		keys[i] = caches.Key(ns, name)
	}
	e := newSFEnv(tb, base.Options{OperatorVersion: "v1.0.0"}, kubeObjs, servers...)
	// Only errors are logged: the first pass writes thousands of objects.
	e.ctx = klog.NewContext(e.ctx, klog.Background().V(50))
	f := &benchFleet{sfEnv: e, keys: keys}

	// Child controllers may depend on each other's objects (the Deployment
	// on the CA bundle ConfigMap), so run them until nothing is written.
	for round := 0; ; round++ {
		benchEach(tb, keys, func(key string) error {
			for _, c := range e.m.childControllers {
				if _, err := c.Sync(e.ctx, key); err != nil {
					return fmt.Errorf("%s %s: %w", c.Name(), key, err)
				}
			}
			return nil
		})
		e.WaitCaught()
		if len(controllertest.Writes(e.kube.Actions())) == 0 {
			break
		}
		if round == 3 {
			tb.Fatalf("child controllers still write after %d rounds:%s", round+1, controllertest.Describe(controllertest.Writes(e.kube.Actions())[:10]))
		}
		e.kube.ClearActions()
	}
	// Roll every Deployment out, as its controller would.
	benchEach(tb, keys, func(key string) error {
		ns, name, _ := cache.SplitMetaNamespaceKey(key)
		d, err := e.kube.AppsV1().Deployments(ns).Get(e.ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		r := ptr.Deref(d.Spec.Replicas, 1)
		d.Status = appsv1.DeploymentStatus{ObservedGeneration: d.Generation, Replicas: r, UpdatedReplicas: r, ReadyReplicas: r, AvailableReplicas: r}
		_, err = e.kube.AppsV1().Deployments(ns).UpdateStatus(e.ctx, d, metav1.UpdateOptions{})
		return err
	})
	e.WaitCaught()
	benchEach(tb, keys, func(key string) error {
		_, err := e.m.status.Sync(e.ctx, key)
		return err
	})
	e.WaitCaught()
	for _, s := range servers {
		got, err := e.m.Caches.Server(s.Namespace, s.Name)
		if err != nil {
			tb.Fatal(err)
		}
		if got.Status.Phase != ogxv1beta1.PhaseReady {
			tb.Fatalf("%s/%s did not converge: phase %q, conditions %+v", s.Namespace, s.Name, got.Status.Phase, got.Status.Conditions)
		}
	}
	e.ClearActions()
	return f
}

// benchEach runs f for every key on a few goroutines, as the workers of a
// controller would (never two at once for one key); the fake clientset's
// field-managed tracker makes each write slow, so setup is parallel.
func benchEach(tb testing.TB, keys []string, f func(key string) error) {
	tb.Helper()
	work := make(chan string)
	errs := make(chan error, len(keys))
	var wg sync.WaitGroup
	for range max(2, goruntime.GOMAXPROCS(0)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range work {
				if err := f(k); err != nil {
					errs <- err
				}
			}
		}()
	}
	for _, k := range keys {
		work <- k
	}
	close(work)
	wg.Wait()
	close(errs)
	for err := range errs {
		tb.Fatal(err)
	}
}

// pass runs every child controller's sync (configmap, pvc, service,
// networkpolicy, deployment, hpa, pdb, ingress) and the status sync over
// every key.
func (f *benchFleet) pass(ctx context.Context) error {
	for _, key := range f.keys {
		for _, c := range f.m.childControllers {
			if _, err := c.Sync(ctx, key); err != nil {
				return fmt.Errorf("%s %s: %w", c.Name(), key, err)
			}
		}
		if _, err := f.m.status.Sync(ctx, key); err != nil {
			return fmt.Errorf("status %s: %w", key, err)
		}
	}
	return nil
}

// writes returns the write requests the fakes received since the last
// clear, and how many reads there were.
func (f *benchFleet) writes() (string, int) {
	all := append(f.kube.Actions(), f.ogx.Actions()...)
	w := controllertest.Writes(all)
	if len(w) == 0 {
		return "", len(all)
	}
	return controllertest.Describe(w), len(all) - len(w)
}

func TestFullPass1000Steady(t *testing.T) {
	n := benchFleetSize
	if testing.Short() {
		n = 100 // every spec shape, ten namespaces
	}
	f := newBenchFleet(t, n)
	if err := f.pass(f.ctx); err != nil {
		t.Fatal(err)
	}
	w, reads := f.writes()
	if w != "" {
		t.Fatalf("steady-state pass over %d servers sent writes:%s", n, w)
	}
	t.Logf("steady-state pass over %d servers: no writes, %d live reads", n, reads)
}

func BenchmarkFullPass1000(b *testing.B) {
	f := newBenchFleet(b, benchFleetSize)
	ctx := f.ctx
	b.ReportAllocs()
	for b.Loop() {
		if err := f.pass(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchFleetSize), "ns/server")
	if w, _ := f.writes(); w != "" {
		b.Fatalf("steady-state passes sent writes:%s", w)
	}
}
