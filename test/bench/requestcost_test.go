package main

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestCostReport: a form's row gives the API server's and etcd's CPU per
// request sent and the requests of the window by kind, watches and kinds
// without requests left out.
func TestCostReport(t *testing.T) {
	r := costResult{form: "apply Deployment, creating it", m: 100, wall: 2 * time.Second,
		api: 300 * time.Millisecond, db: 50 * time.Millisecond, requests: requestStats{
			{"apply", "deployments"}:         {count: 100, seconds: 5},
			{"update", "deployments/status"}: {count: 100, seconds: 1},
			{"watch", "pods"}:                {count: 1, seconds: 100},
			{"get", "/metrics"}:              {count: 2, seconds: 0.1},
			{"list", "pods"}:                 {count: 1, seconds: 0.01},
			{"create", "events"}:             {},
		}}
	got := costReport([]costResult{r}, &options{requestCosts: 100, args: []string{"-request-costs", "100"}})
	want := "| apply Deployment, creating it | 3.00 | 0.50 | apply deployments 1.00, update deployments/status 1.00, get /metrics 0.02 | 2.0 |"
	if !strings.Contains(got, want) {
		t.Errorf("report lacks the row %q:\n%s", want, got)
	}
}

func TestParseFlagsRequestCosts(t *testing.T) {
	if o, err := parseFlags([]string{"-request-costs", "500"}); err != nil || o.requestCosts != 500 {
		t.Errorf("-request-costs 500: %+v, %v", o, err)
	}
	if _, err := parseFlags([]string{"-request-costs", "-1"}); err == nil || !strings.Contains(err.Error(), "-request-costs") {
		t.Errorf("-request-costs -1: %v", err)
	}
}

// TestApplyBodyHasNoNulls: the forms' apply bodies carry no null (a typed
// object's creationTimestamp), as client-go's apply configurations do not.
func TestApplyBodyHasNoNulls(t *testing.T) {
	m := map[string]any{"metadata": map[string]any{"name": "a", "creationTimestamp": nil},
		"spec": map[string]any{"template": map[string]any{"metadata": map[string]any{"creationTimestamp": nil}},
			"containers": []any{map[string]any{"name": "c", "resources": nil}}}}
	dropNulls(m)
	want := map[string]any{"metadata": map[string]any{"name": "a"},
		"spec": map[string]any{"template": map[string]any{"metadata": map[string]any{}},
			"containers": []any{map[string]any{"name": "c"}}}}
	if d := cmp.Diff(want, m); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}
