package live

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/yaml"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/generated/clientset/versioned"
	"github.com/ogx-k8s/ogx-controller/pkg/testcerts"
	"github.com/ogx-k8s/ogx-controller/test/framework"
	"github.com/ogx-k8s/ogx-controller/test/monitoring"
)

const pollInterval = 250 * time.Millisecond

// targetLabels are attached by Prometheus to every scraped series, so a
// matcher or grouping on them cannot be checked against the raw scrape.
var targetLabels = []string{"job", "instance", "namespace", "pod", "service", "endpoint", "container"}

// TestEverySelectedSeriesIsExported is the contract between the binary and
// config/monitoring: after a realistic start (leader elected, an OGXServer
// Ready, admission reviews allowed and denied), every selector of every
// dashboard query and alert matches a series of the scrape, every
// aggregation groups by labels those series carry, and the series that
// describe this state say so (one leader, one Ready server).
func TestEverySelectedSeriesIsExported(t *testing.T) {
	ctx := t.Context()
	ns := cp.CreateNamespace(t, "ogx-monitoring")
	token := installScraper(t, ns)
	metricsURL, admissionURL := startController(t, ns)

	ogx, err := versioned.NewForConfig(cp.Config())
	if err != nil {
		t.Fatal(err)
	}
	server := &ogxv1beta1.OGXServer{
		ObjectMeta: metav1.ObjectMeta{Name: "observed", Namespace: ns},
		Spec:       ogxv1beta1.OGXServerSpec{Distribution: ogxv1beta1.DistributionSpec{Name: ptr("starter")}},
	}
	if _, err := ogx.OgxV1beta1().OGXServers(ns).Create(ctx, server, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	poll(t, 3*time.Minute, "OGXServer Ready", func(ctx context.Context) (bool, error) {
		s, err := ogx.OgxV1beta1().OGXServers(ns).Get(ctx, server.Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return s.Status.Phase == ogxv1beta1.PhaseReady && s.Status.ObservedGeneration == s.Generation, nil
	})

	// Admission: the binary's listener, called as the API server would.
	review(t, admissionURL, server, true)
	bad := server.DeepCopy()
	bad.Name = "rejected"
	bad.Spec.Distribution.Name = ptr("no-such-distribution")
	review(t, admissionURL, bad, false)

	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
		// As the ServiceMonitor: the endpoint's certificate is self-signed.
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true, MinVersion: tls.VersionTLS12}}}
	t.Cleanup(client.CloseIdleConnections)
	if code, _ := get(t, client, metricsURL, ""); code != http.StatusUnauthorized {
		t.Fatalf("GET %s without a token: %d, want 401 (the test would not prove the scraper token works)", metricsURL, code)
	}

	exprs := expressions(t)
	p := monitoring.Parser()
	// Scrape until every selector matches: some series (admission, skipped
	// applies) appear a moment after what caused them.
	var samples []sample
	var missing []string
	err = wait.PollUntilContextTimeout(ctx, pollInterval, time.Minute, true, func(context.Context) (bool, error) {
		code, body := get(t, client, metricsURL, token)
		if code != http.StatusOK {
			missing = []string{fmt.Sprintf("scrape answered %d: %.200s", code, body)}
			return false, nil
		}
		samples = parseSamples(t, body)
		missing = unmatched(t, p, exprs, samples)
		return len(missing) == 0, nil
	})
	if err != nil {
		t.Fatalf("series the dashboard or the rules select are not exported:\n%s", strings.Join(missing, "\n"))
	}
	t.Logf("%d expressions, all selectors matched among %d scraped series", len(exprs), len(samples))

	for _, e := range groupingErrors(t, p, exprs, samples) {
		t.Error(e)
	}

	// The new product series report the state the test created.
	for _, c := range []struct {
		metric string
		labels map[string]string
		want   func(float64) bool
		what   string
	}{
		{"ogx_controller_leader", nil, func(v float64) bool { return v == 1 }, "1 (the only replica leads)"},
		{"ogx_controller_servers", map[string]string{"phase": "Ready"}, func(v float64) bool { return v == 1 }, "1"},
		{"ogx_controller_servers", map[string]string{"phase": "Failed"}, func(v float64) bool { return v == 0 }, "0"},
		{"ogx_controller_server_changes_total", nil, func(v float64) bool { return v >= 1 }, "at least 1 (the creation)"},
		{"ogx_controller_admission_reviews_total", map[string]string{"allowed": "false"}, func(v float64) bool { return v == 1 }, "1"},
	} {
		v, ok := valueOf(samples, c.metric, c.labels)
		if !ok || !c.want(v) {
			t.Errorf("%s%v = %v (present %v), want %s", c.metric, c.labels, v, ok, c.what)
		}
	}
}

