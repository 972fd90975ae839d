package metrics

import (
	"testing"
	"time"

	"k8s.io/client-go/util/workqueue"
	testingclock "k8s.io/utils/clock/testing"
)

func TestWorkqueueMetrics(t *testing.T) {
	m := New("dev")
	clk := testingclock.NewFakeClock(time.Now())
	q := workqueue.NewTypedRateLimitingQueueWithConfig(
		workqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Millisecond, time.Millisecond),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: "deployment", MetricsProvider: m.WorkqueueMetricsProvider(), Clock: clk})
	defer q.ShutDown()

	q.Add("ns/a")
	q.Add("ns/b")
	name := map[string]string{"name": "deployment"}
	if got := value(t, m, "workqueue_depth", name); got != 2 {
		t.Errorf("depth = %v, want 2", got)
	}
	if got := value(t, m, "workqueue_adds_total", name); got != 2 {
		t.Errorf("adds = %v, want 2", got)
	}

	clk.Step(time.Second)
	item, _ := q.Get()
	clk.Step(2 * time.Second)
	q.Done(item)
	if got := value(t, m, "workqueue_depth", name); got != 1 {
		t.Errorf("depth after one Get = %v, want 1", got)
	}
	if got := value(t, m, "workqueue_queue_duration_seconds", name); got != 1 {
		t.Errorf("queue_duration samples = %v, want 1", got)
	}
	if got := value(t, m, "workqueue_work_duration_seconds", name); got != 1 {
		t.Errorf("work_duration samples = %v, want 1", got)
	}
	// Registered at queue creation, before any update.
	for _, n := range []string{"workqueue_unfinished_work_seconds", "workqueue_longest_running_processor_seconds"} {
		if find(t, m, n, name) == nil {
			t.Errorf("missing %s", n)
		}
	}

	q.AddRateLimited("ns/c")
	if got := value(t, m, "workqueue_retries_total", name); got != 1 {
		t.Errorf("retries = %v, want 1", got)
	}

	// A second queue with the same name shares the series instead of
	// failing registration.
	q2 := workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: "deployment", MetricsProvider: m.WorkqueueMetricsProvider()})
	q2.Add("x")
	q2.ShutDown()
	if got := value(t, m, "workqueue_adds_total", name); got != 3 {
		t.Errorf("adds after a second queue = %v, want 3", got)
	}
}
