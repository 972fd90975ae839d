package render

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/ptr"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

// The ServiceMonitor and PrometheusRule (docs/children.md, ServiceMonitor and
// PrometheusRule).

func monitoring(s *ogxv1beta1.OGXServerSpec) *ogxv1beta1.MonitoringSpec {
	if s.Monitoring == nil {
		s.Monitoring = &ogxv1beta1.MonitoringSpec{}
	}
	return s.Monitoring
}

func serverTLS(s *ogxv1beta1.OGXServerSpec) {
	network(s).TLS = &ogxv1beta1.ServerTLSSpec{SecretName: "demo-tls"}
}

const wantServiceMonitorMeta = `{
  "name": "demo-service-monitor",
  "namespace": "team-a",
  "labels": {
    "app.kubernetes.io/managed-by": "ogx-operator",
    "app.kubernetes.io/part-of": "ogx",
    "ogx.io/watch": "true",
    "app.kubernetes.io/instance": "demo",
    "monitoring.opendatahub.io/scrape": "true"
  },
  "ownerReferences": [{
    "apiVersion": "ogx.io/v1beta1", "kind": "OGXServer", "name": "demo",
    "uid": "0b6a6c1e-6f2e-4c2a-9f59-5f1d8a0c7e11", "controller": true, "blockOwnerDeletion": true
  }]
}`

const wantSelector = `{"matchLabels": {
  "app.kubernetes.io/managed-by": "ogx-operator",
  "app.kubernetes.io/part-of": "ogx",
  "app.kubernetes.io/instance": "demo"
}}`

func TestServiceMonitor(t *testing.T) {
	cases := []struct {
		name      string
		mut       []func(*ogxv1beta1.OGXServerSpec)
		serverCA  bool
		endpoints string
	}{
		{
			name:      "default ports (M=9464, P=8321): named metrics port",
			endpoints: `[{"path": "/metrics", "interval": "60s", "scheme": "http", "targetPort": "metrics"}]`,
		},
		{
			name: "M = P: the API port as an integer",
			mut: []func(*ogxv1beta1.OGXServerSpec){func(s *ogxv1beta1.OGXServerSpec) {
				monitoring(s).MetricsPort = ptr.To[int32](8321)
			}},
			endpoints: `[{"path": "/metrics", "interval": "60s", "scheme": "http", "targetPort": 8321}]`,
		},
		{
			name: "M = P on a custom port",
			mut: []func(*ogxv1beta1.OGXServerSpec){func(s *ogxv1beta1.OGXServerSpec) {
				network(s).Port = 9000
				monitoring(s).MetricsPort = ptr.To[int32](9000)
			}},
			endpoints: `[{"path": "/metrics", "interval": "60s", "scheme": "http", "targetPort": 9000}]`,
		},
		{
			name:      "M ≠ P with server TLS: metrics stay plain HTTP",
			mut:       []func(*ogxv1beta1.OGXServerSpec){serverTLS},
			serverCA:  true,
			endpoints: `[{"path": "/metrics", "interval": "60s", "scheme": "http", "targetPort": "metrics"}]`,
		},
		{
			name: "M = P with server TLS and ca.crt: verified HTTPS",
			mut: []func(*ogxv1beta1.OGXServerSpec){serverTLS, func(s *ogxv1beta1.OGXServerSpec) {
				monitoring(s).MetricsPort = ptr.To[int32](8321)
			}},
			serverCA: true,
			endpoints: `[{"path": "/metrics", "interval": "60s", "scheme": "https", "targetPort": 8321,
			  "tlsConfig": {"ca": {"secret": {"name": "demo-tls", "key": "ca.crt"}}, "serverName": "demo-service.team-a.svc"}}]`,
		},
		{
			name: "M = P with server TLS without ca.crt: unverified HTTPS",
			mut: []func(*ogxv1beta1.OGXServerSpec){serverTLS, func(s *ogxv1beta1.OGXServerSpec) {
				monitoring(s).MetricsPort = ptr.To[int32](8321)
			}},
			endpoints: `[{"path": "/metrics", "interval": "60s", "scheme": "https", "targetPort": 8321,
			  "tlsConfig": {"insecureSkipVerify": true}}]`,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := ServiceMonitor(server(tc.mut...), inputs(), tc.serverCA)
			equalJSON(t, "ServiceMonitor", got.Object, `{
			  "apiVersion": "monitoring.coreos.com/v1", "kind": "ServiceMonitor",
			  "metadata": `+wantServiceMonitorMeta+`,
			  "spec": {"selector": `+wantSelector+`, "endpoints": `+tc.endpoints+`}}`)
		})
	}
}

