package controller

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/controllertest"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/probe"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/probe/probetest"
)

// phRedirect sends every probe to one test server, whatever the service URL.
type phRedirect struct {
	url    string
	inner  probe.Prober
	probes atomic.Int32
	last   atomic.Value // probe.Target
}

func (r *phRedirect) Probe(ctx context.Context, t probe.Target) probe.Result {
	r.probes.Add(1)
	r.last.Store(t)
	t.BaseURL = r.url
	return r.inner.Probe(ctx, t)
}

// TestProbeHTTPHealthCheckFollowsProbe runs the status controller on fakes
// with the probe on: 503 gives HealthCheck False with the HTTP code, 200 gives
// True, and Ready stays True throughout.
func TestProbeHTTPHealthCheckFollowsProbe(t *testing.T) {
	srv := probetest.NewServer(503, `{"version":"0.9.0"}`, probetest.ProvidersBody)
	ts := httptest.NewServer(srv)
	defer ts.Close()
	prober := &phRedirect{url: ts.URL, inner: probe.NewHTTPProber(5*time.Second, "")}

	s := controllertest.Server(sfNamespace, sfName, sfUID)
	clock := clocktesting.NewFakePassiveClock(time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC))
	e := newSFEnv(t, base.Options{Clock: clock, ProbeEnabled: true, ProbeInterval: time.Minute, Prober: prober}, nil, s)
	e.m.Events.Lead()
	e.syncChildren(sfKey)
	e.makeAvailable(sfName)
	// health is the HealthCheck Events queued since the last call: one per
	// verdict that changes the condition, the first one included.
	health := func() []string {
		var out []string
		for _, ev := range controllertest.DrainEvents(e.m.Events) {
			if strings.Contains(ev, " HealthCheck") {
				out = append(out, ev)
			}
		}
		return out
	}

	// A pass starts a due probe in the background and reports the last
	// result; the pass after the probe reports its result.
	check := func(step string, wantStatus metav1.ConditionStatus, wantReason, wantMsg string) *ogxv1beta1.OGXServer {
		t.Helper()
		if _, err := e.m.status.Sync(e.ctx, sfKey); err != nil {
			t.Fatal(err)
		}
		phProbesSettled(t, e.m.status.Probes())
		e.WaitCaught()
		if _, err := e.m.status.Sync(e.ctx, sfKey); err != nil {
			t.Fatal(err)
		}
		e.WaitCaught()
		got, err := e.ogx.OgxV1beta1().OGXServers(sfNamespace).Get(e.ctx, sfName, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		hc := apimeta.FindStatusCondition(got.Status.Conditions, ogxv1beta1.ConditionHealthCheck)
		if hc == nil || hc.Status != wantStatus || hc.Reason != wantReason || hc.Message != wantMsg {
			t.Errorf("%s: HealthCheck = %+v, want %s %s %q", step, hc, wantStatus, wantReason, wantMsg)
		}
		ready := apimeta.FindStatusCondition(got.Status.Conditions, ogxv1beta1.ConditionReady)
		if got.Status.Phase != ogxv1beta1.PhaseReady || ready == nil || ready.Status != metav1.ConditionTrue || ready.Reason != "Available" {
			t.Errorf("%s: phase %q Ready %+v, want Ready True Available whatever the probe says", step, got.Status.Phase, ready)
		}
		return got
	}

	got := check("503", metav1.ConditionFalse, "HealthCheckFailed", "GET /v1/health returned HTTP 503")
	if evs := health(); len(evs) != 1 || !strings.HasPrefix(evs[0], "Warning HealthCheckFailed: ") {
		t.Errorf("after the first probe failed: HealthCheck Events %q, want one HealthCheckFailed Warning", evs)
	}
	if got.Status.Version.ServerVersion != "0.9.0" {
		t.Errorf("serverVersion = %q, want 0.9.0", got.Status.Version.ServerVersion)
	}
	// The stored config is the same JSON, compacted by the round trip.
	jsonValue := cmp.Transformer("json", func(j apiextensionsv1.JSON) any {
		var v any
		if err := json.Unmarshal(j.Raw, &v); err != nil {
			return string(j.Raw)
		}
		return v
	})
	if diff := cmp.Diff(probetest.WantProviders(), got.Status.DistributionConfig.Providers, jsonValue); diff != "" {
		t.Errorf("providers (-want +got):\n%s", diff)
	}
	tgt := prober.last.Load().(probe.Target)
	if tgt.BaseURL != "http://demo-service.team-a.svc.cluster.local:8321" || tgt.TLS {
		t.Errorf("probe target = %+v, want the Service URL over http", tgt)
	}

	// Within the interval and with an unchanged Deployment, no new probe.
	srv.Health.Store(200)
	clock.SetTime(clock.Now().Add(10 * time.Second))
	before := prober.probes.Load()
	check("cached 503", metav1.ConditionFalse, "HealthCheckFailed", "GET /v1/health returned HTTP 503")
	if n := prober.probes.Load() - before; n != 0 {
		t.Errorf("probed %d times within the interval", n)
	}
	if evs := health(); len(evs) != 0 {
		t.Errorf("an unchanged verdict sent HealthCheck Events %q", evs)
	}

	// After the interval: 200 → True; the version is kept when /v1/version fails.
	srv.Version.Store("")
	clock.SetTime(clock.Now().Add(time.Minute))
	got = check("200", metav1.ConditionTrue, "HealthCheckPassed", "Health check passed")
	if evs := health(); len(evs) != 1 || !strings.HasPrefix(evs[0], "Normal HealthCheckPassed: ") {
		t.Errorf("after the probe passed: HealthCheck Events %q, want one HealthCheckPassed", evs)
	}
	if got.Status.Version.ServerVersion != "0.9.0" {
		t.Errorf("serverVersion after a failed /v1/version = %q, want 0.9.0 kept", got.Status.Version.ServerVersion)
	}
	if prober.probes.Load()-before != 1 {
		t.Errorf("probes after the interval = %d, want 1", prober.probes.Load()-before)
	}
}

