package metrics

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Namespace prefixes every metric of the controller itself.
const Namespace = "ogx_controller"

// Reconcile results, the values of the result label of
// ogx_controller_reconcile_total.
const (
	ResultSuccess = "success"
	ResultWaiting = "waiting"
	ResultError   = "error"
)

// Write verbs, the values of the verb label of ogx_controller_writes_total.
const (
	VerbCreate = "create"
	VerbUpdate = "update"
	VerbApply  = "apply"
	VerbPatch  = "patch"
	VerbDelete = "delete"
)

// Server probe results, suggested values of the result label of
// ogx_controller_server_probe_total.
const (
	ProbeSuccess = "success"
	ProbeFailure = "failure"
)

// Metrics owns a Prometheus registry and every collector the controller
// exports. Build it with New; the zero value is not usable, but a nil
// *Metrics is: every method is then a no-op.
type Metrics struct {
	registry *prometheus.Registry

	reconcileTotal    *prometheus.CounterVec
	reconcileDuration *prometheus.HistogramVec
	writesTotal       *prometheus.CounterVec
	applySkipped      *prometheus.CounterVec
	probeTotal        *prometheus.CounterVec
	eventsTotal       *prometheus.CounterVec
	eventsDropped     *prometheus.CounterVec
	leader            prometheus.Gauge
	admissionTotal    *prometheus.CounterVec
	admissionDuration prometheus.Histogram
	buildInfo         *prometheus.GaugeVec
	serverChanges     prometheus.Counter
	phases            *serverPhases

	queue queueMetrics
	rest  restMetrics
}

// New returns a Metrics with a fresh registry holding the Go, process,
// workqueue, REST client and ogx_controller_* collectors.
// ogx_controller_build_info{version} is set to 1 and ogx_controller_leader
// to 0.
func New(version string) *Metrics {
	m := &Metrics{registry: prometheus.NewRegistry()}

	m.defineControllerMetrics()
	m.defineProcessMetrics(version)
	m.phases = newServerPhases()

	m.queue = newQueueMetrics()
	m.rest = newRESTMetrics()

	m.registry.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.reconcileTotal, m.reconcileDuration, m.writesTotal, m.applySkipped, m.probeTotal,
		m.eventsTotal, m.eventsDropped, m.leader, m.admissionTotal, m.admissionDuration, m.buildInfo,
		m.serverChanges, m.phases,
	)
	m.queue.register(m.registry)
	m.rest.register(m.registry)
	return m
}

// defineControllerMetrics makes the collectors of what the controllers do:
// passes, writes, skipped applies, probes.
func (m *Metrics) defineControllerMetrics() {
	m.reconcileTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: Namespace,
		Name:      "reconcile_total",
		Help:      "Passes of a controller over one OGXServer, by result (success, waiting or error).",
	}, []string{"controller", "result"})
	m.reconcileDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: Namespace,
		Name:      "reconcile_duration_seconds",
		Help:      "Duration of a controller's pass over one OGXServer.",
		// 5 ms to about 41 s.
		Buckets: prometheus.ExponentialBuckets(0.005, 2, 14),
	}, []string{"controller"})
	m.writesTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: Namespace,
		Name:      "writes_total",
		Help:      "Write requests sent to the API server, by object kind (with its subresource) and verb (create, update, apply, patch or delete).",
	}, []string{"kind", "verb"})
	m.applySkipped = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: Namespace,
		Name:      "apply_skipped_total",
		Help:      "Server-side applies skipped because the object already matched, by object kind.",
	}, []string{"kind"})
	m.probeTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: Namespace,
		Name:      "server_probe_total",
		Help:      "HTTP probes of OGX servers, by result.",
	}, []string{"result"})
}

// defineProcessMetrics makes the collectors of the process as a whole:
// Events, leadership, admission reviews, the build and the fleet's changes.
func (m *Metrics) defineProcessMetrics(version string) {
	m.eventsTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: Namespace,
		Name:      "events_total",
		Help: "Events recorded, by result: sent, failed (the API server refused or did not answer), " +
			"dropped_rate (over the event rate budget) or dropped_queue (the send queue was full).",
	}, []string{"result"})
	m.eventsDropped = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: Namespace,
		Name:      "events_dropped_total",
		Help: "Events dropped by the event budget (over the rate or the send queue full), by type and reason; " +
			"a dropped Warning is owed and sent later while its cause holds.",
	}, []string{"type", "reason"})
	m.leader = prometheus.NewGauge(prometheus.GaugeOpts{
		Namespace: Namespace,
		Name:      "leader",
		Help:      "1 while this replica holds the leader Lease, else 0.",
	})
	m.admissionTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: Namespace,
		Name:      "admission_reviews_total",
		Help:      "Admission reviews answered, by operation, decision and status code.",
	}, []string{"operation", "allowed", "code"})
	m.admissionDuration = prometheus.NewHistogram(prometheus.HistogramOpts{
		Namespace: Namespace,
		Name:      "admission_review_duration_seconds",
		Help:      "Time to answer one admission review.",
		// 0.5 ms to about 1 s.
		Buckets: prometheus.ExponentialBuckets(0.0005, 2, 12),
	})
	m.buildInfo = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Namespace: Namespace,
		Name:      "build_info",
		Help:      "Always 1; the version label carries the controller's version.",
	}, []string{"version"})
	m.buildInfo.WithLabelValues(version).Set(1)
	m.serverChanges = prometheus.NewCounter(prometheus.CounterOpts{
		Namespace: Namespace,
		Name:      "server_changes_total",
		Help:      "OGXServer creations, deletions and spec changes (new generations) seen by this replica's caches.",
	})
}