func ptr[T any](v T) *T { return &v }

// poll calls cond until it reports true, failing the test at the deadline.
func poll(t *testing.T, timeout time.Duration, what string, cond func(context.Context) (bool, error)) {
	t.Helper()
	var last error
	err := wait.PollUntilContextTimeout(t.Context(), pollInterval, timeout, true, func(ctx context.Context) (bool, error) {
		ok, err := cond(ctx)
		last = err
		return ok, nil
	})
	if err != nil {
		t.Fatalf("waiting for %s: %v (last error: %v)", what, err, last)
	}
}

// installScraper creates config/monitoring/scraper.yaml's objects, moved to
// ns, and the metrics-reader ClusterRole of config/rbac, and returns the
// token the API server's token controller puts in the Secret: the
// credentials the ServiceMonitor scrapes with.
func installScraper(t *testing.T, ns string) string {
	t.Helper()
	ctx := t.Context()
	kube := cp.Client()
	role := &rbacv1.ClusterRole{}
	decodeFile(t, monitoring.ReaderRoleFile, func(kind string, doc []byte) { strict(t, doc, role) })
	create(t, "ClusterRole "+role.Name, func() error {
		_, err := kube.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{})
		return err
	}, func(ctx context.Context) error {
		return kube.RbacV1().ClusterRoles().Delete(ctx, role.Name, metav1.DeleteOptions{})
	})
	var secretName string
	decodeFile(t, monitoring.ScraperFile, func(kind string, doc []byte) {
		switch kind {
		case "ServiceAccount":
			sa := &corev1.ServiceAccount{}
			strict(t, doc, sa)
			sa.Namespace = ns
			if _, err := kube.CoreV1().ServiceAccounts(ns).Create(ctx, sa, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		case "Secret":
			s := &corev1.Secret{}
			strict(t, doc, s)
			s.Namespace = ns
			secretName = s.Name
			if _, err := kube.CoreV1().Secrets(ns).Create(ctx, s, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		case "ClusterRoleBinding":
			b := &rbacv1.ClusterRoleBinding{}
			strict(t, doc, b)
			b.Name += "-" + ns
			for i := range b.Subjects {
				b.Subjects[i].Namespace = ns
			}
			create(t, "ClusterRoleBinding "+b.Name, func() error {
				_, err := kube.RbacV1().ClusterRoleBindings().Create(ctx, b, metav1.CreateOptions{})
				return err
			}, func(ctx context.Context) error {
				return kube.RbacV1().ClusterRoleBindings().Delete(ctx, b.Name, metav1.DeleteOptions{})
			})
		default:
			t.Fatalf("%s: unexpected %s", monitoring.ScraperFile, kind)
		}
	})
	var token string
	poll(t, time.Minute, "the scraper token Secret to be filled in", func(ctx context.Context) (bool, error) {
		s, err := kube.CoreV1().Secrets(ns).Get(ctx, secretName, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		token = string(s.Data[corev1.ServiceAccountTokenKey])
		return token != "", nil
	})
	return token
}

func decodeFile(t *testing.T, rel string, each func(kind string, doc []byte)) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range regexp.MustCompile(`(?m)^---\s*$`).Split(string(data), -1) {
		if strings.TrimSpace(doc) == "" {
			continue
		}
		var tm metav1.TypeMeta
		if err := yaml.Unmarshal([]byte(doc), &tm); err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		each(tm.Kind, []byte(doc))
	}
}

func strict(t *testing.T, doc []byte, into any) {
	t.Helper()
	if err := yaml.UnmarshalStrict(doc, into); err != nil {
		t.Fatal(err)
	}
}

// create runs do and registers del for the end of the test.
func create(t *testing.T, what string, do func() error, del func(context.Context) error) {
	t.Helper()
	if err := do(); err != nil {
		t.Fatalf("creating %s: %v", what, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := del(ctx); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("deleting %s: %v", what, err)
		}
	})
}