func TestPrometheusRule(t *testing.T) {
	got := PrometheusRule(server(), inputs())
	equalJSON(t, "PrometheusRule", got.Object, `{
	  "apiVersion": "monitoring.coreos.com/v1", "kind": "PrometheusRule",
	  "metadata": {
	    "name": "demo-prometheus-rules", "namespace": "team-a",
	    "labels": {
	      "app.kubernetes.io/managed-by": "ogx-operator", "app.kubernetes.io/part-of": "ogx",
	      "ogx.io/watch": "true", "app.kubernetes.io/instance": "demo"
	    },
	    "ownerReferences": [{
	      "apiVersion": "ogx.io/v1beta1", "kind": "OGXServer", "name": "demo",
	      "uid": "0b6a6c1e-6f2e-4c2a-9f59-5f1d8a0c7e11", "controller": true, "blockOwnerDeletion": true
	    }]
	  },
	  "spec": {"groups": [{
	    "name": "telemetry.rules", "interval": "60s",
	    "rules": [
	      {"record": "ogx:api_info:max", "labels": {"api": "inference"},
	       "expr": "clamp_max(sum(ogx_requests_total{api=\"inference\"}) or vector(0), 1)"},
	      {"record": "ogx:api_info:max", "labels": {"api": "vector_io"},
	       "expr": "clamp_max(sum(ogx_requests_total{api=\"vector_io\"}) or vector(0), 1)"},
	      {"record": "ogx:api_info:max", "labels": {"api": "responses"},
	       "expr": "clamp_max(sum(ogx_requests_total{api=\"responses\"}) or vector(0), 1)"},
	      {"record": "ogx:api_info:max", "labels": {"api": "rag"},
	       "expr": "clamp_max(sum(ogx_vector_io_documents_retrieved_total) or vector(0), 1)"},
	      {"record": "ogx:api_info:max", "labels": {"api": "agentic"},
	       "expr": "clamp_max(sum(ogx_responses_agentic_calls_total) or vector(0), 1)"}
	    ]
	  }]}
	}`)
}

// Offline (`render` without metadata.uid) the objects carry no owner
// reference, as every other child.
func TestMonitoringWithoutUID(t *testing.T) {
	s := server()
	s.UID = ""
	for _, o := range []*unstructured.Unstructured{ServiceMonitor(s, inputs(), false), PrometheusRule(s, inputs())} {
		if refs := o.GetOwnerReferences(); len(refs) != 0 {
			t.Errorf("%s has owner references %v without a UID", o.GetKind(), refs)
		}
	}
}

// The selector picks this instance's Service and nothing else: not another
// instance's Service in the namespace, not an adopted legacy Service, and
// not the pods (whose labels are the pod selector labels).
func TestServiceMonitorSelectsOnlyItsService(t *testing.T) {
	sm := ServiceMonitor(server(), inputs(), false)
	ml, _, err := unstructured.NestedStringMap(sm.Object, "spec", "selector", "matchLabels")
	if err != nil {
		t.Fatal(err)
	}
	sel := labels.SelectorFromSet(ml)
	own := Service(server(), inputs())
	other := server()
	other.Name = "other"
	candidates := map[string]map[string]string{
		"demo-service":   own.Labels,
		"other-service":  Service(other, inputs()).Labels,
		"legacy-service": ChildLabels(), // the upstream three labels of an adopted L-service
		"pods":           SelectorLabels(testName),
		"deployment":     ChildLabels(),
	}
	for name, l := range candidates {
		if got, want := sel.Matches(labels.Set(l)), name == "demo-service"; got != want {
			t.Errorf("selector %s matches %s (labels %v) = %v, want %v", sel, name, l, got, want)
		}
	}
}

// Equal arguments give byte-identical JSON (render is deterministic), and the
// objects survive a deep copy (only JSON-compatible values).
func TestMonitoringDeterministic(t *testing.T) {
	muts := []func(*ogxv1beta1.OGXServerSpec){serverTLS, func(s *ogxv1beta1.OGXServerSpec) {
		monitoring(s).MetricsPort = ptr.To[int32](8321)
	}}
	for _, render := range []func() *unstructured.Unstructured{
		func() *unstructured.Unstructured { return ServiceMonitor(server(muts...), inputs(), true) },
		func() *unstructured.Unstructured { return PrometheusRule(server(), inputs()) },
	} {
		first := asJSON(t, render().Object)
		for range 20 {
			o := render()
			if got := asJSON(t, o.DeepCopy().Object); !bytes.Equal(got, first) {
				t.Fatalf("render output differs:\n%s\n%s", first, got)
			}
		}
	}
}

func TestWantMonitoring(t *testing.T) {
	off := server(func(s *ogxv1beta1.OGXServerSpec) { monitoring(s).Enabled = ptr.To(false) })
	served := inputs(func(in *Inputs) { in.MonitoringServed = true })
	got := []bool{
		WantMonitoring(server(), served),
		WantMonitoring(server(), inputs()),
		WantMonitoring(off, served),
	}
	if d := cmp.Diff([]bool{true, false, false}, got); d != "" {
		t.Errorf("WantMonitoring (-want +got):\n%s", d)
	}
}
