package chart

import (
	"testing"

	"helm.sh/helm/v4/pkg/action"
	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/chart/v2/lint/support"
)

// TestLint runs Helm's chart linter, strictly (warnings fail), with the
// default values and with each certificate mode, as `helm lint --strict`
// would. make verify runs it.
func TestLint(t *testing.T) {
	_, root := loadChart(t)
	kube, err := common.ParseKubeVersion("v1.37.2")
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"self", "cert-manager", "openshift"} {
		t.Run(mode, func(t *testing.T) {
			lint := action.NewLint()
			lint.Strict = true
			lint.Namespace = "default"
			lint.KubeVersion = kube
			vals := map[string]any{"admission": map[string]any{"certificate": map[string]any{"mode": mode}}}
			res := lint.Run([]string{Dir(root)}, vals)
			for _, err := range res.Errors {
				t.Errorf("lint: %v", err)
			}
			// Errors holds every message at warning severity or above.
			for _, m := range res.Messages {
				if m.Severity < support.WarningSev {
					t.Logf("lint: %s", m)
				}
			}
			if res.TotalChartsLinted != 1 {
				t.Errorf("linted %d charts, want 1", res.TotalChartsLinted)
			}
		})
	}
}
