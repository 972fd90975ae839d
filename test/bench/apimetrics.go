package main

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"k8s.io/client-go/kubernetes"
)

// The API server's CPU is one figure per phase (phasecpu.go); what each
// kind of request costs it is not measured anywhere. Its own metrics count
// the requests of each kind (apiserver_request_total) and sum their
// durations (apiserver_request_duration_seconds): latency, not CPU. The
// bench scrapes them at both ends of a phase and splits the API server's
// measured CPU between the kinds in proportion to their summed duration,
// an estimate that assumes a second of a request costs the same CPU
// whatever its kind (docs/performance.md, The figures).

const (
	requestTotalMetric    = "apiserver_request_total"
	requestDurationMetric = "apiserver_request_duration_seconds"
)

// requestKind is a verb (lower case, as the metrics name it: apply for
// server-side apply, watch for a list that watches) and
// resource[/subresource], or a non-resource request's path.
type requestKind struct{ verb, resource string }

func (k requestKind) String() string { return k.verb + " " + k.resource }

// longRunning kinds hold their request open (a watch for as long as it
// lasts), so their duration is not work and takes no share of the CPU.
func (k requestKind) longRunning() bool { return k.verb == "watch" || k.verb == "connect" }

// requestStat is what the metrics say of one kind: how many requests and
// their summed duration in seconds.
type requestStat struct{ count, seconds float64 }

// requestStats are the API server's requests by kind, since it started.
type requestStats map[requestKind]requestStat

// scrapeRequests reads the API server's /metrics through client, which
// must be allowed to (the admin kubeconfig is).
func scrapeRequests(ctx context.Context, client kubernetes.Interface) (requestStats, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	body, err := client.CoreV1().RESTClient().Get().AbsPath("/metrics").SetHeader("Accept", "text/plain").DoRaw(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading kube-apiserver's /metrics: %w", err)
	}
	stats, err := parseRequestMetrics(bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("kube-apiserver's /metrics: %w", err)
	}
	return stats, nil
}

// parseRequestMetrics reads the request counts and duration sums from the
// Prometheus text format, summed over every label but verb, resource and
// subresource (code, group, version, scope, component, dry run).
func parseRequestMetrics(in io.Reader) (requestStats, error) {
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(in)
	if err != nil {
		return nil, fmt.Errorf("parsing the metrics: %w", err)
	}
	stats := requestStats{}
	if f := families[requestTotalMetric]; f != nil {
		for _, m := range f.GetMetric() {
			k := kindOf(m)
			s := stats[k]
			s.count += m.GetCounter().GetValue()
			stats[k] = s
		}
	}
	if f := families[requestDurationMetric]; f != nil {
		for _, m := range f.GetMetric() {
			k := kindOf(m)
			s := stats[k]
			s.seconds += m.GetHistogram().GetSampleSum()
			stats[k] = s
		}
	}
	if len(stats) == 0 {
		return nil, fmt.Errorf("neither %s nor %s found", requestTotalMetric, requestDurationMetric)
	}
	return stats, nil
}

func kindOf(m *dto.Metric) requestKind {
	var verb, resource, sub string
	for _, l := range m.GetLabel() {
		switch l.GetName() {
		case "verb":
			verb = strings.ToLower(l.GetValue())
		case "resource":
			resource = l.GetValue()
		case "subresource":
			sub = l.GetValue()
		}
	}
	switch {
	case resource == "":
		resource = sub // a non-resource request's path, or none
	case sub != "":
		resource += "/" + sub
	}
	return requestKind{verb: verb, resource: resource}
}

// since is what happened between before and s: the difference of each
// kind, kinds without requests left out. A kind missing from before had
// none yet (the metrics show a kind once it was first requested).
func (s requestStats) since(before requestStats) requestStats {
	out := requestStats{}
	for k, after := range s {
		b := before[k]
		d := requestStat{count: after.count - b.count, seconds: after.seconds - b.seconds}
		if d.count > 0 || d.seconds > 0 {
			out[k] = d
		}
	}
	return out
}

// kindCost is one kind's requests in a phase and its estimated share of
// the API server's CPU (zero for long-running kinds, or when the CPU was
// not measured).
type kindCost struct {
	kind           requestKind
	count, seconds float64
	cpu            time.Duration
}

// attribute splits apiCPU between the kinds of d in proportion to their
// summed duration, long-running kinds left out, and lists the kinds by
// duration, largest first (ties by count, then kind).
func attribute(d requestStats, apiCPU time.Duration) []kindCost {
	var work float64
	for k, s := range d {
		if !k.longRunning() {
			work += s.seconds
		}
	}
	out := make([]kindCost, 0, len(d))
	for k, s := range d {
		c := kindCost{kind: k, count: s.count, seconds: s.seconds}
		if !k.longRunning() && work > 0 {
			c.cpu = time.Duration(float64(apiCPU) * s.seconds / work)
		}
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b kindCost) int {
		return cmp.Or(cmp.Compare(b.seconds, a.seconds), cmp.Compare(b.count, a.count),
			cmp.Compare(a.kind.resource, b.kind.resource), cmp.Compare(a.kind.verb, b.kind.verb))
	})
	return out
}

// requestKindRows renders a phase's top kinds, one report row each:
// requests, duration and estimated CPU, per server.
func requestKindRows(costs []kindCost, n, top int) [][2]string {
	var rows [][2]string
	for _, c := range costs[:min(top, len(costs))] {
		share := "no CPU share (long-running)"
		if !c.kind.longRunning() {
			share = fmt.Sprintf("≈ %.2f ms CPU", msPerServer(c.cpu, n))
		}
		rows = append(rows, [2]string{c.kind.String(), fmt.Sprintf("%.2f requests, %.2f ms duration, %s",
			c.count/float64(n), 1000*c.seconds/float64(n), share)})
	}
	return rows
}

// msPerServer is d per server in milliseconds.
func msPerServer(d time.Duration, n int) float64 {
	return float64(d) / float64(time.Millisecond) / float64(n)
}

// kibPerServer is the growth from base to final per server in KiB.
func kibPerServer(final, base int64, n int) float64 {
	return float64(final-base) / 1024 / float64(n)
}
