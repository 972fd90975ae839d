package metrics

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"k8s.io/client-go/util/workqueue"
)

// gather returns the registry's families by name.
func gather(t *testing.T, m *Metrics) map[string]*dto.MetricFamily {
	t.Helper()
	mfs, err := m.Registry().Gather()
	if err != nil {
		t.Fatalf("Gather: %v", err)
	}
	out := make(map[string]*dto.MetricFamily, len(mfs))
	for _, mf := range mfs {
		out[mf.GetName()] = mf
	}
	return out
}

// find returns the metric of family name whose labels include want, or nil.
func find(t *testing.T, m *Metrics, name string, want map[string]string) *dto.Metric {
	t.Helper()
	mf := gather(t, m)[name]
	if mf == nil {
		return nil
	}
	for _, metric := range mf.GetMetric() {
		have := map[string]string{}
		for _, lp := range metric.GetLabel() {
			have[lp.GetName()] = lp.GetValue()
		}
		match := true
		for k, v := range want {
			if have[k] != v {
				match = false
				break
			}
		}
		if match {
			return metric
		}
	}
	return nil
}

// value returns a counter's, gauge's or histogram's (sample count) value.
func value(t *testing.T, m *Metrics, name string, labels map[string]string) float64 {
	t.Helper()
	metric := find(t, m, name, labels)
	if metric == nil {
		t.Fatalf("no %s%v; families: %v", name, labels, familyNames(gather(t, m)))
	}
	switch {
	case metric.Counter != nil:
		return metric.Counter.GetValue()
	case metric.Gauge != nil:
		return metric.Gauge.GetValue()
	case metric.Histogram != nil:
		return float64(metric.Histogram.GetSampleCount())
	}
	t.Fatalf("%s%v has an unexpected type", name, labels)
	return 0
}

func familyNames(fams map[string]*dto.MetricFamily) []string {
	var names []string
	for n := range fams {
		names = append(names, n)
	}
	return names
}

func TestCustomMetrics(t *testing.T) {
	m := New("v1.2.3")
	m.ObserveReconcile("deployment", ResultSuccess, 20*time.Millisecond)
	m.ObserveReconcile("deployment", ResultSuccess, 30*time.Millisecond)
	m.ObserveReconcile("deployment", ResultError, time.Second)
	m.CountWrite("Deployment", VerbApply)
	m.CountWrite("Service", VerbDelete)
	m.CountApplySkipped("ConfigMap")
	m.CountProbe(ProbeFailure)
	m.SetLeader(true)
	m.ObserveAdmission("CREATE", false, 422, 3*time.Millisecond)
	m.ObserveAdmission("UPDATE", true, 0, time.Millisecond)
	m.CountEventDropped("Warning", "ReferenceNotFound")
	m.CountEventDropped("Warning", "ReferenceNotFound")
	m.CountEventDropped("Normal", "Created")

	checks := []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"ogx_controller_build_info", map[string]string{"version": "v1.2.3"}, 1},
		{"ogx_controller_reconcile_total", map[string]string{"controller": "deployment", "result": "success"}, 2},
		{"ogx_controller_reconcile_total", map[string]string{"controller": "deployment", "result": "error"}, 1},
		{"ogx_controller_reconcile_duration_seconds", map[string]string{"controller": "deployment"}, 3},
		{"ogx_controller_writes_total", map[string]string{"kind": "Deployment", "verb": "apply"}, 1},
		{"ogx_controller_writes_total", map[string]string{"kind": "Service", "verb": "delete"}, 1},
		{"ogx_controller_apply_skipped_total", map[string]string{"kind": "ConfigMap"}, 1},
		{"ogx_controller_server_probe_total", map[string]string{"result": "failure"}, 1},
		{"ogx_controller_leader", nil, 1},
		{"ogx_controller_admission_reviews_total", map[string]string{"operation": "CREATE", "allowed": "false", "code": "422"}, 1},
		{"ogx_controller_admission_reviews_total", map[string]string{"operation": "UPDATE", "allowed": "true", "code": "0"}, 1},
		{"ogx_controller_admission_review_duration_seconds", nil, 2},
		{"ogx_controller_events_dropped_total", map[string]string{"type": "Warning", "reason": "ReferenceNotFound"}, 2},
		{"ogx_controller_events_dropped_total", map[string]string{"type": "Normal", "reason": "Created"}, 1},
	}
	for _, c := range checks {
		if got := value(t, m, c.name, c.labels); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
	if find(t, m, "ogx_controller_reconcile_total", map[string]string{"result": "waiting"}) != nil {
		t.Errorf("a waiting series exists without a waiting pass")
	}

	m.SetLeader(false)
	if got := value(t, m, "ogx_controller_leader", nil); got != 0 {
		t.Errorf("leader after SetLeader(false) = %v, want 0", got)
	}
}

