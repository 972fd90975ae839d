package main

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ogx-k8s/ogx-controller/test/framework"
)

// metricsText is a cut of kube-apiserver's /metrics: two codes and two
// scopes of one kind, a subresource, a watch, a non-resource request, and
// a family the parser must ignore.
const metricsText = `# HELP apiserver_request_total [STABLE] Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.
# TYPE apiserver_request_total counter
apiserver_request_total{code="201",component="apiserver",dry_run="",group="apps",resource="deployments",scope="resource",subresource="",verb="APPLY",version="v1"} 40
apiserver_request_total{code="409",component="apiserver",dry_run="",group="apps",resource="deployments",scope="resource",subresource="",verb="APPLY",version="v1"} 2
apiserver_request_total{code="200",component="apiserver",dry_run="",group="ogx.io",resource="ogxservers",scope="resource",subresource="status",verb="APPLY",version="v1beta1"} 50
apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="pods",scope="namespace",subresource="",verb="WATCH",version="v1"} 3
apiserver_request_total{code="200",component="",dry_run="",group="",resource="",scope="",subresource="/metrics",verb="GET",version=""} 1
# HELP apiserver_request_duration_seconds [STABLE] Response latency distribution in seconds.
# TYPE apiserver_request_duration_seconds histogram
apiserver_request_duration_seconds_bucket{component="apiserver",dry_run="",group="apps",resource="deployments",scope="resource",subresource="",verb="APPLY",version="v1",le="0.1"} 30
apiserver_request_duration_seconds_bucket{component="apiserver",dry_run="",group="apps",resource="deployments",scope="resource",subresource="",verb="APPLY",version="v1",le="+Inf"} 40
apiserver_request_duration_seconds_sum{component="apiserver",dry_run="",group="apps",resource="deployments",scope="resource",subresource="",verb="APPLY",version="v1"} 3.5
apiserver_request_duration_seconds_count{component="apiserver",dry_run="",group="apps",resource="deployments",scope="resource",subresource="",verb="APPLY",version="v1"} 40
apiserver_request_duration_seconds_bucket{component="apiserver",dry_run="",group="apps",resource="deployments",scope="namespace",subresource="",verb="APPLY",version="v1",le="+Inf"} 2
apiserver_request_duration_seconds_sum{component="apiserver",dry_run="",group="apps",resource="deployments",scope="namespace",subresource="",verb="APPLY",version="v1"} 0.5
apiserver_request_duration_seconds_count{component="apiserver",dry_run="",group="apps",resource="deployments",scope="namespace",subresource="",verb="APPLY",version="v1"} 2
apiserver_request_duration_seconds_bucket{component="apiserver",dry_run="",group="ogx.io",resource="ogxservers",scope="resource",subresource="status",verb="APPLY",version="v1beta1",le="+Inf"} 50
apiserver_request_duration_seconds_sum{component="apiserver",dry_run="",group="ogx.io",resource="ogxservers",scope="resource",subresource="status",verb="APPLY",version="v1beta1"} 2
apiserver_request_duration_seconds_count{component="apiserver",dry_run="",group="ogx.io",resource="ogxservers",scope="resource",subresource="status",verb="APPLY",version="v1beta1"} 50
apiserver_request_duration_seconds_bucket{component="apiserver",dry_run="",group="",resource="pods",scope="namespace",subresource="",verb="WATCH",version="v1",le="+Inf"} 3
apiserver_request_duration_seconds_sum{component="apiserver",dry_run="",group="",resource="pods",scope="namespace",subresource="",verb="WATCH",version="v1"} 120
apiserver_request_duration_seconds_count{component="apiserver",dry_run="",group="",resource="pods",scope="namespace",subresource="",verb="WATCH",version="v1"} 3
# HELP apiserver_response_sizes [STABLE] Response size distribution in bytes.
# TYPE apiserver_response_sizes histogram
apiserver_response_sizes_bucket{component="apiserver",group="apps",resource="deployments",scope="resource",subresource="",verb="APPLY",version="v1",le="+Inf"} 42
apiserver_response_sizes_sum{component="apiserver",group="apps",resource="deployments",scope="resource",subresource="",verb="APPLY",version="v1"} 99999
apiserver_response_sizes_count{component="apiserver",group="apps",resource="deployments",scope="resource",subresource="",verb="APPLY",version="v1"} 42
`

var (
	applyDeployments = requestKind{verb: "apply", resource: "deployments"}
	applyStatus      = requestKind{verb: "apply", resource: "ogxservers/status"}
	watchPods        = requestKind{verb: "watch", resource: "pods"}
	getMetrics       = requestKind{verb: "get", resource: "/metrics"}
)

var statCmp = cmp.AllowUnexported(requestKind{}, requestStat{}, kindCost{})