// startController runs the binary with leader election, secure metrics and
// admission on loopback ports it picks itself, and returns the URLs it
// logs. The admission serving pair is the test's own (external cert
// management), so no webhook configuration is needed.
func startController(t *testing.T, ns string) (metricsURL, admissionURL string) {
	t.Helper()
	dir := t.TempDir()
	certDir := filepath.Join(dir, "admission-tls")
	writeServingPair(t, certDir)
	logPath := filepath.Join(dir, "ogx-controller.log")
	proc, err := framework.StartController(controllerBin, []string{"run",
		"--kubeconfig=" + cp.KubeconfigPath(),
		"--leader-elect=true", "--leader-election-lease-duration=4s",
		"--leader-election-renew-deadline=3s", "--leader-election-retry-period=1s",
		"--operator-namespace=" + ns, "--watch-namespaces=" + ns,
		"--metrics-bind-address=127.0.0.1:0",
		"--admission-bind-address=127.0.0.1:0", "--admission-cert-management=external", "--admission-cert-dir=" + certDir,
		"--health-probe-bind-address=0", "--server-probe=false", "-v=2",
	}, logPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			proc.DumpLog(os.Stderr, 80)
		}
		if err := proc.Stop(30 * time.Second); err != nil {
			t.Errorf("stopping ogx-controller: %v", err)
		}
	})
	addr := func(what string) string {
		re := regexp.MustCompile(`"Serving ` + what + `"[^\n]*? addr="([^"]+)"`)
		var got string
		poll(t, time.Minute, "ogx-controller to log its "+what+" address", func(context.Context) (bool, error) {
			if proc.Exited() {
				return false, fmt.Errorf("ogx-controller exited: %v", proc.Err())
			}
			data, err := os.ReadFile(logPath)
			if m := re.FindSubmatch(data); m != nil {
				got = string(m[1])
				return true, nil
			}
			return false, err
		})
		return got
	}
	return "https://" + addr("metrics") + "/metrics", "https://" + addr("admission webhook") + "/validate-ogx-io-v1beta1-ogxserver"
}

