package render

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

// The monitoring.coreos.com kinds (docs/children.md, ServiceMonitor and
// PrometheusRule). No Go types or applyconfigurations exist for them in this
// module, so they are rendered as unstructured objects holding only
// JSON-compatible values (string, int64, bool, map[string]any, []any), which
// keeps them deep-copyable and makes their JSON byte-identical for equal
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
// and PrometheusRule). It selects Services by managed-by, part-of and
// instance, so only N-service matches: adopted L-service objects and other
// instances' Services lack one of them.
//
// serverCA reports that the server TLS Secret has a ca.crt key; it matters
// only when the metrics are served on the TLS-protected API port (M = P with
// spec.network.tls): the scrape then verifies against that CA with the
// Service's DNS name, or skips verification without a CA, as the status probe
// does (docs/status.md, Server probe).
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
	selector := map[string]string{
		LabelManagedBy: ManagedByValue,
		LabelPartOf:    PartOfValue,
		LabelInstance:  s.Name,
	}
	return monitoringObject(s, KindServiceMonitor, ServiceMonitorName(s.Name), ServiceMonitorLabels(s.Name), map[string]any{
		"selector":  map[string]any{"matchLabels": stringMap(selector)},
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
	return monitoringObject(s, KindPrometheusRule, PrometheusRuleName(s.Name), MonitoringLabels(s.Name), map[string]any{
		"groups": []any{map[string]any{
			"name":     telemetryGroup,
			"interval": monitoringInterval,
			"rules":    rules,
		}},
	})
}

// monitoringObject assembles a monitoring.coreos.com/v1 object with the
// owner reference (when the OGXServer has a UID, as ownerRefs).
func monitoringObject(s *ogxv1beta1.OGXServer, kind, name string, labels map[string]string, spec map[string]any) *unstructured.Unstructured {
	meta := map[string]any{
		"name":      name,
		"namespace": s.Namespace,
		"labels":    stringMap(labels),
	}
	if s.UID != "" {
		meta["ownerReferences"] = []any{map[string]any{
			"apiVersion":         ogxv1beta1.SchemeGroupVersion.String(),
			"kind":               OGXServerKind,
			"name":               s.Name,
			"uid":                string(s.UID),
			"controller":         true,
			"blockOwnerDeletion": true,
		}}
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": MonitoringAPIVersion,
		"kind":       kind,
		"metadata":   meta,
		"spec":       spec,
	}}
}

func stringMap(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
