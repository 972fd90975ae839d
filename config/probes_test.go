package config_test

import (
	"regexp"
	"testing"
)

// httpGetProbe matches a probe's httpGet block: its path and port lines, in
// either order, as every install path writes them.
var httpGetProbe = regexp.MustCompile(`(?m)^(\s*)httpGet:\n(?:\s+(?:path|port|scheme): \S+\n){2,3}`)

var probeField = regexp.MustCompile(`(?m)^\s+(path|port): (\S+)$`)

// TestProbesUseTheHealthListener: every install path probes /healthz and
// /readyz on the health port. The admission port serves the webhook path
// alone (pkg/admission answers 404 to everything else), so a probe aimed at
// it would restart a healthy controller forever.
func TestProbesUseTheHealthListener(t *testing.T) {
	for f, data := range installFiles(t, "manager/manager.yaml", "../release/ogx-controller.yaml",
		"../charts/ogx-controller/templates/deployment.yaml") {
		paths := map[string]bool{}
		for _, block := range httpGetProbe.FindAll(data, -1) {
			fields := map[string]string{}
			for _, m := range probeField.FindAllSubmatch(block, -1) {
				fields[string(m[1])] = string(m[2])
			}
			if fields["port"] != "health" {
				t.Errorf("%s: probe of %s on port %q, want the health port", f, fields["path"], fields["port"])
			}
			paths[fields["path"]] = true
		}
		if !paths["/healthz"] || !paths["/readyz"] {
			t.Errorf("%s: probed paths %v, want /healthz and /readyz", f, paths)
		}
	}
}
