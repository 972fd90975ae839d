package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
)

func TestClassify(t *testing.T) {
	for _, c := range []struct {
		name             string
		rule             rbacv1.PolicyRule
		namespaced, drop bool
		errContains      string
	}{
		{"namespaced", rbacv1.PolicyRule{Resources: []string{"configmaps", "services"}}, true, false, ""},
		{"cluster", rbacv1.PolicyRule{Resources: []string{"tokenreviews"}}, false, false, ""},
		{"non-resource URL", rbacv1.PolicyRule{NonResourceURLs: []string{"/metrics"}}, false, false, ""},
		{"owned by OLM", rbacv1.PolicyRule{Resources: []string{"validatingwebhookconfigurations"}}, false, true, ""},
		{"unknown resource", rbacv1.PolicyRule{Resources: []string{"widgets"}}, false, false, `"widgets" is in neither`},
		{"mixed scopes", rbacv1.PolicyRule{Resources: []string{"configmaps", "tokenreviews"}}, false, false, "mixes namespaced and cluster-scoped"},
		{"mixed with OLM's", rbacv1.PolicyRule{Resources: []string{"configmaps", "validatingwebhookconfigurations"}}, false, false, "mixes resources OLM owns"},
	} {
		ns, drop, err := classify(c.rule)
		if c.errContains != "" {
			if err == nil || !strings.Contains(err.Error(), c.errContains) {
				t.Errorf("%s: error %v, want one containing %q", c.name, err, c.errContains)
			}
			continue
		}
		if err != nil || ns != c.namespaced || drop != c.drop {
			t.Errorf("%s: got namespaced=%v drop=%v err=%v, want %v %v nil", c.name, ns, drop, err, c.namespaced, c.drop)
		}
	}
}

func managerDeployment(args ...string) *appsv1.Deployment {
	d := &appsv1.Deployment{}
	d.Name = deploymentName
	d.Spec.Template.Spec.Containers = []corev1.Container{{
		Name: "manager", Args: args,
		VolumeMounts: []corev1.VolumeMount{{Name: adminTLSVolume, MountPath: "/etc/x"}, {Name: "other", MountPath: "/y"}},
	}}
	d.Spec.Template.Spec.Volumes = []corev1.Volume{{Name: adminTLSVolume}, {Name: "other"}}
	return d
}