// Registry returns the registry behind the metrics, for gathering or for
// registering more collectors. Nil on a nil Metrics.
func (m *Metrics) Registry() *prometheus.Registry {
	if m == nil {
		return nil
	}
	return m.registry
}

// Handler serves the registry in the Prometheus text format, without any
// authentication; Server puts it behind authentication and authorisation.
func (m *Metrics) Handler() http.Handler {
	if m == nil {
		return http.NotFoundHandler()
	}
	return promhttp.InstrumentMetricHandler(m.registry, promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{
		// Serve what can be gathered; a broken collector shows up in
		// promhttp_metric_handler_errors_total instead of failing scrapes.
		ErrorHandling:       promhttp.ContinueOnError,
		Registry:            m.registry,
		MaxRequestsInFlight: 10,
		Timeout:             gatherTimeout,
	}))
}

// InitController creates the series of one controller with value 0 (every
// result of ogx_controller_reconcile_total and its duration histogram), so
// rates exist before the first pass. Every queue runner calls it.
func (m *Metrics) InitController(controller string) {
	if m == nil {
		return
	}
	for _, r := range []string{ResultSuccess, ResultWaiting, ResultError} {
		m.reconcileTotal.WithLabelValues(controller, r)
	}
	m.reconcileDuration.WithLabelValues(controller)
}

// InitKind creates the skipped-apply series of one child kind with value
// 0, so its rate exists before the first skip: a fleet start skips no apply
// (the answer to our own apply starts no pass of its writer). Every
// child's applier calls it.
func (m *Metrics) InitKind(kind string) {
	if m == nil {
		return
	}
	m.applySkipped.WithLabelValues(kind)
}

// ObserveReconcile records one pass of controller over an OGXServer: result
// is ResultSuccess, ResultWaiting or ResultError, d its duration.
func (m *Metrics) ObserveReconcile(controller, result string, d time.Duration) {
	if m == nil {
		return
	}
	m.reconcileTotal.WithLabelValues(controller, result).Inc()
	m.reconcileDuration.WithLabelValues(controller).Observe(d.Seconds())
}

// CountWrite counts one write request on an object of kind (e.g.
// "Deployment", "OGXServer/status") with one of the Verb constants.
// WrapTransport calls it for every write a client sends.
func (m *Metrics) CountWrite(kind, verb string) {
	if m == nil {
		return
	}
	m.writesTotal.WithLabelValues(kind, verb).Inc()
}

// CountApplySkipped counts one apply of an object of kind that was skipped
// because the object already matched (docs/controllers.md, No-op skip and
// drift).
func (m *Metrics) CountApplySkipped(kind string) {
	if m == nil {
		return
	}
	m.applySkipped.WithLabelValues(kind).Inc()
}

// CountProbe counts one server probe (docs/status.md, Server probe) with its
// result, for example ProbeSuccess or ProbeFailure.
func (m *Metrics) CountProbe(result string) {
	if m == nil {
		return
	}
	m.probeTotal.WithLabelValues(result).Inc()
}

// Results of an Event, the values of the result label of
// ogx_controller_events_total.
const (
	EventSent         = "sent"
	EventFailed       = "failed"
	EventDroppedRate  = "dropped_rate"
	EventDroppedQueue = "dropped_queue"
)

// CountEvent counts one Event with its result (EventSent, ...).
func (m *Metrics) CountEvent(result string) {
	if m == nil {
		return
	}
	m.eventsTotal.WithLabelValues(result).Inc()
}

// CountEventDropped counts one Event of eventType (Normal, Warning) and
// reason that the event budget dropped. Reasons are the API package's
// constants, a fixed set, so the series stay bounded.
func (m *Metrics) CountEventDropped(eventType, reason string) {
	if m == nil {
		return
	}
	m.eventsDropped.WithLabelValues(eventType, reason).Inc()
}

// SetLeader sets ogx_controller_leader to 1 (leading) or 0.
func (m *Metrics) SetLeader(leading bool) {
	if m == nil {
		return
	}
	if leading {
		m.leader.Set(1)
	} else {
		m.leader.Set(0)
	}
}

// ObserveAdmission records one admission review: its operation (CREATE,
// UPDATE, DELETE or CONNECT; anything else counts as "other"), the decision,
// the response status code as the code label (admission.Review reports 0
// when allowed and 400, 422 or 500 for a denial; other values count as
// "other") and the time taken. The operation comes from the request body,
// which anyone who reaches the webhook port writes: label values are kept
// to a fixed set so a stream of made-up operations cannot grow the
// process's memory.
func (m *Metrics) ObserveAdmission(op string, allowed bool, code int32, d time.Duration) {
	if m == nil {
		return
	}
	m.admissionTotal.WithLabelValues(admissionOperation(op), strconv.FormatBool(allowed), admissionCode(code)).Inc()
	m.admissionDuration.Observe(d.Seconds())
}

// admissionOperation is op when it is one of the API's admission
// operations, else "other".
func admissionOperation(op string) string {
	switch op {
	case "CREATE", "UPDATE", "DELETE", "CONNECT":
		return op
	}
	return "other"
}

// admissionCode is the code label of a review's status code: the codes the
// webhook answers with, else "other".
func admissionCode(code int32) string {
	switch code {
	case 0, 400, 403, 422, 500:
		return strconv.FormatInt(int64(code), 10)
	}
	return "other"
}