func TestParseRequestMetrics(t *testing.T) {
	for _, tc := range []struct {
		name    string
		in      string
		want    requestStats
		wantErr string
	}{
		{
			name: "summed over codes and scopes, by verb and resource/subresource",
			in:   metricsText,
			want: requestStats{
				applyDeployments: {count: 42, seconds: 4},
				applyStatus:      {count: 50, seconds: 2},
				watchPods:        {count: 3, seconds: 120},
				getMetrics:       {count: 1},
			},
		},
		{
			name:    "neither family",
			in:      "# TYPE other_total counter\nother_total 1\n",
			wantErr: "neither",
		},
		{
			name:    "not the text format",
			in:      "apiserver_request_total{verb=\"GET\" 1\n",
			wantErr: "parsing the metrics",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseRequestMetrics(strings.NewReader(tc.in))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got, statCmp); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestRequestStatsSince(t *testing.T) {
	before := requestStats{applyDeployments: {count: 10, seconds: 1}, watchPods: {count: 3, seconds: 100}}
	after := requestStats{applyDeployments: {count: 42, seconds: 4}, watchPods: {count: 3, seconds: 100}, applyStatus: {count: 50, seconds: 2}}
	want := requestStats{applyDeployments: {count: 32, seconds: 3}, applyStatus: {count: 50, seconds: 2}}
	if diff := cmp.Diff(want, after.since(before), statCmp); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestAttribute(t *testing.T) {
	s := time.Second
	for _, tc := range []struct {
		name   string
		d      requestStats
		apiCPU time.Duration
		want   []kindCost
	}{
		{
			name:   "split by duration, watches left out, largest first",
			d:      requestStats{applyDeployments: {count: 40, seconds: 3}, applyStatus: {count: 50, seconds: 1}, watchPods: {count: 3, seconds: 120}},
			apiCPU: 8 * s,
			want: []kindCost{
				{kind: watchPods, count: 3, seconds: 120},
				{kind: applyDeployments, count: 40, seconds: 3, cpu: 6 * s},
				{kind: applyStatus, count: 50, seconds: 1, cpu: 2 * s},
			},
		},
		{
			name:   "equal durations: more requests first",
			d:      requestStats{applyStatus: {count: 50, seconds: 1}, applyDeployments: {count: 40, seconds: 1}},
			apiCPU: 2 * s,
			want: []kindCost{
				{kind: applyStatus, count: 50, seconds: 1, cpu: s},
				{kind: applyDeployments, count: 40, seconds: 1, cpu: s},
			},
		},
		{
			name: "only watches: no share",
			d:    requestStats{watchPods: {count: 3, seconds: 120}},
			want: []kindCost{{kind: watchPods, count: 3, seconds: 120}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, attribute(tc.d, tc.apiCPU), statCmp); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestCostRows(t *testing.T) {
	s := time.Second
	raw := &cpuWindow{wall: 10 * s, used: map[string]time.Duration{framework.APIServer: 5 * s},
		requests: requestStats{requestKind{verb: "create", resource: "deployments"}: {count: 50, seconds: 1}}}
	ogx := &cpuWindow{wall: 20 * s, used: map[string]time.Duration{framework.APIServer: 8 * s, operatorProcess: 2 * s},
		requests: requestStats{applyDeployments: {count: 100, seconds: 3}, applyStatus: {count: 50, seconds: 1}, watchPods: {count: 5, seconds: 200}}}
	mem := func(anonMiB int64) memory { return memory{anon: anonMiB << 20} }
	for _, tc := range []struct {
		name string
		r    *result
		want [][2]string
	}{
		{
			name: "both phases measured",
			r:    &result{opts: &options{n: 100, raw: true}, rawCPU: raw, ogxCPU: ogx, memSynced: mem(30), memFinal: mem(32)},
			want: [][2]string{
				{"cost per server: operator CPU (ogx phase), ms", "20.00"},
				{"cost per server: API server CPU, ms: raw / ogx (ogx − raw)", "50.00 / 80.00 (+30.00)"},
				{"cost per server: operator anonymous memory, KiB", "20.5 (32.0 MiB final − 30.0 MiB after the caches synced)"},
				{"API server requests by kind, raw phase (top 2 by duration), per server", "requests, summed request duration (latency, not CPU) and the API server's CPU split by that duration"},
				{"&nbsp;&nbsp;raw create deployments", "0.50 requests, 10.00 ms duration, ≈ 50.00 ms CPU"},
				{"API server requests by kind, ogx phase (top 2 by duration), per server", "requests, summed request duration (latency, not CPU) and the API server's CPU split by that duration"},
				{"&nbsp;&nbsp;ogx watch pods", "0.05 requests, 2000.00 ms duration, no CPU share (long-running)"},
				{"&nbsp;&nbsp;ogx apply deployments", "1.00 requests, 30.00 ms duration, ≈ 60.00 ms CPU"},
			},
		},
		{
			name: "no raw phase, no memory baseline, no metrics",
			r: &result{opts: &options{n: 100}, memFinal: mem(32),
				ogxCPU: &cpuWindow{wall: ogx.wall, used: ogx.used}},
			want: [][2]string{
				{"cost per server: operator CPU (ogx phase), ms", "20.00"},
				{"cost per server: API server CPU, ms: raw / ogx (ogx − raw)", "– / 80.00"},
				{"cost per server: operator anonymous memory, KiB", "–"},
				{"API server requests by kind, ogx phase", "–"},
			},
		},
		{
			name: "with a follower",
			r: &result{opts: &options{n: 100, follower: true}, memFinal: mem(32),
				ogxCPU: &cpuWindow{wall: ogx.wall, used: map[string]time.Duration{framework.APIServer: 8 * s, operatorProcess: 2 * s, followerProcess: s}}},
			want: followerRows("10.00"),
		},
		{
			name: "a follower not read",
			r: &result{opts: &options{n: 100, follower: true}, memFinal: mem(32),
				ogxCPU: &cpuWindow{wall: ogx.wall, used: ogx.used}},
			want: followerRows("–"),
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.r.costRows(2)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// followerRows are TestCostRows' rows of an ogx phase without metrics or
// memory baseline, run with a follower whose cost per server is follower.
func followerRows(follower string) [][2]string {
	return [][2]string{
		{"cost per server: operator CPU (ogx phase), ms", "20.00"},
		{"cost per server: a follower's CPU (caches and event handlers, no pass), ms", follower},
		{"cost per server: API server CPU, ms: raw / ogx (ogx − raw)", "– / 80.00"},
		{"cost per server: operator anonymous memory, KiB", "–"},
		{"API server requests by kind, ogx phase", "–"},
	}
}
