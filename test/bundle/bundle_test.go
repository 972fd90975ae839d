package bundle

import (
	"encoding/base64"
	"net/mail"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/blang/semver/v4"
	"github.com/operator-framework/api/pkg/manifests"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	"github.com/operator-framework/api/pkg/validation"
	"github.com/operator-framework/api/pkg/validation/errors"
	"sigs.k8s.io/yaml"
)

// root is the repository root, relative to this package.
const root = "../.."

var bundleDir = filepath.Join(root, "bundle")

// allowedWarnings are the validators' warnings the bundle keeps on purpose,
// each with its reason.
var allowedWarnings = []struct{ pattern, why string }{
	{`Kind=LlamaStackDistribution: provided API should have an example annotation`,
		"the legacy API is listed in operators.operatorframework.io/internal-objects: nothing reconciles it, so the console offers no example of it"},
	{`checking APIs against Kubernetes version : 1\.37$`,
		"OperatorHubValidator says which version it checked the APIs against (the one we pass it); it is a notice, not a finding"},
}

func TestBundlePassesOLMValidation(t *testing.T) {
	b, err := manifests.GetBundleFromDir(bundleDir)
	if err != nil {
		t.Fatalf("loading %s: %v", bundleDir, err)
	}
	if b.CSV == nil {
		t.Fatal("no ClusterServiceVersion loaded")
	}
	if got := len(b.V1CRDs); got != 2 {
		t.Errorf("bundle has %d v1 CRDs, want 2 (OGXServer and LlamaStackDistribution)", got)
	}
	// OperatorHubValidator holds the rules a catalog applies before it
	// lists an operator: icon, maintainers, links, description, semantic
	// version in the CSV name, categories and capabilities from the known
	// lists, APIs still served by the Kubernetes version we test on.
	validators := append(validation.DefaultBundleValidators, validation.ObjectValidator, validation.OperatorHubValidator)
	objs := append(b.ObjectsToValidate(), map[string]string{"k8s-version": "1.37"})
	results := validators.Validate(objs...)
	checked := 0
	for _, r := range results {
		for _, e := range r.Errors {
			t.Errorf("%s: %v", r.Name, e)
		}
		for _, w := range r.Warnings {
			if why := allowed(w); why != "" {
				t.Logf("%s: allowed warning %v (%s)", r.Name, w, why)
				continue
			}
			t.Errorf("%s: %v", r.Name, w)
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("the validators returned no results: nothing was validated")
	}
}

func allowed(w errors.Error) string {
	for _, a := range allowedWarnings {
		if regexp.MustCompile(a.pattern).MatchString(w.Error()) {
			return a.why
		}
	}
	return ""
}

// readCSV decodes the CSV strictly, so a field OLM does not know (a typo in
// hack/bundle's types) fails here instead of being ignored by OLM.
func readCSV(t *testing.T) *operatorsv1alpha1.ClusterServiceVersion {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(bundleDir, "manifests", "ogx-controller.clusterserviceversion.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var csv operatorsv1alpha1.ClusterServiceVersion
	if err := yaml.UnmarshalStrict(raw, &csv); err != nil {
		t.Fatalf("CSV does not decode strictly into OLM's ClusterServiceVersion: %v", err)
	}
	return &csv
}

func TestCSVDecodesStrictly(t *testing.T) {
	csv := readCSV(t)
	if csv.Spec.Version.String() == "" || !strings.HasSuffix(csv.Name, ".v"+csv.Spec.Version.String()) {
		t.Errorf("CSV name %q does not end in .v<spec.version %q>", csv.Name, csv.Spec.Version.String())
	}
}

func TestInstallModesAllSupported(t *testing.T) {
	csv := readCSV(t)
	want := map[operatorsv1alpha1.InstallModeType]bool{
		operatorsv1alpha1.InstallModeTypeOwnNamespace:    true,
		operatorsv1alpha1.InstallModeTypeSingleNamespace: true,
		operatorsv1alpha1.InstallModeTypeMultiNamespace:  true,
		operatorsv1alpha1.InstallModeTypeAllNamespaces:   true,
	}
	for _, m := range csv.Spec.InstallModes {
		if !m.Supported {
			t.Errorf("install mode %s is not supported; --watch-namespaces supports it", m.Type)
		}
		delete(want, m.Type)
	}
	for m := range want {
		t.Errorf("install mode %s missing", m)
	}
}

// TestDeploymentUsesWhatOLMProvides checks the wiring OLM relies on but
// does not validate: the webhook is served by the CSV's Deployment from the
// directory where OLM mounts the certificate it issues, the operator does
// not manage that certificate itself, and the watched namespaces come from
// the OperatorGroup.
func TestDeploymentUsesWhatOLMProvides(t *testing.T) {
	csv := readCSV(t)
	deps := csv.Spec.InstallStrategy.StrategySpec.DeploymentSpecs
	if len(deps) != 1 {
		t.Fatalf("%d deployments, want 1", len(deps))
	}
	d := deps[0]
	for _, w := range csv.Spec.WebhookDefinitions {
		if w.DeploymentName != d.Name {
			t.Errorf("webhook %s is served by deployment %q, the CSV has %q", w.GenerateName, w.DeploymentName, d.Name)
		}
	}
	if len(csv.Spec.WebhookDefinitions) == 0 {
		t.Error("no webhook definitions")
	}
	c := d.Spec.Template.Spec.Containers[0]
	args := strings.Join(c.Args, " ")
	for _, want := range []string{"--admission-cert-dir=/tmp/k8s-webhook-server/serving-certs", "--admission-cert-management=external"} {
		if !strings.Contains(args, want) {
			t.Errorf("manager args %q lack %s", args, want)
		}
	}
	found := false
	for _, e := range c.Env {
		if e.Name == "WATCH_NAMESPACES" && e.ValueFrom != nil && e.ValueFrom.FieldRef != nil &&
			e.ValueFrom.FieldRef.FieldPath == "metadata.annotations['olm.targetNamespaces']" {
			found = true
		}
	}
	if !found {
		t.Error("WATCH_NAMESPACES is not taken from the olm.targetNamespaces annotation")
	}
	for _, m := range c.VolumeMounts {
		if m.MountPath == "/tmp/k8s-webhook-server/serving-certs" {
			t.Errorf("volume %s is mounted where OLM mounts the webhook certificate", m.Name)
		}
	}
	sa := d.Spec.Template.Spec.ServiceAccountName
	perms := append(csv.Spec.InstallStrategy.StrategySpec.Permissions, csv.Spec.InstallStrategy.StrategySpec.ClusterPermissions...)
	for _, p := range perms {
		if p.ServiceAccountName != sa {
			t.Errorf("permissions are for ServiceAccount %q, the Deployment runs as %q", p.ServiceAccountName, sa)
		}
		for _, r := range p.Rules {
			for _, res := range r.Resources {
				if res == "validatingwebhookconfigurations" {
					t.Error("the operator may write webhook configurations, which OLM owns in the bundle")
				}
			}
		}
	}
}

// TestDockerfileLabelsMatchAnnotations: OLM reads a bundle's metadata from
// either the image labels or metadata/annotations.yaml, so they must agree.
func TestDockerfileLabelsMatchAnnotations(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(bundleDir, "metadata", "annotations.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		Annotations map[string]string `json:"annotations"`
	}
	if err := yaml.UnmarshalStrict(raw, &meta); err != nil {
		t.Fatal(err)
	}
	df, err := os.ReadFile(filepath.Join(root, "bundle.Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	labels := map[string]string{}
	for _, m := range regexp.MustCompile(`(?m)^LABEL (\S+)=(\S+)$`).FindAllStringSubmatch(string(df), -1) {
		labels[m[1]] = m[2]
	}
	if len(meta.Annotations) == 0 {
		t.Fatal("metadata/annotations.yaml has no annotations")
	}
	for k, v := range meta.Annotations {
		if labels[k] != v {
			t.Errorf("bundle.Dockerfile label %s = %q, annotations.yaml has %q", k, labels[k], v)
		}
		delete(labels, k)
	}
	for k := range labels {
		t.Errorf("bundle.Dockerfile label %s is not in annotations.yaml", k)
	}
	for _, dir := range []string{"manifests", "metadata"} {
		if !strings.Contains(string(df), "COPY bundle/"+dir+" /"+dir+"/") {
			t.Errorf("bundle.Dockerfile does not copy bundle/%s to /%s/", dir, dir)
		}
	}
}

// TestCSVIsCatalogReady: what a catalog shows and needs beyond what OLM's
// validators check: someone to contact, an icon that decodes, the image the
// operator runs listed in relatedImages (disconnected mirroring copies only
// those), and an upgrade graph that OLM can parse.
func TestCSVIsCatalogReady(t *testing.T) {
	csv := readCSV(t)
	if len(csv.Spec.Maintainers) == 0 {
		t.Error("no maintainers")
	}
	for _, m := range csv.Spec.Maintainers {
		if _, err := mail.ParseAddress(m.Email); err != nil || m.Name == "" {
			t.Errorf("maintainer %+v: name empty or email invalid (%v)", m, err)
		}
	}
	if len(csv.Spec.Icon) != 1 || csv.Spec.Icon[0].MediaType != "image/svg+xml" {
		t.Fatalf("icon = %+v, want one image/svg+xml", csv.Spec.Icon)
	}
	svg, err := base64.StdEncoding.DecodeString(csv.Spec.Icon[0].Data)
	if err != nil || !strings.HasPrefix(string(svg), "<svg") {
		t.Errorf("icon does not decode to an SVG document: %v", err)
	}
	if len(csv.Spec.Description) < 200 || csv.Annotations["description"] == "" {
		t.Error("the long or the short description is missing")
	}
	image := csv.Annotations["containerImage"]
	listed := false
	for _, r := range csv.Spec.RelatedImages {
		listed = listed || r.Image == image
	}
	if image == "" || !listed {
		t.Errorf("containerImage %q is not in relatedImages %+v", image, csv.Spec.RelatedImages)
	}
	if _, err := semver.ParseRange(csv.Annotations["olm.skipRange"]); err != nil {
		t.Errorf("olm.skipRange %q: %v", csv.Annotations["olm.skipRange"], err)
	}
	if r := csv.Spec.Replaces; r != "" && !strings.HasPrefix(r, "ogx-controller.v") {
		t.Errorf("replaces %q names another package", r)
	}
}
