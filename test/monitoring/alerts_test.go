package monitoring

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/promqltest"
	"github.com/prometheus/prometheus/rules"
)

// evalStep is how often the rules are evaluated in these tests, Prometheus'
// usual evaluation interval.
const evalStep = 30 * time.Second

// firing evaluates the alert named name over series (promqltest's load
// syntax, starting at time 0) every evalStep up to until, as Prometheus'
// rule manager would, and returns the label sets firing at each of at.
func firing(t *testing.T, name, series string, until time.Duration, at ...time.Duration) map[time.Duration][]labels.Labels {
	t.Helper()
	rule := findAlert(t, name)
	p := Parser()
	expr, err := p.ParseExpr(rule.Expr.String())
	if err != nil {
		t.Fatal(err)
	}
	hold, err := model.ParseDuration(string(*rule.For))
	if err != nil {
		t.Fatal(err)
	}
	storage := promqltest.LoadedStorage(t, series)
	engine := promqltest.NewTestEngine(t, false, 0, 1_000_000)
	query := rules.EngineQueryFunc(engine, storage)
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	ar := rules.NewAlertingRule(name, expr, time.Duration(hold), 0, labels.FromMap(rule.Labels),
		labels.EmptyLabels(), labels.EmptyLabels(), "", false, logger)

	want := map[time.Duration]bool{}
	for _, a := range at {
		want[a] = true
	}
	out := map[time.Duration][]labels.Labels{}
	for ts := time.Duration(0); ts <= until; ts += evalStep {
		if _, err := ar.Eval(context.Background(), 0, time.Unix(0, 0).Add(ts), query, nil, 0); err != nil {
			t.Fatalf("%s at %s: %v", name, ts, err)
		}
		if !want[ts] {
			continue
		}
		out[ts] = []labels.Labels{}
		for _, a := range ar.ActiveAlerts() {
			if a.State == rules.StateFiring {
				out[ts] = append(out[ts], a.Labels)
			}
		}
	}
	return out
}

func findAlert(t *testing.T, name string) monitoringv1.Rule {
	t.Helper()
	for _, g := range loadRule(t).Spec.Groups {
		for _, r := range g.Rules {
			if r.Alert == name {
				return r
			}
		}
	}
	t.Fatalf("no alert %s in %s", name, RuleFile)
	return monitoringv1.Rule{}
}

// expectFiring checks whether name fires at each time: want[time] is the
// number of alerts (label sets) that must be firing then.
func expectFiring(t *testing.T, name, series string, want map[time.Duration]int) []labels.Labels {
	t.Helper()
	var until time.Duration
	var at []time.Duration
	for ts := range want {
		at = append(at, ts)
		until = max(until, ts)
	}
	got := firing(t, name, series, until, at...)
	var last []labels.Labels
	for ts, n := range want {
		if len(got[ts]) != n {
			t.Errorf("%s at %s: %d firing %v, want %d", name, ts, len(got[ts]), got[ts], n)
		}
		if ts == until {
			last = got[ts]
		}
	}
	return last
}

// The scenarios below use a 30 s sample interval: "0+30x200" is a counter
// growing by 1 a second for 100 minutes.

func TestAlertNoLeader(t *testing.T) {
	t.Run("a leader", func(t *testing.T) {
		expectFiring(t, "OGXControllerNoLeader", `load 30s
			ogx_controller_leader{job="ogx-controller",instance="a"} 1x60
			ogx_controller_leader{job="ogx-controller",instance="b"} 0x60`,
			map[time.Duration]int{10 * time.Minute: 0, 30 * time.Minute: 0})
	})
	t.Run("replicas without a leader", func(t *testing.T) {
		expectFiring(t, "OGXControllerNoLeader", `load 30s
			ogx_controller_leader{job="ogx-controller",instance="a"} 0x60
			ogx_controller_leader{job="ogx-controller",instance="b"} 0x60`,
			map[time.Duration]int{4 * time.Minute: 0, 6 * time.Minute: 1})
	})
	t.Run("nothing scraped", func(t *testing.T) {
		expectFiring(t, "OGXControllerNoLeader", `load 30s
			up{job="something-else"} 1x60`,
			map[time.Duration]int{4 * time.Minute: 0, 6 * time.Minute: 1})
	})
	t.Run("the leader disappears", func(t *testing.T) {
		// Leads for 10 minutes, then the series stops (the pod is gone).
		expectFiring(t, "OGXControllerNoLeader", `load 30s
			ogx_controller_leader{job="ogx-controller",instance="a"} 1x20
			up{job="something-else"} 1x60`,
			map[time.Duration]int{10 * time.Minute: 0, 20 * time.Minute: 1})
	})
}

