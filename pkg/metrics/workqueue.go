package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/client-go/util/workqueue"
)

// queueMetrics are the client-go workqueue metrics, one series per queue
// name (label name). Queues created twice with the same name (for example
// by several managers in one test process) share their series.
type queueMetrics struct {
	depth          *prometheus.GaugeVec
	adds           *prometheus.CounterVec
	latency        *prometheus.HistogramVec
	workDuration   *prometheus.HistogramVec
	unfinished     *prometheus.GaugeVec
	longestRunning *prometheus.GaugeVec
	retries        *prometheus.CounterVec
}

func newQueueMetrics() queueMetrics {
	const subsystem = "workqueue"
	labels := []string{"name"}
	// 10 ns to 1000 s: queue waits and passes range from nothing to minutes.
	buckets := prometheus.ExponentialBuckets(10e-9, 10, 12)
	return queueMetrics{
		depth: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Subsystem: subsystem, Name: "depth",
			Help: "Current depth of the workqueue.",
		}, labels),
		adds: prometheus.NewCounterVec(prometheus.CounterOpts{
			Subsystem: subsystem, Name: "adds_total",
			Help: "Adds handled by the workqueue.",
		}, labels),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Subsystem: subsystem, Name: "queue_duration_seconds",
			Help:    "Time an item stays in the workqueue before it is requested.",
			Buckets: buckets,
		}, labels),
		workDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Subsystem: subsystem, Name: "work_duration_seconds",
			Help:    "Time processing an item from the workqueue takes.",
			Buckets: buckets,
		}, labels),
		unfinished: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Subsystem: subsystem, Name: "unfinished_work_seconds",
			Help: "Seconds of work in progress not yet observed by work_duration; large values hint at stuck workers.",
		}, labels),
		longestRunning: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Subsystem: subsystem, Name: "longest_running_processor_seconds",
			Help: "Seconds the longest running processor of the workqueue has been running.",
		}, labels),
		retries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Subsystem: subsystem, Name: "retries_total",
			Help: "Rate-limited re-adds handled by the workqueue.",
		}, labels),
	}
}

func (q queueMetrics) register(r prometheus.Registerer) {
	r.MustRegister(q.depth, q.adds, q.latency, q.workDuration, q.unfinished, q.longestRunning, q.retries)
}

// queueProvider implements workqueue.MetricsProvider on a Metrics' queue
// collectors.
type queueProvider struct{ q *queueMetrics }

var _ workqueue.MetricsProvider = queueProvider{}

func (p queueProvider) NewDepthMetric(name string) workqueue.GaugeMetric {
	return p.q.depth.WithLabelValues(name)
}

func (p queueProvider) NewAddsMetric(name string) workqueue.CounterMetric {
	return p.q.adds.WithLabelValues(name)
}

func (p queueProvider) NewLatencyMetric(name string) workqueue.HistogramMetric {
	return p.q.latency.WithLabelValues(name)
}

func (p queueProvider) NewWorkDurationMetric(name string) workqueue.HistogramMetric {
	return p.q.workDuration.WithLabelValues(name)
}

func (p queueProvider) NewUnfinishedWorkSecondsMetric(name string) workqueue.SettableGaugeMetric {
	return p.q.unfinished.WithLabelValues(name)
}

func (p queueProvider) NewLongestRunningProcessorSecondsMetric(name string) workqueue.SettableGaugeMetric {
	return p.q.longestRunning.WithLabelValues(name)
}

func (p queueProvider) NewRetriesMetric(name string) workqueue.CounterMetric {
	return p.q.retries.WithLabelValues(name)
}

// WorkqueueMetricsProvider returns the provider to set as MetricsProvider in
// workqueue.TypedRateLimitingQueueConfig (with a non-empty Name, which
// becomes the name label). On a nil Metrics it returns nil, which leaves
// client-go's global provider (a no-op unless workqueue.SetProvider was
// called) in charge.
func (m *Metrics) WorkqueueMetricsProvider() workqueue.MetricsProvider {
	if m == nil {
		return nil
	}
	return queueProvider{q: &m.queue}
}
