package chart

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/ogx-k8s/ogx-controller/test/framework"
)

// kustomize returns the kustomize that make builds into bin/ (the assets
// directory of the tests), failing the test when it is missing: a skipped
// comparison would look like a passing one.
func kustomize(t *testing.T, root string) string {
	t.Helper()
	dir := os.Getenv(framework.AssetsEnv)
	if dir == "" {
		dir = filepath.Join(root, "bin")
	}
	bin := filepath.Join(dir, "kustomize")
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("kustomize not found (%v): run make bin/kustomize, or make verify, which builds it", err)
	}
	return bin
}

// TestCertificateModesMatchOverlays: the chart's cert-manager and
// openshift modes install what config/overlays/cert-manager and
// config/overlays/openshift do, except for what the chart deliberately
// leaves out in an external mode (docs/install-helm.md): the certificate
// Role and its binding, the webhook-configuration rule, and a writable
// certificate mount; and what TestDefaultsMatchRelease allows.
func TestCertificateModesMatchOverlays(t *testing.T) {
	ch, root := loadChart(t)
	kz := kustomize(t, root)
	for _, mode := range []string{"cert-manager", "openshift"} {
		t.Run(mode, func(t *testing.T) {
			out, err := exec.Command(kz, "build", filepath.Join(root, "config", "overlays", mode)).Output()
			if err != nil {
				t.Fatalf("kustomize build config/overlays/%s: %v", mode, err)
			}
			want, err := Decode(out)
			if err != nil {
				t.Fatal(err)
			}
			want = withoutSelfCertificates(t, withoutNamespaceObject(t, want))
			got := asInstalled(t, ch, map[string]any{"admission": map[string]any{"certificate": map[string]any{"mode": mode}}})
			compareSets(t, "config/overlays/"+mode, want, got)
		})
	}
}

// TestMonitoringMatchesOverlay: the chart's monitoring options, all on,
// install what config/overlays/monitoring does (config/monitoring next to
// the default install: the ServiceMonitor, its scraper ServiceAccount,
// token Secret and binding, the alerting rules and the dashboard), with
// only what TestDefaultsMatchRelease allows to differ. So the rules and
// the dashboard the chart reads from its files/ are config/monitoring's,
// and the ServiceMonitor authenticates as test/monitoring checks
// config/monitoring's does.
func TestMonitoringMatchesOverlay(t *testing.T) {
	ch, root := loadChart(t)
	out, err := exec.Command(kustomize(t, root), "build", filepath.Join(root, "config", "overlays", "monitoring")).Output()
	if err != nil {
		t.Fatalf("kustomize build config/overlays/monitoring: %v", err)
	}
	want, err := Decode(out)
	if err != nil {
		t.Fatal(err)
	}
	on := map[string]any{"enabled": true}
	got := asInstalled(t, ch, map[string]any{"metrics": map[string]any{"enabled": true,
		"serviceMonitor": on, "prometheusRule": on, "dashboard": on}})
	compareSets(t, "config/overlays/monitoring", withoutNamespaceObject(t, want), got)
}

// withoutSelfCertificates applies to an overlay's objects what the chart
// does differently in an external certificate mode.
func withoutSelfCertificates(t *testing.T, objs []*unstructured.Unstructured) []*unstructured.Unstructured {
	t.Helper()
	var out []*unstructured.Unstructured
	for _, u := range objs {
		switch {
		case (u.GetKind() == "Role" || u.GetKind() == "RoleBinding") && u.GetName() == "ogx-controller-webhook-certs":
			continue
		case u.GetKind() == "ClusterRole" && u.GetName() == "ogx-controller":
			rules, _, _ := unstructured.NestedSlice(u.Object, "rules")
			n := len(rules)
			rules = slices.DeleteFunc(rules, func(r any) bool {
				res, _ := r.(map[string]any)["resources"].([]any)
				return slices.Contains(res, any("validatingwebhookconfigurations"))
			})
			if len(rules) != n-1 {
				t.Fatalf("the overlay's ClusterRole has %d webhook-configuration rules, want 1", n-len(rules))
			}
			if err := unstructured.SetNestedSlice(u.Object, rules, "rules"); err != nil {
				t.Fatal(err)
			}
		case u.GetKind() == "Deployment":
			cs, _, _ := unstructured.NestedSlice(u.Object, "spec", "template", "spec", "containers")
			c := cs[0].(map[string]any)
			mounts := c["volumeMounts"].([]any)
			mounts[0].(map[string]any)["readOnly"] = true
			if err := unstructured.SetNestedSlice(u.Object, cs, "spec", "template", "spec", "containers"); err != nil {
				t.Fatal(err)
			}
		}
		out = append(out, u)
	}
	return out
}

// compareSets fails for every object missing from got, extra in got, or
// different from its counterpart in want, compared after parsing.
func compareSets(t *testing.T, source string, want, got []*unstructured.Unstructured) {
	t.Helper()
	byKey := func(objs []*unstructured.Unstructured) map[string]map[string]any {
		m := map[string]map[string]any{}
		for _, u := range objs {
			if _, dup := m[Key(u)]; dup {
				t.Errorf("%s appears twice", Key(u))
			}
			m[Key(u)] = u.Object
		}
		return m
	}
	g, w := byKey(got), byKey(want)
	if len(w) == 0 {
		t.Fatalf("%s has no objects", source)
	}
	for k, wo := range w {
		gotObj, ok := g[k]
		if !ok {
			t.Errorf("the chart does not install %s", k)
			continue
		}
		if d := cmp.Diff(wo, gotObj); d != "" {
			t.Errorf("%s differs from %s (-%s +chart):\n%s", k, source, source, d)
		}
	}
	for k := range g {
		if _, ok := w[k]; !ok {
			t.Errorf("the chart installs %s, which %s does not have", k, source)
		}
	}
}
