// Package monitoring loads and checks the monitoring of ogx-controller
// itself, config/monitoring (docs/operations-monitoring.md): the Grafana
// dashboard, the PrometheusRule and the ServiceMonitor with its scraper
// identity. Its tests check the files without a cluster (make verify runs
// them); the live package runs the real binary and checks that every
// series the dashboard and the rules name is exported.
//
// It is a module of its own so that the Prometheus libraries it needs (the
// PromQL parser, the rule file checks, the Prometheus Operator's types)
// stay out of the product's go.mod.
package monitoring

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"
	"sigs.k8s.io/yaml"
)

// Paths of the assets, relative to the repository root.
const (
	DashboardFile      = "config/monitoring/ogx-controller-dashboard.json"
	RuleFile           = "config/monitoring/prometheusrule.yaml"
	ServiceMonitorFile = "config/monitoring/servicemonitor.yaml"
	ScraperFile        = "config/monitoring/scraper.yaml"
	KustomizationFile  = "config/monitoring/kustomization.yaml"
	ManagerFile        = "config/manager/manager.yaml"
	ReaderRoleFile     = "config/rbac/metrics_reader_role.yaml"
	DocFile            = "docs/operations-monitoring.md"
)

// Job is the job label the ServiceMonitor gives the operator's targets,
// which the dashboard and the rules select on.
const Job = "ogx-controller"

// Expression is one PromQL expression of the dashboard or the rules, with
// where it comes from for error messages.
type Expression struct {
	Where  string
	PromQL string
}

// Parser is the PromQL parser with Prometheus' default options, the ones a
// stock Prometheus evaluates rules and dashboards with.
func Parser() parser.Parser { return parser.NewParser(parser.Options{}) }

// Dashboard is the part of a Grafana dashboard model the checks read.
type Dashboard struct {
	Title         string `json:"title"`
	UID           string `json:"uid"`
	SchemaVersion int    `json:"schemaVersion"`
	Templating    struct {
		List []Variable `json:"list"`
	} `json:"templating"`
	Panels []Panel `json:"panels"`
}

// Variable is a dashboard template variable.
type Variable struct {
	Name  string `json:"name"`
	Type  string `json:"type"`
	Query string `json:"query"`
}

// Panel is a dashboard panel; rows may nest panels.
type Panel struct {
	ID         int            `json:"id"`
	Type       string         `json:"type"`
	Title      string         `json:"title"`
	Datasource *DatasourceRef `json:"datasource"`
	GridPos    GridPos        `json:"gridPos"`
	Targets    []Target       `json:"targets"`
	Panels     []Panel        `json:"panels"`
}

// DatasourceRef names a panel's or a target's data source.
type DatasourceRef struct {
	Type string `json:"type"`
	UID  string `json:"uid"`
}

// GridPos places a panel on Grafana's 24-column grid.
type GridPos struct {
	H int `json:"h"`
	W int `json:"w"`
	X int `json:"x"`
	Y int `json:"y"`
}

// Target is one query of a panel.
type Target struct {
	RefID      string         `json:"refId"`
	Expr       string         `json:"expr"`
	Datasource *DatasourceRef `json:"datasource"`
}

// LoadDashboard reads and decodes the dashboard JSON.
func LoadDashboard(path string) (*Dashboard, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if !json.Valid(data) {
		return nil, fmt.Errorf("%s: not valid JSON", path)
	}
	d := &Dashboard{}
	if err := json.Unmarshal(data, d); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return d, nil
}

// AllPanels returns the dashboard's panels with the panels nested in rows.
func (d *Dashboard) AllPanels() []Panel {
	var out []Panel
	var walk func([]Panel)
	walk = func(ps []Panel) {
		for _, p := range ps {
			out = append(out, p)
			walk(p.Panels)
		}
	}
	walk(d.Panels)
	return out
}

// Check reports structural problems: no title or uid, duplicate panel ids,
// panels off the 24-column grid, query panels without a Prometheus query,
// duplicate refIds, data sources other than the dashboard's variable.
func (d *Dashboard) Check() []error {
	var errs []error
	if d.Title == "" || d.UID == "" || d.SchemaVersion == 0 {
		errs = append(errs, errors.New("dashboard: title, uid and schemaVersion are required"))
	}
	vars := map[string]Variable{}
	for _, v := range d.Templating.List {
		vars[v.Name] = v
	}
	if v, ok := vars["datasource"]; !ok || v.Type != "datasource" || v.Query != "prometheus" {
		errs = append(errs, errors.New(`dashboard: templating.list needs a variable "datasource" of type datasource, query prometheus`))
	}
	if v, ok := vars["job"]; !ok || v.Query != Job {
		errs = append(errs, fmt.Errorf(`dashboard: templating.list needs a variable "job" whose query is %q (the ServiceMonitor's job)`, Job))
	}
	ids := map[int]string{}
	for _, p := range d.AllPanels() {
		where := fmt.Sprintf("dashboard panel %d %q", p.ID, p.Title)
		if other, dup := ids[p.ID]; dup {
			errs = append(errs, fmt.Errorf("%s: id also used by %q", where, other))
		}
		ids[p.ID] = p.Title
		if p.GridPos.W < 1 || p.GridPos.H < 1 || p.GridPos.X < 0 || p.GridPos.X+p.GridPos.W > 24 {
			errs = append(errs, fmt.Errorf("%s: gridPos %+v is off the 24-column grid", where, p.GridPos))
		}
		if p.Type == "row" {
			continue
		}
		if p.Title == "" {
			errs = append(errs, fmt.Errorf("%s: no title", where))
		}
		if len(p.Targets) == 0 {
			errs = append(errs, fmt.Errorf("%s: no targets", where))
		}
		refs := map[string]bool{}
		for _, ds := range append([]*DatasourceRef{p.Datasource}, targetSources(p.Targets)...) {
			if ds == nil || ds.Type != "prometheus" || ds.UID != "${datasource}" {
				errs = append(errs, fmt.Errorf(`%s: datasource %+v, want {prometheus ${datasource}}`, where, ds))
			}
		}
		for _, t := range p.Targets {
			if t.RefID == "" || refs[t.RefID] {
				errs = append(errs, fmt.Errorf("%s: target refId %q empty or repeated", where, t.RefID))
			}
			refs[t.RefID] = true
			if strings.TrimSpace(t.Expr) == "" {
				errs = append(errs, fmt.Errorf("%s target %s: empty expr", where, t.RefID))
			}
		}
	}
	return errs
}