func TestAlertReconcileErrors(t *testing.T) {
	fired := expectFiring(t, "OGXControllerReconcileErrors", `load 30s
		ogx_controller_reconcile_total{job="ogx-controller",controller="deployment",result="error"}   0+30x100
		ogx_controller_reconcile_total{job="ogx-controller",controller="deployment",result="success"} 0+30x100
		ogx_controller_reconcile_total{job="ogx-controller",controller="status",result="error"}       0+1x100
		ogx_controller_reconcile_total{job="ogx-controller",controller="status",result="success"}     0+60x100`,
		map[time.Duration]int{10 * time.Minute: 0, 30 * time.Minute: 1})
	if len(fired) == 1 && fired[0].Get("controller") != "deployment" {
		t.Errorf("firing for %v, want controller=deployment (half its passes fail; status fails under 2%%)", fired[0])
	}
}

func TestAlertWorkqueueGrowing(t *testing.T) {
	expectFiring(t, "OGXControllerWorkqueueGrowing", `load 30s
		workqueue_depth{job="ogx-controller",name="deployment"} 0+1x120
		workqueue_depth{job="ogx-controller",name="service"}    50x120
		workqueue_depth{job="ogx-controller",name="pvc"}        0+0.05x120
		workqueue_depth{job="kube-controller-manager",name="deployment"} 0+5x120`,
		map[time.Duration]int{10 * time.Minute: 0, 40 * time.Minute: 1})
}

func TestAlertAdmissionSlow(t *testing.T) {
	const bucket = "ogx_controller_admission_review_duration_seconds_bucket"
	t.Run("slow", func(t *testing.T) {
		expectFiring(t, "OGXControllerAdmissionSlow", `load 30s
			`+bucket+`{job="ogx-controller",le="0.05"} 0x60
			`+bucket+`{job="ogx-controller",le="0.1"}  0x60
			`+bucket+`{job="ogx-controller",le="0.2"}  0+10x60
			`+bucket+`{job="ogx-controller",le="+Inf"} 0+10x60`,
			map[time.Duration]int{5 * time.Minute: 0, 20 * time.Minute: 1})
	})
	t.Run("fast", func(t *testing.T) {
		expectFiring(t, "OGXControllerAdmissionSlow", `load 30s
			`+bucket+`{job="ogx-controller",le="0.05"} 0+10x60
			`+bucket+`{job="ogx-controller",le="0.1"}  0+10x60
			`+bucket+`{job="ogx-controller",le="0.2"}  0+10x60
			`+bucket+`{job="ogx-controller",le="+Inf"} 0+10x60`,
			map[time.Duration]int{20 * time.Minute: 0})
	})
	t.Run("no reviews", func(t *testing.T) {
		expectFiring(t, "OGXControllerAdmissionSlow", `load 30s
			`+bucket+`{job="ogx-controller",le="0.05"} 0x60
			`+bucket+`{job="ogx-controller",le="+Inf"} 0x60`,
			map[time.Duration]int{20 * time.Minute: 0})
	})
}

func TestAlertWritesWhileIdle(t *testing.T) {
	const writes, changes = "ogx_controller_writes_total", "ogx_controller_server_changes_total"
	until := 100 * time.Minute
	t.Run("a write loop with no OGXServer change", func(t *testing.T) {
		expectFiring(t, "OGXControllerWritesWhileIdle", `load 30s
			`+writes+`{job="ogx-controller",kind="Deployment",verb="apply"} 0+1x200
			`+writes+`{job="ogx-controller",kind="Lease",verb="update"}     0+1x200
			`+changes+`{job="ogx-controller"} 3x200`,
			map[time.Duration]int{10 * time.Minute: 0, 60 * time.Minute: 1, until: 1})
	})
	t.Run("only Lease renewals and Events", func(t *testing.T) {
		expectFiring(t, "OGXControllerWritesWhileIdle", `load 30s
			`+writes+`{job="ogx-controller",kind="Lease",verb="update"} 0+1x200
			`+writes+`{job="ogx-controller",kind="Event",verb="create"} 0+1x200
			`+writes+`{job="ogx-controller",kind="Deployment",verb="apply"} 7x200
			`+changes+`{job="ogx-controller"} 3x200`,
			map[time.Duration]int{60 * time.Minute: 0, until: 0})
	})
	t.Run("writes that follow OGXServer changes", func(t *testing.T) {
		expectFiring(t, "OGXControllerWritesWhileIdle", `load 30s
			`+writes+`{job="ogx-controller",kind="Deployment",verb="apply"} 0+1x200
			`+changes+`{job="ogx-controller"} 0+1x200`,
			map[time.Duration]int{60 * time.Minute: 0, until: 0})
	})
	t.Run("a rollout that settles after a change", func(t *testing.T) {
		// One spec change, then 10 minutes of status writes, then quiet.
		expectFiring(t, "OGXControllerWritesWhileIdle", `load 30s
			`+writes+`{job="ogx-controller",kind="OGXServer/status",verb="apply"} 0+1x20 20x180
			`+changes+`{job="ogx-controller"} 0 1x199`,
			map[time.Duration]int{20 * time.Minute: 0, 40 * time.Minute: 0, 60 * time.Minute: 0, until: 0})
	})
}
