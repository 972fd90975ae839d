package monitoring

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/model/rulefmt"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

func repoPath(t *testing.T, rel string) string {
	t.Helper()
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(root, rel)
}

func loadDashboard(t *testing.T) *Dashboard {
	t.Helper()
	d, err := LoadDashboard(repoPath(t, DashboardFile))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func loadRule(t *testing.T) *monitoringv1.PrometheusRule {
	t.Helper()
	r, err := LoadRule(repoPath(t, RuleFile))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// allExpressions is every PromQL expression of the dashboard and the rules.
func allExpressions(t *testing.T) []Expression {
	t.Helper()
	exprs, err := loadDashboard(t).Expressions()
	if err != nil {
		t.Fatal(err)
	}
	return append(exprs, RuleExpressions(loadRule(t))...)
}

func TestDashboardStructure(t *testing.T) {
	for _, err := range loadDashboard(t).Check() {
		t.Error(err)
	}
}

// TestDashboardShowsEveryArea keeps the panels docs/operations-monitoring.md
// promises: each area is named by the series it must query.
func TestDashboardShowsEveryArea(t *testing.T) {
	exprs, err := loadDashboard(t).Expressions()
	if err != nil {
		t.Fatal(err)
	}
	p := Parser()
	queried := map[string]bool{}
	for _, e := range exprs {
		sels, err := Selectors(p, e)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range sels {
			queried[metricName(s)] = true
		}
	}
	for area, metric := range map[string]string{
		"reconcile rate and errors by controller": "ogx_controller_reconcile_total",
		"workqueue depth":                         "workqueue_depth",
		"workqueue latency":                       "workqueue_queue_duration_seconds_bucket",
		"API writes by kind and verb":             "ogx_controller_writes_total",
		"admission latency":                       "ogx_controller_admission_review_duration_seconds_bucket",
		"admission denials":                       "ogx_controller_admission_reviews_total",
		"leader status":                           "ogx_controller_leader",
		"OGXServers by phase":                     "ogx_controller_servers",
	} {
		if !queried[metric] {
			t.Errorf("no dashboard panel for %s: nothing queries %s", area, metric)
		}
	}
}

func metricName(sel []*labels.Matcher) string {
	for _, m := range sel {
		if m.Name == labels.MetricName && m.Type == labels.MatchEqual {
			return m.Value
		}
	}
	return ""
}

// TestExpressionsParse parses every expression of the dashboard and the
// rules, and requires each selector to name its metric and select
// job="ogx-controller": workqueue_* and rest_client_* are exported by many
// Kubernetes components, so a selector without the job would mix them in.
func TestExpressionsParse(t *testing.T) {
	p := Parser()
	exprs := allExpressions(t)
	if len(exprs) < 10 {
		t.Fatalf("only %d expressions found; the dashboard or the rules did not load", len(exprs))
	}
	for _, e := range exprs {
		sels, err := Selectors(p, e)
		if err != nil {
			t.Error(err)
			continue
		}
		if len(sels) == 0 {
			t.Errorf("%s: selects no series", e.Where)
		}
		for _, s := range sels {
			if metricName(s) == "" {
				t.Errorf("%s: selector %v names no metric", e.Where, s)
			}
			if !slices.ContainsFunc(s, func(m *labels.Matcher) bool {
				return m.Name == "job" && m.Type == labels.MatchEqual && m.Value == Job
			}) {
				t.Errorf("%s: selector %v lacks job=%q", e.Where, s, Job)
			}
		}
	}
}

// TestRuleFile checks the PrometheusRule as Prometheus would load it
// (rulefmt: expressions, durations, label names, annotation templates) and
// what this project requires of every alert: a severity, a summary and
// description, a for duration and a runbook anchor that exists in the docs.
func TestRuleFile(t *testing.T) {
	r := loadRule(t)
	groups, err := RuleGroupsYAML(r)
	if err != nil {
		t.Fatal(err)
	}
	if _, errs := rulefmt.Parse(groups, false, model.LegacyValidation, Parser(), slog.New(slog.NewTextHandler(io.Discard, nil))); len(errs) > 0 {
		for _, err := range errs {
			t.Errorf("%s: %v", RuleFile, err)
		}
	}
	doc, err := os.ReadFile(repoPath(t, DocFile))
	if err != nil {
		t.Fatal(err)
	}
	anchors := markdownAnchors(string(doc))
	want := []string{"OGXControllerNoLeader", "OGXControllerReconcileErrors", "OGXControllerWorkqueueGrowing",
		"OGXControllerAdmissionSlow", "OGXControllerWritesWhileIdle"}
	var have []string
	for _, g := range r.Spec.Groups {
		for _, rule := range g.Rules {
			if rule.Alert == "" {
				continue
			}
			have = append(have, rule.Alert)
			where := fmt.Sprintf("%s: alert %s", RuleFile, rule.Alert)
			if s := rule.Labels["severity"]; s != "critical" && s != "warning" && s != "info" {
				t.Errorf("%s: severity %q, want critical, warning or info", where, s)
			}
			if rule.For == nil || *rule.For == "" {
				t.Errorf("%s: no for duration; a single bad evaluation would page", where)
			}
			for _, a := range []string{"summary", "description", "runbook_url"} {
				if strings.TrimSpace(rule.Annotations[a]) == "" {
					t.Errorf("%s: no %s annotation", where, a)
				}
			}
			url := rule.Annotations["runbook_url"]
			anchor := url[strings.LastIndex(url, "#")+1:]
			if !strings.Contains(url, DocFile+"#") || !anchors[anchor] {
				t.Errorf("%s: runbook_url %q does not point at a heading of %s", where, url, DocFile)
			}
		}
	}
	slices.Sort(have)
	slices.Sort(want)
	if !slices.Equal(have, want) {
		t.Errorf("alerts %v, want %v (update the docs and this list together)", have, want)
	}
}

// markdownAnchors returns the GitHub anchors of a document's headings.
func markdownAnchors(doc string) map[string]bool {
	out := map[string]bool{}
	heading := regexp.MustCompile(`(?m)^#+\s+(.+)$`)
	for _, m := range heading.FindAllStringSubmatch(doc, -1) {
		a := strings.ToLower(strings.TrimSpace(m[1]))
		a = regexp.MustCompile(`[^a-z0-9 _-]`).ReplaceAllString(a, "")
		out[strings.ReplaceAll(a, " ", "-")] = true
	}
	return out
}

// documents splits a multi-document YAML file and decodes each document
// into the first type whose kind matches.
func documents(t *testing.T, rel string) [][]byte {
	t.Helper()
	data, err := os.ReadFile(repoPath(t, rel))
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for _, doc := range regexp.MustCompile(`(?m)^---\s*$`).Split(string(data), -1) {
		if strings.TrimSpace(doc) != "" {
			out = append(out, []byte(doc))
		}
	}
	return out
}

func kindOf(t *testing.T, doc []byte) string {
	t.Helper()
	var tm metav1.TypeMeta
	if err := yaml.Unmarshal(doc, &tm); err != nil {
		t.Fatal(err)
	}
	return tm.Kind
}

func strict(t *testing.T, rel string, doc []byte, into any) {
	t.Helper()
	if err := yaml.UnmarshalStrict(doc, into); err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
}

// TestServiceMonitorMatchesTheMetricsEndpoint follows the ServiceMonitor to
// what it scrapes and authenticates with: the metrics Service it selects
// (and the job label it derives from it), the port, scheme and path the
// binary serves, and the scraper token, whose ServiceAccount the
// metrics-reader ClusterRole (GET /metrics) is bound to.
func TestServiceMonitorMatchesTheMetricsEndpoint(t *testing.T) {
	sm := &monitoringv1.ServiceMonitor{}
	docs := documents(t, ServiceMonitorFile)
	if len(docs) != 1 {
		t.Fatalf("%s: %d documents, want 1", ServiceMonitorFile, len(docs))
	}
	strict(t, ServiceMonitorFile, docs[0], sm)
	if sm.APIVersion != "monitoring.coreos.com/v1" || sm.Kind != "ServiceMonitor" {
		t.Fatalf("%s: %s %s, want monitoring.coreos.com/v1 ServiceMonitor", ServiceMonitorFile, sm.APIVersion, sm.Kind)
	}

	var services []corev1.Service
	var deploy *appsv1.Deployment
	for _, doc := range documents(t, ManagerFile) {
		switch kindOf(t, doc) {
		case "Service":
			var s corev1.Service
			strict(t, ManagerFile, doc, &s)
			services = append(services, s)
		case "Deployment":
			deploy = &appsv1.Deployment{}
			strict(t, ManagerFile, doc, deploy)
		}
	}
	selector, err := metav1.LabelSelectorAsSelector(&sm.Spec.Selector)
	if err != nil {
		t.Fatal(err)
	}
	var svc *corev1.Service
	for i, s := range services {
		if selector.Matches(labelSet(s.Labels)) {
			if svc != nil {
				t.Fatalf("the ServiceMonitor selects both %s and %s", svc.Name, s.Name)
			}
			svc = &services[i]
		}
	}
	if svc == nil || deploy == nil {
		t.Fatalf("the ServiceMonitor's selector %s matches no Service of %s", selector, ManagerFile)
	}
	if !slices.Contains(sm.Spec.NamespaceSelector.MatchNames, svc.Namespace) {
		t.Errorf("namespaceSelector %v does not include %s", sm.Spec.NamespaceSelector.MatchNames, svc.Namespace)
	}
	if got := svc.Labels[sm.Spec.JobLabel]; got != Job {
		t.Errorf("jobLabel %q gives job=%q, but the dashboard and rules select job=%q", sm.Spec.JobLabel, got, Job)
	}
	if len(sm.Spec.Endpoints) != 1 {
		t.Fatalf("%d endpoints, want 1", len(sm.Spec.Endpoints))
	}
	ep := sm.Spec.Endpoints[0]
	var port *corev1.ServicePort
	for i := range svc.Spec.Ports {
		if svc.Spec.Ports[i].Name == ep.Port {
			port = &svc.Spec.Ports[i]
		}
	}
	if port == nil {
		t.Fatalf("endpoint port %q is not a port of Service %s", ep.Port, svc.Name)
	}
	// The Service's target port is the container port the binary's
	// --metrics-bind-address listens on.
	c := deploy.Spec.Template.Spec.Containers[0]
	var containerPort int32
	for _, p := range c.Ports {
		if p.Name == port.TargetPort.String() || p.ContainerPort == port.TargetPort.IntVal {
			containerPort = p.ContainerPort
		}
	}
	if flag := fmt.Sprintf("--metrics-bind-address=:%d", containerPort); containerPort == 0 || !slices.Contains(c.Args, flag) {
		t.Errorf("Service port %s targets %s, which is not the listener (%v)", port.Name, port.TargetPort.String(), c.Args)
	}
	if slices.Contains(c.Args, "--metrics-secure=false") {
		t.Errorf("the manager serves plain HTTP, but the ServiceMonitor scrapes HTTPS")
	}
	if ep.Scheme == nil || ep.Scheme.String() != "https" || ep.Path != "/metrics" {
		t.Errorf("endpoint scheme %v path %q, want https /metrics", ep.Scheme, ep.Path)
	}
	if ep.TLSConfig == nil || ep.TLSConfig.InsecureSkipVerify == nil || !*ep.TLSConfig.InsecureSkipVerify {
		if !slices.ContainsFunc(c.Args, func(a string) bool { return strings.HasPrefix(a, "--metrics-cert-dir=") }) {
			t.Errorf("the endpoint verifies the certificate, but the manager serves a self-signed one (no --metrics-cert-dir)")
		}
	}
	if ep.Authorization == nil || ep.Authorization.Credentials == nil {
		t.Fatalf("the endpoint sends no bearer token; /metrics answers 401 without one")
	}
	tokenSecret := ep.Authorization.Credentials.Name

	// The token Secret, its ServiceAccount and the binding to the reader
	// role.
	var secret *corev1.Secret
	var sa *corev1.ServiceAccount
	var binding *rbacv1.ClusterRoleBinding
	for _, doc := range documents(t, ScraperFile) {
		switch k := kindOf(t, doc); k {
		case "Secret":
			secret = &corev1.Secret{}
			strict(t, ScraperFile, doc, secret)
		case "ServiceAccount":
			sa = &corev1.ServiceAccount{}
			strict(t, ScraperFile, doc, sa)
		case "ClusterRoleBinding":
			binding = &rbacv1.ClusterRoleBinding{}
			strict(t, ScraperFile, doc, binding)
		default:
			t.Errorf("%s: unexpected %s", ScraperFile, k)
		}
	}
	if secret == nil || sa == nil || binding == nil {
		t.Fatalf("%s needs a Secret, a ServiceAccount and a ClusterRoleBinding", ScraperFile)
	}
	if secret.Name != tokenSecret || secret.Type != corev1.SecretTypeServiceAccountToken ||
		ep.Authorization.Credentials.Key != corev1.ServiceAccountTokenKey {
		t.Errorf("the endpoint reads %s/%s; the scraper Secret is %s of type %s",
			tokenSecret, ep.Authorization.Credentials.Key, secret.Name, secret.Type)
	}
	if secret.Annotations[corev1.ServiceAccountNameKey] != sa.Name || secret.Namespace != sm.Namespace || sa.Namespace != sm.Namespace {
		t.Errorf("token Secret %s/%s is not for ServiceAccount %s/%s in the ServiceMonitor's namespace %s",
			secret.Namespace, secret.Name, sa.Namespace, sa.Name, sm.Namespace)
	}
	role := &rbacv1.ClusterRole{}
	strict(t, ReaderRoleFile, documents(t, ReaderRoleFile)[0], role)
	if binding.RoleRef.Kind != "ClusterRole" || binding.RoleRef.Name != role.Name {
		t.Errorf("the scraper is bound to %s %s, want ClusterRole %s", binding.RoleRef.Kind, binding.RoleRef.Name, role.Name)
	}
	if !slices.ContainsFunc(binding.Subjects, func(s rbacv1.Subject) bool {
		return s.Kind == rbacv1.ServiceAccountKind && s.Name == sa.Name && s.Namespace == sa.Namespace
	}) {
		t.Errorf("ClusterRoleBinding %s does not bind ServiceAccount %s/%s", binding.Name, sa.Namespace, sa.Name)
	}
	if !slices.ContainsFunc(role.Rules, func(r rbacv1.PolicyRule) bool {
		return slices.Contains(r.NonResourceURLs, "/metrics") && slices.Contains(r.Verbs, "get")
	}) {
		t.Errorf("ClusterRole %s does not grant get on /metrics", role.Name)
	}
}

type labelSet map[string]string

func (l labelSet) Has(k string) bool              { _, ok := l[k]; return ok }
func (l labelSet) Get(k string) string            { return l[k] }
func (l labelSet) Lookup(k string) (string, bool) { v, ok := l[k]; return v, ok }

// TestKustomizationListsEveryFile keeps config/monitoring whole: a file
// added there but not to the kustomization would be silently left out.
func TestKustomizationListsEveryFile(t *testing.T) {
	data, err := os.ReadFile(repoPath(t, KustomizationFile))
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(filepath.Dir(repoPath(t, KustomizationFile)))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() == filepath.Base(KustomizationFile) {
			continue
		}
		if !regexp.MustCompile(`(?m)^\s+- ` + regexp.QuoteMeta(e.Name()) + `\s*$`).Match(data) {
			t.Errorf("%s is not listed in %s", e.Name(), KustomizationFile)
		}
	}
}
