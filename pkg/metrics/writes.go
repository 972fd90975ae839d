package metrics

import (
	"net/http"
	"strings"
)

// WrapTransport returns rt counting every write request it carries in
// ogx_controller_writes_total, by kind and verb. Counting at the
// transport, not at each call site, means no write of the process can be
// missed: child applies, status, PVC creates, adoption and hand-over
// patches, retention deletes, Events, Lease renewals (the one write of an
// idle leader). Reads are not counted, nor are the token and access
// reviews of the metrics endpoint's authentication: they are POSTs that
// store nothing.
func (m *Metrics) WrapTransport(rt http.RoundTripper) http.RoundTripper {
	if m == nil {
		return rt
	}
	kinds := writtenKinds() // built once per transport, not per request
	return roundTripFunc(func(req *http.Request) (*http.Response, error) {
		if verb := writeVerb(req); verb != "" {
			if resource := resourceOf(req.URL.Path); !strings.HasSuffix(resource, "reviews") {
				m.CountWrite(kindOf(kinds, resource), verb)
			}
		}
		return rt.RoundTrip(req)
	})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// writeVerb names a request's write verb, or "" for a read.
func writeVerb(req *http.Request) string {
	switch req.Method {
	case http.MethodPost:
		return VerbCreate
	case http.MethodPut:
		return VerbUpdate
	case http.MethodDelete:
		return VerbDelete
	case http.MethodPatch:
		if strings.HasPrefix(req.Header.Get("Content-Type"), "application/apply-patch") {
			return VerbApply
		}
		return VerbPatch
	}
	return ""
}

// resourceOf returns the resource of an API path, with its subresource:
// /apis/apps/v1/namespaces/ns/deployments/d gives "deployments",
// /apis/ogx.io/v1beta1/namespaces/ns/ogxservers/s/status gives
// "ogxservers/status". A path it does not understand gives "other".
func resourceOf(path string) string {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	switch {
	case len(parts) >= 2 && parts[0] == "api":
		parts = parts[2:]
	case len(parts) >= 3 && parts[0] == "apis":
		parts = parts[3:]
	default:
		return "other"
	}
	// namespaces/NS/RESOURCE... is a namespaced resource, except the
	// namespace's own subresources (namespaces/NS/status, /finalize).
	if len(parts) >= 3 && parts[0] == "namespaces" && !(len(parts) == 3 && (parts[2] == "status" || parts[2] == "finalize")) {
		parts = parts[2:]
	}
	switch len(parts) {
	case 0:
		return "other"
	case 1, 2:
		return parts[0]
	default:
		return parts[0] + "/" + parts[2]
	}
}

// writtenKinds names the kind of each resource the process writes, so that
// writes_total{kind} reads like apply_skipped_total{kind} and the two can
// be compared series by series (docs/operations-monitoring.md). The
// transport sees only a URL path and a discovery lookup per request would
// cost more than the write it counts, hence a fixed table.
func writtenKinds() map[string]string {
	return map[string]string{
		"configmaps": "ConfigMap", "secrets": "Secret", "services": "Service", "serviceaccounts": "ServiceAccount",
		"persistentvolumeclaims": "PersistentVolumeClaim", "namespaces": "Namespace", "pods": "Pod",
		"events": "Event", "leases": "Lease", "deployments": "Deployment", "rolebindings": "RoleBinding",
		"networkpolicies": "NetworkPolicy", "horizontalpodautoscalers": "HorizontalPodAutoscaler",
		"poddisruptionbudgets": "PodDisruptionBudget", "ingresses": "Ingress",
		"servicemonitors": "ServiceMonitor", "prometheusrules": "PrometheusRule",
		"ogxservers": "OGXServer", "llamastackdistributions": "LlamaStackDistribution",
		"validatingwebhookconfigurations": "ValidatingWebhookConfiguration",
		"customresourcedefinitions":       "CustomResourceDefinition",
	}
}

// kindOf turns a resource from resourceOf into the kind label, by kinds
// (writtenKinds):
// "deployments" gives "Deployment", "ogxservers/status" gives
// "OGXServer/status" (a status write is not a spec write). A resource
// missing from writtenKinds keeps its plural name rather than vanish into
// one bucket, so a new kind of write still shows which it is.
func kindOf(kinds map[string]string, resource string) string {
	name, sub, hasSub := strings.Cut(resource, "/")
	kind, ok := kinds[name]
	if !ok {
		return resource
	}
	if hasSub {
		return kind + "/" + sub
	}
	return kind
}