func TestForOLM(t *testing.T) {
	d := managerDeployment("run", "--admission-cert-dir=/etc/x")
	if err := forOLM(d); err != nil {
		t.Fatal(err)
	}
	c := d.Spec.Template.Spec.Containers[0]
	if got := strings.Join(c.Args, " "); got != "run --admission-cert-dir="+olmCertDir+" --admission-cert-management=external" {
		t.Errorf("args = %q", got)
	}
	if len(c.VolumeMounts) != 1 || c.VolumeMounts[0].Name != "other" || len(d.Spec.Template.Spec.Volumes) != 1 {
		t.Errorf("the admission-tls volume and mount were not removed, or others were: %+v %+v", c.VolumeMounts, d.Spec.Template.Spec.Volumes)
	}
	if len(c.Env) != 1 || c.Env[0].Name != "WATCH_NAMESPACES" || c.Env[0].ValueFrom.FieldRef.FieldPath != "metadata.annotations['olm.targetNamespaces']" {
		t.Errorf("env = %+v", c.Env)
	}

	for _, c := range []struct {
		name string
		d    *appsv1.Deployment
		want string
	}{
		{"no cert dir", managerDeployment("run"), "no --admission-cert-dir"},
		{"cert management already set", managerDeployment("--admission-cert-dir=/x", "--admission-cert-management=self"), "set by the bundle"},
		{"watch namespaces already set", managerDeployment("--admission-cert-dir=/x", "--watch-namespaces=a"), "set by the bundle"},
	} {
		if err := forOLM(c.d); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}

func TestDisplayName(t *testing.T) {
	for in, want := range map[string]string{
		"overrideConfig":                 "Override Config",
		"externalURL":                    "External URL",
		"disabledAPIs":                   "Disabled APIs",
		"tls":                            "TLS",
		"kv":                             "KV",
		"configURLPath":                  "Config URL Path",
		"providerIDsList":                "Provider IDs List",
		"registryRefreshIntervalSeconds": "Registry Refresh Interval Seconds",
	} {
		if got := displayName(in); got != want {
			t.Errorf("displayName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFirstSentence(t *testing.T) {
	if got := firstSentence("Port is the port.\nIt is also used by probes."); got != "Port is the port." {
		t.Errorf("got %q", got)
	}
	if got := firstSentence("No full stop\nhere"); got != "No full stop here" {
		t.Errorf("got %q", got)
	}
}

// TestBuildFromRelease runs the generator on the repository's own inputs:
// the checked-in bundle is compared byte for byte by make verify; this
// checks the properties that matter without the files.
func TestBuildFromRelease(t *testing.T) {
	changelog := filepath.Join(t.TempDir(), "CHANGELOG.md")
	if err := os.WriteFile(changelog, []byte("## [1.2.3] - 2026-12-01\n## [1.1.0] - 2026-11-01\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	files, err := build(options{
		release: "../../release/ogx-controller.yaml", crds: "../../config/crd/bases",
		samples: "../../config/samples", changelog: changelog, version: "1.2.3", channel: "stable",
	})
	if err != nil {
		t.Fatal(err)
	}
	csv := string(files["manifests/ogx-controller.clusterserviceversion.yaml"])
	for _, want := range []string{"name: ogx-controller.v1.2.3", "version: 1.2.3", "ogx-sample", "ogx-replicated",
		"--admission-cert-management=external", "generateName: vogxserver.kb.io",
		"replaces: ogx-controller.v1.1.0", "olm.skipRange: <1.2.3", "createdAt: \"2026-12-01\"", "mediatype: image/svg+xml"} {
		if !strings.Contains(csv, want) {
			t.Errorf("CSV lacks %q", want)
		}
	}
	if strings.Contains(csv, "ogx-controller-webhook-tls") || strings.Contains(csv, "validatingwebhookconfigurations") {
		t.Error("CSV grants access to the self-managed webhook certificate or configuration, which OLM owns")
	}
	if !strings.Contains(string(files["metadata/annotations.yaml"]), "operators.operatorframework.io.bundle.channels.v1: stable") {
		t.Error("annotations.yaml does not carry the channel")
	}
	for _, f := range []string{"manifests/ogx.io_ogxservers.yaml", "manifests/llamastack.io_llamastackdistributions.yaml"} {
		if _, ok := files[f]; !ok {
			t.Errorf("bundle lacks %s", f)
		}
	}
}

// TestUpgradeGraph: a release replaces the next lower released (dated)
// version in CHANGELOG.md, whatever the order of the sections, and a
// version without a section is refused.
func TestUpgradeGraph(t *testing.T) {
	releases := []release{{"0.2.0", ""}, {"0.1.0", "2026-12-01"}, {"0.1.1", "2026-12-10"}, {"1.0.0-rc.1", ""}}
	sortReleases(releases)
	for _, tc := range []struct {
		version, replaces, date, err string
	}{
		{"0.1.0", "", "2026-12-01", ""},
		{"0.1.1", "0.1.0", "2026-12-10", ""},
		{"0.2.0", "0.1.1", "", ""},
		{"1.0.0-rc.1", "0.1.1", "", ""}, // 0.2.0 was never released
		{"0.3.0", "", "", "no section for 0.3.0"},
	} {
		replaces, date, err := upgradeGraph(releases, tc.version)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want %q", tc.version, err, tc.err)
			}
			continue
		}
		if d := cmp.Diff([]string{tc.replaces, tc.date}, []string{replaces, date}); err != nil || d != "" {
			t.Errorf("%s: err %v, (-want +got):\n%s", tc.version, err, d)
		}
	}
}

// TestReadReleases reads the repository's own CHANGELOG.md: every heading
// is a semantic version.
func TestReadReleases(t *testing.T) {
	rs, err := readReleases("../../CHANGELOG.md")
	if err != nil || len(rs) == 0 {
		t.Fatalf("releases %v, err %v", rs, err)
	}
	bad := filepath.Join(t.TempDir(), "CHANGELOG.md")
	if err := os.WriteFile(bad, []byte("## [one] - unreleased\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readReleases(bad); err == nil || !strings.Contains(err.Error(), "not a semantic version") {
		t.Errorf("got %v", err)
	}
}