// phProbesSettled waits until no probe is in flight.
func phProbesSettled(t *testing.T, p *probe.State) {
	t.Helper()
	controllertest.Eventually(t, "probes in flight to finish", func() (bool, string) {
		n := p.InFlight()
		return n == 0, fmt.Sprintf("%d in flight", n)
	})
}

// phBlockingProber blocks every probe until release is closed.
type phBlockingProber struct {
	started chan struct{}
	release chan struct{}
}

func (p *phBlockingProber) Probe(ctx context.Context, _ probe.Target) probe.Result {
	p.started <- struct{}{}
	select {
	case <-p.release:
	case <-ctx.Done():
	}
	return probe.Result{HealthMessage: "GET /v1/health: connection refused"}
}

// TestStatusPassNeverWaitsOnProbe: with a probe that does not answer, the
// status pass still writes Ready; the probe's result arrives later and
// enqueues the key.
func TestStatusPassNeverWaitsOnProbe(t *testing.T) {
	prober := &phBlockingProber{started: make(chan struct{}, 1), release: make(chan struct{})}
	s := controllertest.Server(sfNamespace, sfName, sfUID)
	e := newSFEnv(t, base.Options{ProbeEnabled: true, ProbeInterval: time.Minute, Prober: prober}, nil, s)
	defer close(prober.release)
	e.syncChildren(sfKey)
	e.makeAvailable(sfName)
	// The prober blocks until the test ends, so a pass that waited on it
	// would never return.
	if _, err := e.m.status.Sync(e.ctx, sfKey); err != nil {
		t.Fatal(err)
	}
	<-prober.started
	got, err := e.ogx.OgxV1beta1().OGXServers(sfNamespace).Get(e.ctx, sfName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Status.Phase != ogxv1beta1.PhaseReady {
		t.Errorf("phase %q with the probe in flight, want Ready", got.Status.Phase)
	}
	// A second pass while the probe is in flight starts no other probe.
	if _, err := e.m.status.Sync(e.ctx, sfKey); err != nil {
		t.Fatal(err)
	}
	select {
	case <-prober.started:
		t.Error("a second probe started while one was in flight")
	default:
	}
}
