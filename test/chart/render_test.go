package chart

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/ogx-k8s/ogx-controller/test/framework"
)

// loadChart loads the chart from the repository root.
func loadChart(t *testing.T) (*chart.Chart, string) {
	t.Helper()
	root, err := framework.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	ch, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	return ch, root
}

// operatorNS is the release namespace the tests render into: the
// namespace of release/ogx-controller.yaml, where the chart puts the
// operator by default.
const operatorNS = "ogx-system"

// render renders with vals into operatorNS, failing the test on error.
func render(t *testing.T, ch *chart.Chart, vals map[string]any) []*unstructured.Unstructured {
	t.Helper()
	objs, err := Render(ch, vals, operatorNS)
	if err != nil {
		t.Fatalf("rendering with %v: %v", vals, err)
	}
	return objs
}

// asInstalled is what the chart installs with vals as release
// ReleaseName in operatorNS, as comparable with the kustomize install: the
// CRDs of crds/ first, then the rendered objects without HelmLabels (the
// test fails when an object lacks them).
func asInstalled(t *testing.T, ch *chart.Chart, vals map[string]any) []*unstructured.Unstructured {
	t.Helper()
	crds, err := CRDs(ch)
	if err != nil {
		t.Fatal(err)
	}
	objs, err := WithoutHelmLabels(ch, render(t, ch, vals))
	if err != nil {
		t.Errorf("Helm's labels: %v", err)
	}
	return append(crds, objs...)
}

// withoutNamespaceObject drops the Namespace of a kustomize install, the
// one object the chart does not install: it runs in the release namespace,
// which Helm creates (helm install --create-namespace) and which the PSA
// label is put on by hand (docs/install-helm.md).
func withoutNamespaceObject(t *testing.T, objs []*unstructured.Unstructured) []*unstructured.Unstructured {
	t.Helper()
	var out []*unstructured.Unstructured
	dropped := 0
	for _, u := range objs {
		if u.GetKind() == "Namespace" && u.GetAPIVersion() == "v1" && u.GetName() == operatorNS {
			dropped++
			continue
		}
		out = append(out, u)
	}
	if dropped != 1 {
		t.Fatalf("the kustomize install has %d Namespace %s objects, want 1", dropped, operatorNS)
	}
	return out
}

// TestDefaultsMatchRelease: the chart with default values, installed as
// `helm install ogx-controller charts/ogx-controller -n ogx-system
// --create-namespace` does, CRDs included, installs exactly the objects of
// release/ogx-controller.yaml (rendered by kustomize from config/default),
// compared field by field after parsing, so the two install paths cannot
// drift. What may differ is exactly: the two labels Helm adds to every
// object (app.kubernetes.io/managed-by: Helm, helm.sh/chart:
// ogx-controller-<chart version>), and the Namespace object, which Helm
// creates for the chart. The instance label is the release name, which
// here is the kustomize install's instance (ogx-controller).
func TestDefaultsMatchRelease(t *testing.T) {
	ch, root := loadChart(t)
	want, err := ReadRelease(root)
	if err != nil {
		t.Fatal(err)
	}
	compareSets(t, "release/ogx-controller.yaml", withoutNamespaceObject(t, want), asInstalled(t, ch, nil))
}

// find returns the rendered object of kind and name, or nil.
func find(objs []*unstructured.Unstructured, kind, name string) *unstructured.Unstructured {
	for _, u := range objs {
		if u.GetKind() == kind && u.GetName() == name {
			return u
		}
	}
	return nil
}

// field reads a nested field of the object of kind and name; the test fails
// when the object is absent.
func field(t *testing.T, objs []*unstructured.Unstructured, kind, name string, path ...string) any {
	t.Helper()
	u := find(objs, kind, name)
	if u == nil {
		t.Fatalf("no %s %s rendered", kind, name)
	}
	v, _, err := unstructured.NestedFieldNoCopy(u.Object, path...)
	if err != nil {
		t.Fatalf("%s %s %v: %v", kind, name, path, err)
	}
	return v
}

const (
	deploy    = "ogx-k8s-operator-controller-manager"
	webhookSv = "ogx-k8s-operator-webhook-service"
	vwc       = "ogx-controller-validating-webhook-configuration"
)

// manager returns the manager container of the Deployment.
func manager(t *testing.T, objs []*unstructured.Unstructured) map[string]any {
	t.Helper()
	cs := field(t, objs, "Deployment", deploy, "spec", "template", "spec", "containers").([]any)
	return cs[0].(map[string]any)
}

func args(t *testing.T, objs []*unstructured.Unstructured) []string {
	t.Helper()
	var out []string
	for _, a := range manager(t, objs)["args"].([]any) {
		out = append(out, a.(string))
	}
	return out
}

// hasRule reports whether the ClusterRole ogx-controller grants something
// in resource (group/resource).
func hasRule(t *testing.T, objs []*unstructured.Unstructured, group, resource string) bool {
	t.Helper()
	return roleHasRule(t, objs, "ogx-controller", group, resource)
}

// roleHasRule reports whether ClusterRole role grants something in
// resource (group/resource).
func roleHasRule(t *testing.T, objs []*unstructured.Unstructured, role, group, resource string) bool {
	t.Helper()
	for _, r := range field(t, objs, "ClusterRole", role, "rules").([]any) {
		rule := r.(map[string]any)
		groups, _ := rule["apiGroups"].([]any)
		resources, _ := rule["resources"].([]any)
		if slices.Contains(groups, any(group)) && slices.Contains(resources, any(resource)) {
			return true
		}
	}
	return false
}

