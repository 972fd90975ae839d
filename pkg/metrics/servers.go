package metrics

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// PhaseUnknown is the phase label of OGXServers whose status has no phase
// yet (the status controller has not reported on them).
const PhaseUnknown = "Unknown"

// serverPhases is the collector of ogx_controller_servers{phase}. The
// count is taken at scrape time from a callback (the controller's caches),
// so the gauge can never drift from the fleet the way one kept up by event
// handlers could, and costs nothing between scrapes.
type serverPhases struct {
	desc *prometheus.Desc

	mu    sync.Mutex
	count func() map[string]int
}

func newServerPhases() *serverPhases {
	return &serverPhases{desc: prometheus.NewDesc(
		prometheus.BuildFQName(Namespace, "", "servers"),
		"OGXServers in this replica's caches, by status.phase ("+PhaseUnknown+" before the first status).",
		[]string{"phase"}, nil)}
}

func (p *serverPhases) Describe(ch chan<- *prometheus.Desc) { ch <- p.desc }

// Collect emits one series per phase the callback returns, and nothing
// before a callback is set (an offline command has no fleet to count).
func (p *serverPhases) Collect(ch chan<- prometheus.Metric) {
	p.mu.Lock()
	count := p.count
	p.mu.Unlock()
	if count == nil {
		return
	}
	for phase, n := range count() {
		ch <- prometheus.MustNewConstMetric(p.desc, prometheus.GaugeValue, float64(n), phase)
	}
}

// CountServersWith makes ogx_controller_servers report count's answer at
// every scrape: the number of OGXServers by phase. count should return
// every known phase, zeros included, so that a phase's series does not
// vanish when its last server leaves it. A later call replaces the
// callback (one Manager per process; tests may build several).
func (m *Metrics) CountServersWith(count func() map[string]int) {
	if m == nil {
		return
	}
	m.phases.mu.Lock()
	defer m.phases.mu.Unlock()
	m.phases.count = count
}

// CountServerChange counts one OGXServer change the caches observed: a
// creation, a deletion, or a new generation (a spec change). The monitoring
// rules compare writes against it to tell a converged controller that keeps
// writing from one that follows its users (docs/operations-monitoring.md,
// OGXControllerWritesWhileIdle).
func (m *Metrics) CountServerChange() {
	if m == nil {
		return
	}
	m.serverChanges.Inc()
}
