package render

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

// The monitoring.coreos.com kinds (docs/children.md, ServiceMonitor and
// PrometheusRule). This module has no Go types for them, so they are
// unstructured objects holding only JSON values (string, int64, bool,
// map[string]any, []any): deep-copyable, and byte-identical in JSON for equal
// inputs (encoding/json sorts map keys).
const (
	MonitoringAPIVersion = "monitoring.coreos.com/v1"
	KindServiceMonitor   = "ServiceMonitor"
	KindPrometheusRule   = "PrometheusRule"

	// ServerTLSCAKey is the key of the server TLS Secret whose CA the
	// ServiceMonitor verifies the scrape against (as the status probe does).
	ServerTLSCAKey = "ca.crt"

	monitoringInterval = "60s"
	metricsPath        = "/metrics"
	telemetryGroup     = "telemetry.rules"
	apiInfoRecord      = "ogx:api_info:max"
)

// apiInfoRules are the recording rules of N-prometheus-rules in their fixed
// order: the api label and the series whose presence it records.
var apiInfoRules = []struct{ api, series string }{
	{"inference", `ogx_requests_total{api="inference"}`},
	{"vector_io", `ogx_requests_total{api="vector_io"}`},
	{"responses", `ogx_requests_total{api="responses"}`},
	{"rag", "ogx_vector_io_documents_retrieved_total"},
	{"agentic", "ogx_responses_agentic_calls_total"},
}

// ServiceMonitor renders N-service-monitor (docs/children.md, ServiceMonitor
// and PrometheusRule). Its selector matches only N-service: adopted legacy
// Services and other instances' Services lack one of its labels. serverCA
// reports that the server TLS Secret has a ca.crt key; it matters only for a
// scrape of the TLS API port (M = P), verified against that CA or, without
// one, not at all, as the status probe does (docs/status.md, Server probe).
func ServiceMonitor(s *ogxv1beta1.OGXServer, _ *Inputs, serverCA bool) *unstructured.Unstructured {
	spec := &s.Spec
	endpoint := map[string]any{
		"path":     metricsPath,
		"interval": monitoringInterval,
		"scheme":   "http",
	}
	if separateMetricsPort(spec) {
		endpoint["targetPort"] = PortNameMetrics
	} else {
		endpoint["targetPort"] = int64(spec.Port())
		if t := spec.ServerTLS(); t != nil {
			endpoint["scheme"] = "https"
			endpoint["tlsConfig"] = scrapeTLSConfig(s, t.SecretName, serverCA)
		}
	}
	selector := map[string]any{
		LabelManagedBy: ManagedByValue,
		LabelPartOf:    PartOfValue,
		LabelInstance:  s.Name,
	}
	return monitoringObject(s, KindServiceMonitor, ServiceMonitorName(s.Name), ServiceMonitorLabels(s.Name), map[string]any{
		"selector":  map[string]any{"matchLabels": selector},
		"endpoints": []any{endpoint},
	})
}

// scrapeTLSConfig is the endpoint's tlsConfig for a scrape of the TLS API
// port.
func scrapeTLSConfig(s *ogxv1beta1.OGXServer, secretName string, serverCA bool) map[string]any {
	if !serverCA {
		return map[string]any{"insecureSkipVerify": true}
	}
	return map[string]any{
		"ca": map[string]any{
			"secret": map[string]any{"name": secretName, "key": ServerTLSCAKey},
		},
		"serverName": fmt.Sprintf("%s.%s.svc", ServiceName(s.Name), s.Namespace),
	}
}

// PrometheusRule renders N-prometheus-rules (docs/children.md, ServiceMonitor
// and PrometheusRule): one group of recording rules that turn the presence of
// each API's series into ogx:api_info:max{api=...} 0 or 1.
func PrometheusRule(s *ogxv1beta1.OGXServer, _ *Inputs) *unstructured.Unstructured {
	rules := make([]any, 0, len(apiInfoRules))
	for _, r := range apiInfoRules {
		rules = append(rules, map[string]any{
			"record": apiInfoRecord,
			"expr":   fmt.Sprintf("clamp_max(sum(%s) or vector(0), 1)", r.series),
			"labels": map[string]any{"api": r.api},
		})
	}
	return monitoringObject(s, KindPrometheusRule, PrometheusRuleName(s.Name), InstanceChildLabels(s.Name), map[string]any{
		"groups": []any{map[string]any{
			"name":     telemetryGroup,
			"interval": monitoringInterval,
			"rules":    rules,
		}},
	})
}

// monitoringObject assembles a monitoring.coreos.com/v1 object. Its metadata
// is that of the typed children, turned into JSON values.
func monitoringObject(s *ogxv1beta1.OGXServer, kind, name string, labels map[string]string, spec map[string]any) *unstructured.Unstructured {
	meta := metav1ac.ObjectMeta().
		WithName(name).
		WithNamespace(s.Namespace).
		WithLabels(labels).
		WithOwnerReferences(ownerRefs(s)...)
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": MonitoringAPIVersion,
		"kind":       kind,
		"metadata":   *viaJSON[map[string]any](meta),
		"spec":       spec,
	}}
}