// TestValues: each non-default value produces what values.yaml says it
// does, and nothing else changes where the case checks.
func TestValues(t *testing.T) {
	ch, _ := loadChart(t)
	tests := []struct {
		name  string
		vals  map[string]any
		check func(t *testing.T, objs []*unstructured.Unstructured)
	}{{
		name: "operator namespace moves every namespaced object and reference",
		vals: map[string]any{"operatorNamespace": "ogx-ops", "namespace": map[string]any{"create": true}},
		check: func(t *testing.T, objs []*unstructured.Unstructured) {
			if find(objs, "Namespace", "ogx-ops") == nil {
				t.Error("no Namespace ogx-ops")
			}
			for _, u := range objs {
				switch u.GetKind() {
				case "Namespace", "ClusterRole", "ClusterRoleBinding", "ValidatingWebhookConfiguration":
					if u.GetNamespace() != "" {
						t.Errorf("cluster-scoped %s has namespace %q", Key(u), u.GetNamespace())
					}
				default:
					if u.GetNamespace() != "ogx-ops" {
						t.Errorf("%s is in %q, want ogx-ops", Key(u), u.GetNamespace())
					}
				}
			}
			subj := field(t, objs, "ClusterRoleBinding", "ogx-controller", "subjects").([]any)[0].(map[string]any)
			if subj["namespace"] != "ogx-ops" {
				t.Errorf("ClusterRoleBinding subject namespace %v", subj["namespace"])
			}
			svc := field(t, objs, "ValidatingWebhookConfiguration", vwc, "webhooks").([]any)[0].(map[string]any)["clientConfig"].(map[string]any)["service"].(map[string]any)
			if svc["namespace"] != "ogx-ops" || svc["name"] != webhookSv {
				t.Errorf("webhook service %v", svc)
			}
		},
	}, {
		name: "by default the operator runs in the release namespace, which the chart does not own",
		vals: nil,
		check: func(t *testing.T, objs []*unstructured.Unstructured) {
			if ns := find(objs, "Deployment", deploy).GetNamespace(); ns != operatorNS {
				t.Errorf("Deployment in %q, want the release namespace %s", ns, operatorNS)
			}
			if u := find(objs, "Namespace", operatorNS); u != nil {
				t.Error("the chart owns the release namespace")
			}
		},
	}, {
		name: "watch namespaces, replicas and leader election timings become flags",
		vals: map[string]any{"watchNamespaces": []any{"team-a", "team-b"}, "replicas": 3,
			"leaderElection": map[string]any{"enabled": true, "leaseDuration": "30s", "renewDeadline": "20s", "retryPeriod": "5s"}},
		check: func(t *testing.T, objs []*unstructured.Unstructured) {
			a := args(t, objs)
			for _, want := range []string{"--watch-namespaces=team-a,team-b", "--leader-elect=true",
				"--leader-election-lease-duration=30s", "--leader-election-renew-deadline=20s", "--leader-election-retry-period=5s"} {
				if !slices.Contains(a, want) {
					t.Errorf("args %v lack %s", a, want)
				}
			}
			if r := field(t, objs, "Deployment", deploy, "spec", "replicas"); r != float64(3) {
				t.Errorf("replicas %v (%T)", r, r)
			}
			if find(objs, "PodDisruptionBudget", deploy) == nil {
				t.Error("no PodDisruptionBudget with 3 replicas")
			}
		},
	}, {
		name: "by default the opt-in ClusterRoles are installed and bound nowhere",
		vals: nil,
		check: func(t *testing.T, objs []*unstructured.Unstructured) {
			for _, role := range []string{"ogx-controller-any-uid", "ogx-controller-storage-adoption"} {
				if find(objs, "ClusterRole", role) == nil {
					t.Errorf("no ClusterRole %s", role)
				}
				for _, u := range objs {
					if (u.GetKind() == "RoleBinding" || u.GetKind() == "ClusterRoleBinding") && u.GetName() == role {
						t.Errorf("%s binds the opt-in %s by default", Key(u), role)
					}
				}
			}
			if slices.Contains(args(t, objs), "--server-any-uid") {
				t.Error("--server-any-uid by default")
			}
		},
	}, {
		name: "rbac.aggregateToDefaultRoles=false leaves out the aggregated ClusterRoles",
		vals: map[string]any{"rbac": map[string]any{"aggregateToDefaultRoles": false}},
		check: func(t *testing.T, objs []*unstructured.Unstructured) {
			for _, role := range []string{"ogx-controller-view", "ogx-controller-edit"} {
				if find(objs, "ClusterRole", role) != nil {
					t.Errorf("ClusterRole %s rendered with rbac.aggregateToDefaultRoles=false", role)
				}
			}
			if find(objs, "ClusterRole", "ogx-controller") == nil {
				t.Error("the controller's own ClusterRole went too")
			}
		},
	}, {
		name: "serverAnyUID passes the flag and binds its ClusterRole cluster-wide",
		vals: map[string]any{"serverAnyUID": true, "rbac": map[string]any{"aggregateToDefaultRoles": false}},
		check: func(t *testing.T, objs []*unstructured.Unstructured) {
			if !slices.Contains(args(t, objs), "--server-any-uid") {
				t.Errorf("args %v lack --server-any-uid", args(t, objs))
			}
			want := map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "ogx-controller-any-uid"}
			if d := cmp.Diff(want, field(t, objs, "ClusterRoleBinding", "ogx-controller-any-uid", "roleRef")); d != "" {
				t.Errorf("roleRef (-want +got):\n%s", d)
			}
		},
	}, {
		name: "serverAnyUID with watch namespaces binds it in each; storage adoption only where listed",
		vals: map[string]any{"serverAnyUID": true, "rbac": map[string]any{"aggregateToDefaultRoles": false}, "watchNamespaces": []any{"team-a", "team-b"},
			"storageAdoption": map[string]any{"namespaces": []any{"team-b"}}},
		check: func(t *testing.T, objs []*unstructured.Unstructured) {
			bound := map[string][]string{}
			for _, u := range objs {
				if u.GetKind() == "RoleBinding" && strings.HasPrefix(u.GetName(), "ogx-controller-") {
					ref, _, _ := unstructured.NestedString(u.Object, "roleRef", "name")
					bound[ref] = append(bound[ref], u.GetNamespace())
				}
			}
			want := []string{"team-a", "team-b"}
			if d := cmp.Diff(want, bound["ogx-controller-any-uid"]); d != "" {
				t.Errorf("any-uid RoleBindings (-want +got):\n%s", d)
			}
			if d := cmp.Diff([]string{"team-b"}, bound["ogx-controller-storage-adoption"]); d != "" {
				t.Errorf("storage-adoption RoleBindings (-want +got):\n%s", d)
			}
			if find(objs, "ClusterRoleBinding", "ogx-controller-any-uid") != nil {
				t.Error("any-uid bound cluster-wide with watch namespaces")
			}
		},
	}, {
		name: "watch namespaces scope the namespaced rules to them",
		vals: map[string]any{"watchNamespaces": []any{"team-a", "team-b"}},
		check: func(t *testing.T, objs []*unstructured.Unstructured) {
			for _, ns := range []string{"team-a", "team-b"} {
				var rb *unstructured.Unstructured
				for _, u := range objs {
					if u.GetKind() == "RoleBinding" && u.GetName() == "ogx-controller" && u.GetNamespace() == ns {
						rb = u
					}
				}
				if rb == nil {
					t.Errorf("no RoleBinding ogx-controller in %s", ns)
					continue
				}
				want := map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "ogx-controller"}
				if d := cmp.Diff(want, rb.Object["roleRef"]); d != "" {
					t.Errorf("RoleBinding in %s roleRef (-want +got):\n%s", ns, d)
				}
			}
			if find(objs, "ClusterRoleBinding", "ogx-controller") != nil {
				t.Error("the namespaced rules are still bound cluster-wide")
			}
			if !roleHasRule(t, objs, "ogx-controller", "apps", "deployments") || roleHasRule(t, objs, "ogx-controller", "apiextensions.k8s.io", "customresourcedefinitions") {
				t.Error("ClusterRole ogx-controller should hold exactly the namespaced rules")
			}
			if !roleHasRule(t, objs, "ogx-controller-cluster", "apiextensions.k8s.io", "customresourcedefinitions") || roleHasRule(t, objs, "ogx-controller-cluster", "apps", "deployments") {
				t.Error("ClusterRole ogx-controller-cluster should hold exactly the cluster-scoped rules")
			}
			if find(objs, "ClusterRoleBinding", "ogx-controller-cluster") == nil || find(objs, "Role", "ogx-controller-operator-config") == nil {
				t.Error("no binding of the cluster-scoped rules, or no Role for the operator ConfigMap")
			}
			// Split, the rules are the default ClusterRole's, no more, no less.
			def := field(t, render(t, ch, nil), "ClusterRole", "ogx-controller", "rules").([]any)
			split := append(append([]any{}, field(t, objs, "ClusterRole", "ogx-controller", "rules").([]any)...),
				field(t, objs, "ClusterRole", "ogx-controller-cluster", "rules").([]any)...)
			if d := cmp.Diff(def, split); d != "" {
				t.Errorf("the split rules differ from the cluster-wide ClusterRole (-default +split):\n%s", d)
			}
		},
	}, {
		name: "watching the operator namespace needs no extra Role",
		vals: map[string]any{"watchNamespaces": []any{"ogx-system", "team-a"}},
		check: func(t *testing.T, objs []*unstructured.Unstructured) {
			if find(objs, "Role", "ogx-controller-operator-config") != nil {
				t.Error("Role ogx-controller-operator-config although the RoleBinding in ogx-system covers it")
			}
		},
	}, {
		name: "one replica without leader election: no Lease RBAC, no PDB",
		vals: map[string]any{"replicas": 1, "leaderElection": map[string]any{"enabled": false}},
		check: func(t *testing.T, objs []*unstructured.Unstructured) {
			if !slices.Contains(args(t, objs), "--leader-elect=false") {
				t.Errorf("args %v lack --leader-elect=false", args(t, objs))
			}
			for _, k := range []string{"Role", "RoleBinding"} {
				if find(objs, k, "ogx-controller-leader-election") != nil {
					t.Errorf("%s ogx-controller-leader-election rendered without leader election", k)
				}
			}
			if find(objs, "PodDisruptionBudget", deploy) != nil {
				t.Error("a PodDisruptionBudget for one replica would block drains")
			}
		},
	}, {
		name: "cert-manager issues the webhook certificate",
		vals: map[string]any{"admission": map[string]any{"certificate": map[string]any{"mode": "cert-manager"}}},
		check: func(t *testing.T, objs []*unstructured.Unstructured) {
			if find(objs, "Issuer", "ogx-controller-selfsigned") == nil {
				t.Error("no self-signed Issuer")
			}
			names := field(t, objs, "Certificate", "ogx-controller-webhook", "spec", "dnsNames").([]any)
			if !slices.Contains(names, any(webhookSv+".ogx-system.svc")) {
				t.Errorf("Certificate dnsNames %v", names)
			}
			ann := find(objs, "ValidatingWebhookConfiguration", vwc).GetAnnotations()
			if ann["cert-manager.io/inject-ca-from"] != "ogx-system/ogx-controller-webhook" {
				t.Errorf("webhook annotations %v", ann)
			}
			checkExternal(t, objs, "ogx-controller-webhook-cert-manager")
		},
	}, {
		name: "cert-manager with a cluster issuer makes no Issuer",
		vals: map[string]any{"admission": map[string]any{"certificate": map[string]any{"mode": "cert-manager",
			"certManager": map[string]any{"issuerRef": map[string]any{"name": "corp", "kind": "ClusterIssuer"}}}}},
		check: func(t *testing.T, objs []*unstructured.Unstructured) {
			if find(objs, "Issuer", "ogx-controller-selfsigned") != nil {
				t.Error("a self-signed Issuer next to a given issuerRef")
			}
			ref := field(t, objs, "Certificate", "ogx-controller-webhook", "spec", "issuerRef")
			if d := cmp.Diff(map[string]any{"name": "corp", "kind": "ClusterIssuer"}, ref); d != "" {
				t.Errorf("issuerRef (-want +got):\n%s", d)
			}
		},
	}, {
		name: "the OpenShift service CA issues the webhook certificate",
		vals: map[string]any{"admission": map[string]any{"certificate": map[string]any{"mode": "openshift"}}},
		check: func(t *testing.T, objs []*unstructured.Unstructured) {
			if a := find(objs, "Service", webhookSv).GetAnnotations(); a["service.beta.openshift.io/serving-cert-secret-name"] != "ogx-controller-webhook-service-ca" {
				t.Errorf("webhook Service annotations %v", a)
			}
			if a := find(objs, "ValidatingWebhookConfiguration", vwc).GetAnnotations(); a["service.beta.openshift.io/inject-cabundle"] != "true" {
				t.Errorf("webhook annotations %v", a)
			}
			checkExternal(t, objs, "ogx-controller-webhook-service-ca")
		},
	}, {
		name: "admission off: no webhook objects, listener off",
		vals: map[string]any{"admission": map[string]any{"enabled": false, "certificate": map[string]any{"mode": "self"}}},
		check: func(t *testing.T, objs []*unstructured.Unstructured) {
			for _, k := range [][2]string{{"ValidatingWebhookConfiguration", vwc}, {"Service", webhookSv}, {"Role", "ogx-controller-webhook-certs"}} {
				if find(objs, k[0], k[1]) != nil {
					t.Errorf("%s %s rendered with admission off", k[0], k[1])
				}
			}
			if !slices.Contains(args(t, objs), "--admission-bind-address=0") {
				t.Errorf("args %v", args(t, objs))
			}
			if hasRule(t, objs, "admissionregistration.k8s.io", "validatingwebhookconfigurations") {
				t.Error("webhook configuration rule with admission off")
			}
		},
	}, {
		name: "metrics off: no Service, no review rules, listener off",
		vals: map[string]any{"metrics": map[string]any{"enabled": false}},
		check: func(t *testing.T, objs []*unstructured.Unstructured) {
			if find(objs, "Service", deploy+"-metrics-service") != nil || find(objs, "ClusterRole", "ogx-controller-metrics-reader") != nil {
				t.Error("metrics objects rendered with metrics off")
			}
			if !slices.Contains(args(t, objs), "--metrics-bind-address=0") {
				t.Errorf("args %v", args(t, objs))
			}
			if hasRule(t, objs, "authentication.k8s.io", "tokenreviews") {
				t.Error("tokenreviews rule with metrics off")
			}
		},
	}, {
		name: "ServiceMonitor with its own scraper identity, and metrics readers",
		vals: map[string]any{"metrics": map[string]any{"enabled": true,
			"readerServiceAccounts": []any{map[string]any{"name": "prometheus-k8s", "namespace": "monitoring"}},
			"serviceMonitor":        map[string]any{"enabled": true, "labels": map[string]any{"release": "prom"}, "interval": "1m"}}},
		check: func(t *testing.T, objs []*unstructured.Unstructured) {
			sm := find(objs, "ServiceMonitor", "ogx-controller")
			if sm == nil || sm.GetAPIVersion() != "monitoring.coreos.com/v1" {
				t.Fatalf("ServiceMonitor %v", sm)
			}
			if sm.GetLabels()["release"] != "prom" {
				t.Errorf("labels %v", sm.GetLabels())
			}
			ep := field(t, objs, "ServiceMonitor", "ogx-controller", "spec", "endpoints").([]any)[0].(map[string]any)
			if ep["port"] != "https" || ep["interval"] != "1m" || ep["scheme"] != "https" {
				t.Errorf("endpoint %v", ep)
			}
			// No token file: Prometheus Operators that forbid file access
			// from ServiceMonitors (OpenShift's) refuse it.
			if _, ok := ep["bearerTokenFile"]; ok {
				t.Errorf("endpoint %v reads a token file", ep)
			}
			cred, _, _ := unstructured.NestedMap(ep, "authorization", "credentials")
			secret := find(objs, "Secret", fmt.Sprint(cred["name"]))
			if secret == nil || cred["key"] != "token" || secret.Object["type"] != "kubernetes.io/service-account-token" {
				t.Fatalf("authorization credentials %v: no ServiceAccount token Secret of that name", cred)
			}
			sa := secret.GetAnnotations()["kubernetes.io/service-account.name"]
			if find(objs, "ServiceAccount", sa) == nil {
				t.Errorf("the token Secret's ServiceAccount %q is not installed", sa)
			}
			scraper := field(t, objs, "ClusterRoleBinding", "ogx-controller-metrics-scraper", "subjects").([]any)
			if d := cmp.Diff([]any{map[string]any{"kind": "ServiceAccount", "name": sa, "namespace": operatorNS}}, scraper); d != "" {
				t.Errorf("scraper binding subjects (-want +got):\n%s", d)
			}
			if ref := field(t, objs, "ClusterRoleBinding", "ogx-controller-metrics-scraper", "roleRef", "name"); ref != "ogx-controller-metrics-reader" {
				t.Errorf("the scraper is bound to %v", ref)
			}
			// The ServiceMonitor selects the metrics Service and not the webhook's.
			sel := field(t, objs, "ServiceMonitor", "ogx-controller", "spec", "selector", "matchLabels").(map[string]any)
			for _, s := range []struct {
				name string
				want bool
			}{{deploy + "-metrics-service", true}, {webhookSv, false}} {
				labels := find(objs, "Service", s.name).GetLabels()
				match := true
				for k, v := range sel {
					match = match && labels[k] == v
				}
				if match != s.want {
					t.Errorf("ServiceMonitor selects Service %s: %v, want %v", s.name, match, s.want)
				}
			}
			subj := field(t, objs, "ClusterRoleBinding", "ogx-controller-metrics-reader", "subjects").([]any)
			if d := cmp.Diff([]any{map[string]any{"kind": "ServiceAccount", "name": "prometheus-k8s", "namespace": "monitoring"}}, subj); d != "" {
				t.Errorf("metrics reader subjects (-want +got):\n%s", d)
			}
			if find(objs, "PrometheusRule", "ogx-controller") != nil || find(objs, "ConfigMap", "ogx-controller-dashboard") != nil {
				t.Error("rules or dashboard without being enabled")
			}
		},
	}, {
		name: "dashboard with another sidecar label and namespace; rules with labels",
		vals: map[string]any{"metrics": map[string]any{"enabled": true,
			"serviceMonitor": map[string]any{"enabled": true},
			"prometheusRule": map[string]any{"enabled": true, "labels": map[string]any{"role": "alert-rules"}},
			"dashboard": map[string]any{"enabled": true, "labels": map[string]any{"grafana": "ogx", "grafana_dashboard": nil}, "namespace": "grafana",
				"annotations": map[string]any{"grafana_folder": "Operators"}}}},
		check: func(t *testing.T, objs []*unstructured.Unstructured) {
			cm := find(objs, "ConfigMap", "ogx-controller-dashboard")
			if cm == nil || cm.GetNamespace() != "grafana" || cm.GetLabels()["grafana"] != "ogx" || cm.GetAnnotations()["grafana_folder"] != "Operators" {
				t.Fatalf("dashboard ConfigMap %v", cm)
			}
			if _, ok := cm.GetLabels()["grafana_dashboard"]; ok {
				t.Error("the default sidecar label is kept although set to null")
			}
			if l := find(objs, "PrometheusRule", "ogx-controller").GetLabels(); l["role"] != "alert-rules" {
				t.Errorf("PrometheusRule labels %v", l)
			}
		},
	}, {
		name: "the release name is the instance label of every object and selector",
		vals: nil,
		check: func(t *testing.T, _ []*unstructured.Unstructured) {
			objs, hooks, err := RenderRelease(ch, "ogx-b", map[string]any{"topologySpreadConstraints": []any{
				map[string]any{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "ScheduleAnyway"}}}, operatorNS)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]any{"app.kubernetes.io/name": "ogx-controller", "app.kubernetes.io/instance": "ogx-b"}
			for _, u := range append(objs, hooks...) {
				// The helm test Pod has a name of its own, so that no selector
				// of the operator's pods matches it (TestTestHook).
				name := "ogx-controller"
				if u.GetKind() == "Pod" && u.GetAnnotations()[HookAnnotation] == "test" {
					name = "ogx-controller-test"
				}
				if l := u.GetLabels(); l["app.kubernetes.io/instance"] != "ogx-b" || l["app.kubernetes.io/name"] != name || l["app.kubernetes.io/version"] != ch.Metadata.AppVersion {
					t.Errorf("%s labels %v", Key(u), l)
				}
			}
			pod := field(t, objs, "Deployment", deploy, "spec", "template", "spec").(map[string]any)
			for _, sel := range []struct {
				what string
				got  any
			}{
				{"Deployment selector", field(t, objs, "Deployment", deploy, "spec", "selector", "matchLabels")},
				{"pod labels", field(t, objs, "Deployment", deploy, "spec", "template", "metadata", "labels")},
				{"metrics Service selector", field(t, objs, "Service", deploy+"-metrics-service", "spec", "selector")},
				{"webhook Service selector", field(t, objs, "Service", webhookSv, "spec", "selector")},
				{"PDB selector", field(t, objs, "PodDisruptionBudget", deploy, "spec", "selector", "matchLabels")},
				{"NetworkPolicy podSelector", field(t, objs, "NetworkPolicy", deploy, "spec", "podSelector", "matchLabels")},
				{"anti-affinity", pod["affinity"].(map[string]any)["podAntiAffinity"].(map[string]any)["preferredDuringSchedulingIgnoredDuringExecution"].([]any)[0].(map[string]any)["podAffinityTerm"].(map[string]any)["labelSelector"].(map[string]any)["matchLabels"]},
				{"topology spread", pod["topologySpreadConstraints"].([]any)[0].(map[string]any)["labelSelector"].(map[string]any)["matchLabels"]},
			} {
				if d := cmp.Diff(want, sel.got); d != "" {
					t.Errorf("%s (-want +got):\n%s", sel.what, d)
				}
			}
		},
	}, {
		name: "extra env, volumes and mounts; ServiceAccount annotations; pod labels",
		vals: map[string]any{
			"extraArgs":         []any{"--registry-ca-file=/etc/ogx-controller/registry-ca/ca.crt"},
			"extraEnv":          []any{map[string]any{"name": "HTTPS_PROXY", "value": "http://proxy.example:3128"}},
			"extraVolumes":      []any{map[string]any{"name": "registry-ca", "configMap": map[string]any{"name": "registry-ca"}}},
			"extraVolumeMounts": []any{map[string]any{"name": "registry-ca", "mountPath": "/etc/ogx-controller/registry-ca", "readOnly": true}},
			"serviceAccount":    map[string]any{"annotations": map[string]any{"eks.amazonaws.com/role-arn": "arn:aws:iam::1:role/ogx"}},
			"podLabels":         map[string]any{"team": "ml"},
		},
		check: func(t *testing.T, objs []*unstructured.Unstructured) {
			m := manager(t, objs)
			env := m["env"].([]any)
			if d := cmp.Diff(map[string]any{"name": "HTTPS_PROXY", "value": "http://proxy.example:3128"}, env[len(env)-1]); d != "" || len(env) != 3 {
				t.Errorf("env %v: want the two of the chart, then HTTPS_PROXY", env)
			}
			mounts := m["volumeMounts"].([]any)
			if len(mounts) != 2 || mounts[1].(map[string]any)["name"] != "registry-ca" {
				t.Errorf("volumeMounts %v", mounts)
			}
			vols := field(t, objs, "Deployment", deploy, "spec", "template", "spec", "volumes").([]any)
			if len(vols) != 2 || vols[1].(map[string]any)["name"] != "registry-ca" {
				t.Errorf("volumes %v", vols)
			}
			if a := find(objs, "ServiceAccount", deploy).GetAnnotations(); a["eks.amazonaws.com/role-arn"] != "arn:aws:iam::1:role/ogx" {
				t.Errorf("ServiceAccount annotations %v", a)
			}
			labels := field(t, objs, "Deployment", deploy, "spec", "template", "metadata", "labels").(map[string]any)
			if labels["team"] != "ml" || labels["app.kubernetes.io/instance"] != ReleaseName {
				t.Errorf("pod labels %v", labels)
			}
		},
	}, {
		name: "extra volumes with admission off",
		vals: map[string]any{"admission": map[string]any{"enabled": false, "certificate": map[string]any{"mode": "self"}},
			"extraVolumes":      []any{map[string]any{"name": "registry-ca", "configMap": map[string]any{"name": "registry-ca"}}},
			"extraVolumeMounts": []any{map[string]any{"name": "registry-ca", "mountPath": "/ca"}}},
		check: func(t *testing.T, objs []*unstructured.Unstructured) {
			if d := cmp.Diff([]any{map[string]any{"name": "registry-ca", "mountPath": "/ca"}}, manager(t, objs)["volumeMounts"]); d != "" {
				t.Errorf("volumeMounts (-want +got):\n%s", d)
			}
			if vols := field(t, objs, "Deployment", deploy, "spec", "template", "spec", "volumes").([]any); len(vols) != 1 {
				t.Errorf("volumes %v", vols)
			}
		},
	}, {
		name: "hard anti-affinity preset",
		vals: map[string]any{"podAntiAffinityPreset": "hard"},
		check: func(t *testing.T, objs []*unstructured.Unstructured) {
			aa := field(t, objs, "Deployment", deploy, "spec", "template", "spec", "affinity", "podAntiAffinity").(map[string]any)
			want := map[string]any{"requiredDuringSchedulingIgnoredDuringExecution": []any{map[string]any{
				"topologyKey":   "kubernetes.io/hostname",
				"labelSelector": map[string]any{"matchLabels": map[string]any{"app.kubernetes.io/name": "ogx-controller", "app.kubernetes.io/instance": ReleaseName}}}}}
			if d := cmp.Diff(want, aa); d != "" {
				t.Errorf("podAntiAffinity (-want +got):\n%s", d)
			}
		},
	}, {
		name: "no anti-affinity preset, or a podAntiAffinity of one's own",
		vals: map[string]any{"podAntiAffinityPreset": ""},
		check: func(t *testing.T, objs []*unstructured.Unstructured) {
			if a := field(t, objs, "Deployment", deploy, "spec", "template", "spec", "affinity"); a != nil {
				t.Errorf("affinity %v without a preset", a)
			}
			own := map[string]any{"requiredDuringSchedulingIgnoredDuringExecution": []any{map[string]any{
				"topologyKey": "topology.kubernetes.io/zone", "labelSelector": map[string]any{"matchLabels": map[string]any{"x": "y"}}}}}
			objs = render(t, ch, map[string]any{"affinity": map[string]any{"podAntiAffinity": own}})
			if d := cmp.Diff(own, field(t, objs, "Deployment", deploy, "spec", "template", "spec", "affinity", "podAntiAffinity")); d != "" {
				t.Errorf("podAntiAffinity (-own +got):\n%s", d)
			}
		},
	}, {
		name: "placement, image digest, pull secrets and extra args",
		vals: map[string]any{
			"nodeSelector":      map[string]any{"node-role.kubernetes.io/infra": ""},
			"tolerations":       []any{map[string]any{"key": "infra", "operator": "Exists", "effect": "NoSchedule"}},
			"affinity":          map[string]any{"nodeAffinity": map[string]any{"requiredDuringSchedulingIgnoredDuringExecution": map[string]any{"nodeSelectorTerms": []any{map[string]any{"matchExpressions": []any{map[string]any{"key": "zone", "operator": "In", "values": []any{"a"}}}}}}}},
			"priorityClassName": "system-cluster-critical",
			"image":             map[string]any{"repository": "registry.example/ogx", "digest": "sha256:" + strings.Repeat("a", 64), "pullPolicy": "IfNotPresent"},
			"imagePullSecrets":  []any{"regcred"},
			"extraArgs":         []any{"-v=2", "--workers=4"},
			"podAnnotations":    map[string]any{"team": "ml"},
		},
		check: func(t *testing.T, objs []*unstructured.Unstructured) {
			spec := field(t, objs, "Deployment", deploy, "spec", "template", "spec").(map[string]any)
			if d := cmp.Diff(map[string]any{"node-role.kubernetes.io/infra": ""}, spec["nodeSelector"]); d != "" {
				t.Errorf("nodeSelector: %s", d)
			}
			if spec["priorityClassName"] != "system-cluster-critical" {
				t.Errorf("priorityClassName %v", spec["priorityClassName"])
			}
			if len(spec["tolerations"].([]any)) != 1 {
				t.Errorf("tolerations %v", spec["tolerations"])
			}
			aff := spec["affinity"].(map[string]any)
			if aff["nodeAffinity"] == nil || aff["podAntiAffinity"] == nil {
				t.Errorf("affinity %v: want the given nodeAffinity next to the preset's spreading", aff)
			}
			if d := cmp.Diff([]any{map[string]any{"name": "regcred"}}, spec["imagePullSecrets"]); d != "" {
				t.Errorf("imagePullSecrets: %s", d)
			}
			m := manager(t, objs)
			if m["image"] != "registry.example/ogx@sha256:"+strings.Repeat("a", 64) || m["imagePullPolicy"] != "IfNotPresent" {
				t.Errorf("image %v %v", m["image"], m["imagePullPolicy"])
			}
			a := args(t, objs)
			if !slices.Equal(a[len(a)-2:], []string{"-v=2", "--workers=4"}) {
				t.Errorf("args %v do not end with the extra args", a)
			}
			if ann := field(t, objs, "Deployment", deploy, "spec", "template", "metadata", "annotations"); cmp.Diff(map[string]any{"team": "ml"}, ann) != "" {
				t.Errorf("pod annotations %v", ann)
			}
		},
	}, {
		name: "cluster domain reaches the flag and the certificate",
		vals: map[string]any{"clusterDomain": "corp.internal", "admission": map[string]any{"certificate": map[string]any{"mode": "cert-manager"}}},
		check: func(t *testing.T, objs []*unstructured.Unstructured) {
			if !slices.Contains(args(t, objs), "--cluster-domain=corp.internal") {
				t.Errorf("args %v", args(t, objs))
			}
			names := field(t, objs, "Certificate", "ogx-controller-webhook", "spec", "dnsNames").([]any)
			if !slices.Contains(names, any(webhookSv+".ogx-system.svc.corp.internal")) {
				t.Errorf("dnsNames %v", names)
			}
		},
	}, {
		name: "network policy off",
		vals: map[string]any{"networkPolicy": map[string]any{"enabled": false}},
		check: func(t *testing.T, objs []*unstructured.Unstructured) {
			if find(objs, "NetworkPolicy", deploy) != nil {
				t.Error("NetworkPolicy with networkPolicy.enabled=false")
			}
		},
	}, {
		name: "network policy without metrics admits only the webhook",
		vals: map[string]any{"metrics": map[string]any{"enabled": false}},
		check: func(t *testing.T, objs []*unstructured.Unstructured) {
			want := []any{map[string]any{"ports": []any{map[string]any{"port": float64(9443), "protocol": "TCP"}}}}
			if d := cmp.Diff(want, field(t, objs, "NetworkPolicy", deploy, "spec", "ingress")); d != "" {
				t.Errorf("ingress without metrics (-want +got):\n%s", d)
			}
		},
	}, {
		name: "network policy with metrics open to any source and no webhook",
		vals: map[string]any{"admission": map[string]any{"enabled": false}, "networkPolicy": map[string]any{"enabled": true, "metricsFrom": []any{}}},
		check: func(t *testing.T, objs []*unstructured.Unstructured) {
			want := []any{map[string]any{"ports": []any{map[string]any{"port": float64(8443), "protocol": "TCP"}}}}
			if d := cmp.Diff(want, field(t, objs, "NetworkPolicy", deploy, "spec", "ingress")); d != "" {
				t.Errorf("ingress (-want +got):\n%s", d)
			}
		},
	}, {
		name: "network policy with no listener admits nothing",
		vals: map[string]any{"admission": map[string]any{"enabled": false}, "metrics": map[string]any{"enabled": false}},
		check: func(t *testing.T, objs []*unstructured.Unstructured) {
			if got := field(t, objs, "NetworkPolicy", deploy, "spec", "ingress"); cmp.Diff([]any{}, got) != "" {
				t.Errorf("ingress %v, want []", got)
			}
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.check(t, render(t, ch, tc.vals))
		})
	}
}