func targetSources(ts []Target) []*DatasourceRef {
	out := make([]*DatasourceRef, len(ts))
	for i, t := range ts {
		out[i] = t.Datasource
	}
	return out
}

// grafanaVariable matches $name and ${name} references.
var grafanaVariable = regexp.MustCompile(`\$(?:\{(\w+)\}|(\w+))`)

// Expressions returns the dashboard's queries with Grafana's variables
// replaced by what Grafana would send: $job by the job, the interval
// variables by one minute. A variable the dashboard does not define is an
// error, since Grafana would send it to Prometheus verbatim.
func (d *Dashboard) Expressions() ([]Expression, error) {
	values := map[string]string{"__rate_interval": "1m", "__interval": "1m", "__range": "1h"}
	for _, v := range d.Templating.List {
		if v.Type == "constant" || v.Type == "custom" || v.Type == "textbox" {
			values[v.Name] = v.Query
		}
	}
	var out []Expression
	var errs []error
	for _, p := range d.AllPanels() {
		for _, t := range p.Targets {
			where := fmt.Sprintf("dashboard panel %q target %s", p.Title, t.RefID)
			expanded := grafanaVariable.ReplaceAllStringFunc(t.Expr, func(ref string) string {
				m := grafanaVariable.FindStringSubmatch(ref)
				name := m[1] + m[2]
				v, ok := values[name]
				if !ok {
					errs = append(errs, fmt.Errorf("%s: unknown variable %s", where, ref))
					return ref
				}
				return v
			})
			out = append(out, Expression{Where: where, PromQL: expanded})
		}
	}
	return out, errors.Join(errs...)
}

// LoadRule decodes the PrometheusRule strictly (an unknown or misspelt
// field is an error) into the Prometheus Operator's own type.
func LoadRule(path string) (*monitoringv1.PrometheusRule, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	r := &monitoringv1.PrometheusRule{}
	if err := yaml.UnmarshalStrict(data, r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if r.APIVersion != "monitoring.coreos.com/v1" || r.Kind != "PrometheusRule" {
		return nil, fmt.Errorf("%s: %s %s, want monitoring.coreos.com/v1 PrometheusRule", path, r.APIVersion, r.Kind)
	}
	return r, nil
}

// RuleGroupsYAML renders the rule's groups as a Prometheus rule file, which
// is what the Prometheus Operator hands Prometheus.
func RuleGroupsYAML(r *monitoringv1.PrometheusRule) ([]byte, error) {
	data, err := yaml.Marshal(struct {
		Groups []monitoringv1.RuleGroup `json:"groups"`
	}{r.Spec.Groups})
	if err != nil {
		return nil, err
	}
	return bytes.TrimSpace(data), nil
}

// RuleExpressions returns every rule's expression.
func RuleExpressions(r *monitoringv1.PrometheusRule) []Expression {
	var out []Expression
	for _, g := range r.Spec.Groups {
		for _, rule := range g.Rules {
			name := rule.Alert
			if name == "" {
				name = rule.Record
			}
			out = append(out, Expression{Where: fmt.Sprintf("rule %s/%s", g.Name, name), PromQL: rule.Expr.String()})
		}
	}
	return out
}

// Selectors parses e and returns its vector selectors.
func Selectors(p parser.Parser, e Expression) ([][]*labels.Matcher, error) {
	expr, err := p.ParseExpr(e.PromQL)
	if err != nil {
		return nil, fmt.Errorf("%s: %w\n%s", e.Where, err, e.PromQL)
	}
	return parser.ExtractSelectors(expr), nil
}

// RepoRoot is the repository root: two levels above this module's
// directory when the tests run in it (go test runs a package's tests in its
// directory).
func RepoRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, KustomizationFile)); err == nil {
			return dir, nil
		}
		if filepath.Dir(dir) == dir {
			return "", fmt.Errorf("no %s above %s", KustomizationFile, wd)
		}
	}
}