// writeServingPair writes tls.crt and tls.key for 127.0.0.1, signed by a
// throwaway CA, into dir.
func writeServingPair(t *testing.T, dir string) {
	t.Helper()
	ca, err := testcerts.NewCA("ogx-monitoring-test-ca")
	if err != nil {
		t.Fatal(err)
	}
	pair, err := ca.Issue(testcerts.Leaf{CommonName: "ogx-monitoring-test", IPs: []net.IP{net.ParseIP("127.0.0.1")}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for name, data := range pair.Files() {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// review sends a CREATE AdmissionReview of s to the admission listener
// (retrying until it answers: the serving pair is loaded a moment after the
// listener opens) and checks the decision.
func review(t *testing.T, url string, s *ogxv1beta1.OGXServer, wantAllowed bool) {
	t.Helper()
	obj := s.DeepCopy()
	obj.APIVersion, obj.Kind = ogxv1beta1.SchemeGroupVersion.String(), "OGXServer"
	raw, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	body, err := json.Marshal(&admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request: &admissionv1.AdmissionRequest{
			UID:       types.UID("review-" + s.Name),
			Kind:      metav1.GroupVersionKind{Group: ogxv1beta1.SchemeGroupVersion.Group, Version: "v1beta1", Kind: "OGXServer"},
			Resource:  metav1.GroupVersionResource{Group: ogxv1beta1.SchemeGroupVersion.Group, Version: "v1beta1", Resource: "ogxservers"},
			Name:      s.Name,
			Namespace: s.Namespace,
			Operation: admissionv1.Create,
			Object:    runtime.RawExtension{Raw: raw},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true, MinVersion: tls.VersionTLS12}}}
	defer client.CloseIdleConnections()
	var answer admissionv1.AdmissionReview
	poll(t, time.Minute, "an admission answer for "+s.Name, func(ctx context.Context) (bool, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
		if err != nil {
			return false, err
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			return false, err
		}
		defer resp.Body.Close()
		data, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != http.StatusOK {
			return false, fmt.Errorf("status %d: %s (%v)", resp.StatusCode, data, err)
		}
		return true, json.Unmarshal(data, &answer)
	})
	if answer.Response == nil || answer.Response.Allowed != wantAllowed {
		t.Fatalf("admission of %s: %+v, want allowed=%v", s.Name, answer.Response, wantAllowed)
	}
}

// get GETs url with an optional bearer token.
func get(t *testing.T, c *http.Client, url, token string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, err.Error()
	}
	return resp.StatusCode, string(body)
}

// sample is one scraped series: its name as PromQL sees it (histograms
// expand to _bucket, _sum and _count) and its labels.
type sample struct {
	name   string
	labels map[string]string
	value  float64
}

func parseSamples(t *testing.T, body string) []sample {
	t.Helper()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		t.Fatalf("parsing the scrape: %v", err)
	}
	var out []sample
	for name, mf := range families {
		for _, m := range mf.GetMetric() {
			ls := map[string]string{}
			for _, lp := range m.GetLabel() {
				ls[lp.GetName()] = lp.GetValue()
			}
			switch mf.GetType() {
			case dto.MetricType_HISTOGRAM:
				for _, b := range m.GetHistogram().GetBucket() {
					bl := copyWith(ls, "le", fmt.Sprint(b.GetUpperBound()))
					out = append(out, sample{name + "_bucket", bl, float64(b.GetCumulativeCount())})
				}
				out = append(out, sample{name + "_bucket", copyWith(ls, "le", "+Inf"), float64(m.GetHistogram().GetSampleCount())},
					sample{name + "_sum", ls, m.GetHistogram().GetSampleSum()},
					sample{name + "_count", ls, float64(m.GetHistogram().GetSampleCount())})
			case dto.MetricType_SUMMARY:
				out = append(out, sample{name + "_sum", ls, m.GetSummary().GetSampleSum()},
					sample{name + "_count", ls, float64(m.GetSummary().GetSampleCount())})
			case dto.MetricType_COUNTER:
				out = append(out, sample{name, ls, m.GetCounter().GetValue()})
			case dto.MetricType_GAUGE:
				out = append(out, sample{name, ls, m.GetGauge().GetValue()})
			default:
				out = append(out, sample{name, ls, m.GetUntyped().GetValue()})
			}
		}
	}
	return out
}

func copyWith(ls map[string]string, k, v string) map[string]string {
	out := make(map[string]string, len(ls)+1)
	for a, b := range ls {
		out[a] = b
	}
	out[k] = v
	return out
}

// expressions is every dashboard and rule expression.
func expressions(t *testing.T) []monitoring.Expression {
	t.Helper()
	d, err := monitoring.LoadDashboard(filepath.Join(root, monitoring.DashboardFile))
	if err != nil {
		t.Fatal(err)
	}
	exprs, err := d.Expressions()
	if err != nil {
		t.Fatal(err)
	}
	r, err := monitoring.LoadRule(filepath.Join(root, monitoring.RuleFile))
	if err != nil {
		t.Fatal(err)
	}
	return append(exprs, monitoring.RuleExpressions(r)...)
}

// matches reports whether s satisfies every matcher but those on target
// labels.
func matches(s sample, sel []*labels.Matcher) bool {
	for _, m := range sel {
		switch {
		case m.Name == labels.MetricName:
			if !m.Matches(s.name) {
				return false
			}
		case slices.Contains(targetLabels, m.Name):
		default:
			if !m.Matches(s.labels[m.Name]) {
				return false
			}
		}
	}
	return true
}

// unmatched lists the selectors no sample satisfies.
func unmatched(t *testing.T, p parser.Parser, exprs []monitoring.Expression, samples []sample) []string {
	t.Helper()
	var out []string
	for _, e := range exprs {
		sels, err := monitoring.Selectors(p, e)
		if err != nil {
			t.Fatal(err)
		}
		for _, sel := range sels {
			if !slices.ContainsFunc(samples, func(s sample) bool { return matches(s, sel) }) {
				out = append(out, fmt.Sprintf("%s: %v", e.Where, sel))
			}
		}
	}
	sort.Strings(out)
	return out
}

// groupingErrors reports aggregations grouping by a label that none of the
// series they aggregate carry: such a query silently collapses into one
// unlabelled series.
func groupingErrors(t *testing.T, p parser.Parser, exprs []monitoring.Expression, samples []sample) []error {
	t.Helper()
	var errs []error
	for _, e := range exprs {
		expr, err := p.ParseExpr(e.PromQL)
		if err != nil {
			t.Fatal(err)
		}
		parser.Inspect(expr, func(node parser.Node, _ []parser.Node) error {
			agg, ok := node.(*parser.AggregateExpr)
			if !ok || agg.Without {
				return nil
			}
			for _, sel := range parser.ExtractSelectors(agg.Expr) {
				for _, l := range agg.Grouping {
					if slices.Contains(targetLabels, l) {
						continue
					}
					if !slices.ContainsFunc(samples, func(s sample) bool { _, has := s.labels[l]; return has && matches(s, sel) }) {
						errs = append(errs, fmt.Errorf("%s: groups by %q, which %v does not carry", e.Where, l, sel))
					}
				}
			}
			return nil
		})
	}
	return errs
}

// valueOf sums the samples of metric whose labels include want.
func valueOf(samples []sample, metric string, want map[string]string) (float64, bool) {
	var sum float64
	var found bool
	for _, s := range samples {
		if s.name != metric {
			continue
		}
		ok := true
		for k, v := range want {
			if s.labels[k] != v {
				ok = false
			}
		}
		if ok {
			sum += s.value
			found = true
		}
	}
	return sum, found
}