// checkExternal: in an external certificate mode the controller reads the
// pair from secret and holds no rights on certificates or the webhook
// configuration.
func checkExternal(t *testing.T, objs []*unstructured.Unstructured, secret string) {
	t.Helper()
	if !slices.Contains(args(t, objs), "--admission-cert-management=external") {
		t.Errorf("args %v lack --admission-cert-management=external", args(t, objs))
	}
	vols := field(t, objs, "Deployment", deploy, "spec", "template", "spec", "volumes").([]any)
	if d := cmp.Diff([]any{map[string]any{"name": "admission-tls", "secret": map[string]any{"secretName": secret}}}, vols); d != "" {
		t.Errorf("volumes (-want +got):\n%s", d)
	}
	if find(objs, "Role", "ogx-controller-webhook-certs") != nil {
		t.Error("webhook-certs Role in an external certificate mode")
	}
	if hasRule(t, objs, "admissionregistration.k8s.io", "validatingwebhookconfigurations") {
		t.Error("webhook configuration rule in an external certificate mode")
	}
}

// TestSchemaRejects: bad values fail the install with a message naming the
// value and, for cross-field rules, the fix.
func TestSchemaRejects(t *testing.T) {
	ch, _ := loadChart(t)
	tests := []struct {
		name string
		vals map[string]any
		ns   string
		want []string
	}{
		{"misspelled key", map[string]any{"replica": 3}, "", []string{"replica"}},
		{"zero replicas", map[string]any{"replicas": 0}, "", []string{"/replicas", "minimum"}},
		{"replicas as a string", map[string]any{"replicas": "two"}, "", []string{"/replicas"}},
		{"unknown certificate mode", map[string]any{"admission": map[string]any{"certificate": map[string]any{"mode": "vault"}}}, "",
			[]string{"/admission/certificate/mode", "self", "cert-manager", "openshift"}},
		{"bad watch namespace", map[string]any{"watchNamespaces": []any{"Team_A"}}, "", []string{"/watchNamespaces/0"}},
		{"duplicate watch namespace", map[string]any{"watchNamespaces": []any{"a", "a"}}, "", []string{"/watchNamespaces"}},
		{"bad digest", map[string]any{"image": map[string]any{"repository": "r", "digest": "sha256:xyz"}}, "", []string{"/image/digest"}},
		{"neither tag nor digest", map[string]any{"image": map[string]any{"repository": "r", "tag": ""}}, "", []string{"image: set image.tag or image.digest"}},
		{"extra arg not a flag", map[string]any{"extraArgs": []any{"run"}}, "", []string{"/extraArgs/0"}},
		{"bad duration", map[string]any{"leaderElection": map[string]any{"enabled": true, "leaseDuration": "15 seconds"}}, "", []string{"/leaderElection/leaseDuration"}},
		{"aggregateToDefaultRoles as a string", map[string]any{"rbac": map[string]any{"aggregateToDefaultRoles": "no"}}, "", []string{"/rbac/aggregateToDefaultRoles"}},
		{"misspelled rbac key", map[string]any{"rbac": map[string]any{"aggregate": false}}, "", []string{"aggregate"}},
		{"bad failure policy", map[string]any{"admission": map[string]any{"failurePolicy": "Maybe"}}, "", []string{"/admission/failurePolicy"}},
		{"issuerRef without a name", map[string]any{"admission": map[string]any{"certificate": map[string]any{"mode": "cert-manager", "certManager": map[string]any{"issuerRef": map[string]any{"kind": "ClusterIssuer"}}}}}, "", []string{"admission.certificate.certManager.issuerRef.name: required"}},
		{"two replicas without leader election", map[string]any{"leaderElection": map[string]any{"enabled": false}}, "",
			[]string{"replicas: 2 replicas need leaderElection.enabled=true"}},
		{"PDB that blocks drains", map[string]any{"podDisruptionBudget": map[string]any{"enabled": true, "minAvailable": 2}}, "",
			[]string{"podDisruptionBudget.minAvailable: 2 with 2 replicas", "set it below replicas"}},
		{"ServiceMonitor without metrics", map[string]any{"metrics": map[string]any{"enabled": false, "serviceMonitor": map[string]any{"enabled": true}}}, "",
			[]string{"metrics.serviceMonitor.enabled", "metrics.enabled=true"}},
		{"any UID for every namespace editor", map[string]any{"serverAnyUID": true}, "",
			[]string{"serverAnyUID", "rbac.aggregateToDefaultRoles=false"}},
		{"chart-owned release namespace", map[string]any{"namespace": map[string]any{"create": true}}, "ogx-system",
			[]string{"namespace.create", "release namespace", "operatorNamespace"}},
		{"extra env without a name", map[string]any{"extraEnv": []any{map[string]any{"value": "x"}}}, "", []string{"/extraEnv/0"}},
		{"misspelled volume mount key", map[string]any{"extraVolumeMounts": []any{map[string]any{"name": "ca", "mountpath": "/ca"}}}, "", []string{"/extraVolumeMounts/0"}},
		{"volume without a source", map[string]any{"extraVolumes": []any{map[string]any{"name": "ca"}}}, "", []string{"/extraVolumes/0"}},
		{"pod label overriding the selector", map[string]any{"podLabels": map[string]any{"app.kubernetes.io/instance": "x"}}, "", []string{"/podLabels"}},
		{"unknown anti-affinity preset", map[string]any{"podAntiAffinityPreset": "spread"}, "", []string{"/podAntiAffinityPreset"}},
		{"misspelled topology spread key", map[string]any{"topologySpreadConstraints": []any{map[string]any{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway", "labelSelectors": map[string]any{}}}}, "",
			[]string{"/topologySpreadConstraints/0"}},
		{"misspelled ServiceAccount key", map[string]any{"serviceAccount": map[string]any{"annotation": map[string]any{}}}, "", []string{"/serviceAccount"}},
		{"misspelled dashboard key", map[string]any{"metrics": map[string]any{"enabled": true, "dashboard": map[string]any{"enabled": true, "label": map[string]any{}}}}, "", []string{"/metrics/dashboard"}},
		{"bad test timeout", map[string]any{"tests": map[string]any{"timeout": "soon"}}, "", []string{"/tests/timeout"}},
		{"network policy peer of no known kind", map[string]any{"networkPolicy": map[string]any{"enabled": true, "metricsFrom": []any{map[string]any{"namespace": "monitoring"}}}}, "",
			[]string{"/networkPolicy/metricsFrom/0"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ns := tc.ns
			if ns == "" {
				ns = "default"
			}
			_, err := Render(ch, tc.vals, ns)
			if err == nil {
				t.Fatalf("values %v were accepted", tc.vals)
			}
			t.Logf("rejected: %v", err)
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

// TestTestHook: the `helm test` objects are hooks only (helm install leaves
// them out), the Pod runs the controller's image's check-admission in the
// operator namespace as a ServiceAccount that may only create OGXServers
// there, within the restricted Pod Security Standard (test/chart/e2e runs
// it in a namespace enforcing it), and tests.* change what they say.
func TestTestHook(t *testing.T) {
	ch, _ := loadChart(t)
	hooks, err := Hooks(ch, nil, operatorNS)
	if err != nil {
		t.Fatal(err)
	}
	name := ReleaseName + "-test-admission"
	var kinds []string
	for _, h := range hooks {
		kinds = append(kinds, h.GetKind()+"/"+h.GetName())
		if h.GetAnnotations()[HookAnnotation] != "test" || h.GetNamespace() != operatorNS {
			t.Errorf("%s: hook %q in %q, want a test hook in %s", Key(h), h.GetAnnotations()[HookAnnotation], h.GetNamespace(), operatorNS)
		}
	}
	want := []string{"ServiceAccount/" + name, "Role/" + name, "RoleBinding/" + name, "Pod/" + name}
	if d := cmp.Diff(want, kinds); d != "" {
		t.Fatalf("hooks (-want +got):\n%s", d)
	}
	rules := field(t, hooks, "Role", name, "rules")
	if d := cmp.Diff([]any{map[string]any{"apiGroups": []any{"ogx.io"}, "resources": []any{"ogxservers"}, "verbs": []any{"create"}}}, rules); d != "" {
		t.Errorf("the test Role grants more or other than create on OGXServers (-want +got):\n%s", d)
	}
	pod := field(t, hooks, "Pod", name, "spec").(map[string]any)
	if pod["serviceAccountName"] != name || pod["restartPolicy"] != "Never" {
		t.Errorf("Pod serviceAccountName %v restartPolicy %v", pod["serviceAccountName"], pod["restartPolicy"])
	}
	wantPodSC := map[string]any{"runAsNonRoot": true, "runAsUser": float64(65532), "seccompProfile": map[string]any{"type": "RuntimeDefault"}}
	if d := cmp.Diff(wantPodSC, pod["securityContext"]); d != "" {
		t.Errorf("pod securityContext (-want +got):\n%s", d)
	}
	// No selector of the operator's pods may pick the test Pod up: the
	// webhook Service would route admission calls to it.
	testLabels := labels.Set{}
	for k, v := range field(t, hooks, "Pod", name, "metadata", "labels").(map[string]any) {
		testLabels[k] = v.(string)
	}
	for _, o := range render(t, ch, nil) {
		for _, path := range [][]string{{"spec", "selector"}, {"spec", "selector", "matchLabels"}, {"spec", "podSelector", "matchLabels"}} {
			sel, found, _ := unstructured.NestedStringMap(o.Object, path...)
			if found && len(sel) > 0 && labels.SelectorFromSet(sel).Matches(testLabels) {
				t.Errorf("%s selects the helm test Pod (labels %v)", Key(o), testLabels)
			}
		}
	}
	c := pod["containers"].([]any)[0].(map[string]any)
	wantSC := map[string]any{"allowPrivilegeEscalation": false, "capabilities": map[string]any{"drop": []any{"ALL"}},
		"readOnlyRootFilesystem": true, "runAsNonRoot": true}
	if d := cmp.Diff(wantSC, c["securityContext"]); d != "" {
		t.Errorf("container securityContext (-want +got):\n%s", d)
	}
	if c["image"] != manager(t, render(t, ch, nil))["image"] {
		t.Errorf("test image %v, want the controller's", c["image"])
	}
	wantArgs := []any{"check-admission", "--namespace=" + operatorNS, "--timeout=60s"}
	if d := cmp.Diff(wantArgs, c["args"]); d != "" || c["command"] != nil {
		t.Errorf("test command %v args (-want +got):\n%s", c["command"], d)
	}

	hooks, err = Hooks(ch, map[string]any{"tests": map[string]any{"image": "registry.example/kubectl:1", "timeout": "2m"}}, operatorNS)
	if err != nil {
		t.Fatal(err)
	}
	c = field(t, hooks, "Pod", name, "spec", "containers").([]any)[0].(map[string]any)
	if c["image"] != "registry.example/kubectl:1" || !slices.Contains(c["args"].([]any), any("--timeout=2m")) {
		t.Errorf("tests.image and tests.timeout: image %v args %v", c["image"], c["args"])
	}
	for _, vals := range []map[string]any{
		{"tests": map[string]any{"enabled": false}},
		{"admission": map[string]any{"enabled": false, "certificate": map[string]any{"mode": "self"}}},
	} {
		if hooks, err := Hooks(ch, vals, operatorNS); err != nil || len(hooks) != 0 {
			t.Errorf("with %v: %d hooks, %v; want none", vals, len(hooks), err)
		}
	}
}