func TestNewStartsWithBuildInfoAndLeaderZero(t *testing.T) {
	m := New("dev")
	if got := value(t, m, "ogx_controller_build_info", map[string]string{"version": "dev"}); got != 1 {
		t.Errorf("build_info = %v, want 1", got)
	}
	if got := value(t, m, "ogx_controller_leader", nil); got != 0 {
		t.Errorf("leader = %v, want 0", got)
	}
	fams := gather(t, m)
	for _, name := range []string{"go_goroutines", "go_memstats_alloc_bytes", "process_cpu_seconds_total",
		"process_resident_memory_bytes"} {
		if fams[name] == nil {
			t.Errorf("missing %s from the Go/process collectors", name)
		}
	}
}

func TestInitController(t *testing.T) {
	m := New("dev")
	m.InitController("status")
	for _, r := range []string{ResultSuccess, ResultWaiting, ResultError} {
		if got := value(t, m, "ogx_controller_reconcile_total", map[string]string{"controller": "status", "result": r}); got != 0 {
			t.Errorf("reconcile_total{status,%s} = %v, want 0", r, got)
		}
	}
	if got := value(t, m, "ogx_controller_reconcile_duration_seconds", map[string]string{"controller": "status"}); got != 0 {
		t.Errorf("reconcile_duration_seconds{status} count = %v, want 0", got)
	}
}

func TestInitKind(t *testing.T) {
	m := New("dev")
	m.InitKind("Deployment")
	if got := value(t, m, "ogx_controller_apply_skipped_total", map[string]string{"kind": "Deployment"}); got != 0 {
		t.Errorf("apply_skipped_total{Deployment} = %v, want 0", got)
	}
}

func TestInstancesAreIndependent(t *testing.T) {
	a, b := New("a"), New("b")
	a.CountWrite("Deployment", VerbApply)
	if find(t, b, "ogx_controller_writes_total", nil) != nil {
		t.Errorf("a write counted on one Metrics shows up on another")
	}
	if find(t, b, "ogx_controller_build_info", map[string]string{"version": "a"}) != nil {
		t.Errorf("build info leaked between instances")
	}
	// Nothing goes to the global default registry.
	mfs, err := prometheus.DefaultGatherer.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if strings.HasPrefix(mf.GetName(), Namespace) || strings.HasPrefix(mf.GetName(), "workqueue_") {
			t.Errorf("%s registered in the default registry", mf.GetName())
		}
	}
}

func TestNilMetricsIsANoOp(t *testing.T) {
	var m *Metrics
	m.ObserveReconcile("x", ResultSuccess, time.Second)
	m.CountWrite("Deployment", VerbApply)
	m.CountApplySkipped("Deployment")
	m.CountProbe(ProbeSuccess)
	m.CountEventDropped("Warning", "x")
	m.SetLeader(true)
	m.ObserveAdmission("CREATE", true, 200, time.Second)
	m.InitController("x")
	m.CountServerChange()
	m.CountServersWith(func() map[string]int { return nil })
	if m.Registry() != nil {
		t.Errorf("Registry of nil Metrics is not nil")
	}
	if p := m.WorkqueueMetricsProvider(); p != nil {
		t.Errorf("WorkqueueMetricsProvider of nil Metrics = %v, want nil", p)
	}
	if m.RegisterClientGoMetrics() {
		t.Errorf("nil Metrics registered client-go metrics")
	}
	// A queue built with the nil provider still works.
	q := workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: "nil", MetricsProvider: m.WorkqueueMetricsProvider()})
	q.Add("a")
	item, _ := q.Get()
	q.Done(item)
	q.ShutDown()

	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if rec.Code != http.StatusNotFound {
		t.Errorf("nil Metrics handler answered %d, want 404", rec.Code)
	}
}

func TestHandlerServesText(t *testing.T) {
	m := New("v9")
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d", rec.Code)
	}
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Errorf("Content-Type %q, want text/plain", ct)
	}
	if body := rec.Body.String(); !strings.Contains(body, `ogx_controller_build_info{version="v9"} 1`) {
		t.Errorf("body lacks build info:\n%s", body)
	}

	// A second handler on the same registry reuses the promhttp collectors.
	rec = httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "promhttp_metric_handler_requests_total") {
		t.Errorf("second handler: %d\n%s", rec.Code, rec.Body.String())
	}
}

// TestAdmissionLabelsAreBounded: operations and codes outside the fixed
// sets, as a client writing its own AdmissionReviews can send, all count
// under "other" instead of making a series each.
func TestAdmissionLabelsAreBounded(t *testing.T) {
	m := New("test")
	for i := range 500 {
		m.ObserveAdmission(fmt.Sprintf("OP-%d", i), false, int32(600+i), time.Millisecond)
	}
	m.ObserveAdmission("CREATE", true, 0, time.Millisecond)
	fam := gather(t, m)["ogx_controller_admission_reviews_total"]
	if fam == nil {
		t.Fatal("no admission_reviews_total")
	}
	if n := len(fam.GetMetric()); n != 2 {
		t.Fatalf("%d series after 500 made-up operations, want 2", n)
	}
	if v := value(t, m, "ogx_controller_admission_reviews_total", map[string]string{"operation": "other", "allowed": "false", "code": "other"}); v != 500 {
		t.Errorf("other/other counted %v, want 500", v)
	}
}
