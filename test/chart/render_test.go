package chart

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"helm.sh/helm/v3/pkg/chart"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

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

// render renders with vals into the namespace `helm install` uses when none
// is given, failing the test on error.
func render(t *testing.T, ch *chart.Chart, vals map[string]any) []*unstructured.Unstructured {
	t.Helper()
	objs, err := Render(ch, vals, "default")
	if err != nil {
		t.Fatalf("rendering with %v: %v", vals, err)
	}
	return objs
}

// TestDefaultsMatchRelease: the chart with default values, CRDs included,
// installs exactly the objects of release/ogx-controller.yaml (rendered by
// kustomize from config/default), compared field by field after parsing, so
// the two install paths cannot drift.
func TestDefaultsMatchRelease(t *testing.T) {
	ch, root := loadChart(t)
	want, err := ReadRelease(root)
	if err != nil {
		t.Fatal(err)
	}
	got := render(t, ch, nil)
	crds, err := CRDs(ch)
	if err != nil {
		t.Fatal(err)
	}
	got = append(crds, got...)

	compareSets(t, "release/ogx-controller.yaml", want, got)
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
		vals: map[string]any{"operatorNamespace": "ogx-ops"},
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
		name: "empty operator namespace means the release namespace",
		vals: map[string]any{"operatorNamespace": "", "namespace": map[string]any{"create": false}},
		check: func(t *testing.T, objs []*unstructured.Unstructured) {
			if ns := find(objs, "Deployment", deploy).GetNamespace(); ns != "default" {
				t.Errorf("Deployment in %q, want the release namespace default", ns)
			}
			if find(objs, "Namespace", "default") != nil {
				t.Error("a Namespace object with namespace.create=false")
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
		vals: map[string]any{"serverAnyUID": true},
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
		vals: map[string]any{"serverAnyUID": true, "watchNamespaces": []any{"team-a", "team-b"},
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
		name: "ServiceMonitor and metrics readers",
		vals: map[string]any{"metrics": map[string]any{"enabled": true,
			"readerServiceAccounts": []any{map[string]any{"name": "prometheus-k8s", "namespace": "monitoring"}},
			"serviceMonitor":        map[string]any{"enabled": true, "labels": map[string]any{"release": "prom"}, "interval": "1m"}}},
		check: func(t *testing.T, objs []*unstructured.Unstructured) {
			sm := find(objs, "ServiceMonitor", deploy+"-metrics")
			if sm == nil || sm.GetAPIVersion() != "monitoring.coreos.com/v1" {
				t.Fatalf("ServiceMonitor %v", sm)
			}
			if sm.GetLabels()["release"] != "prom" {
				t.Errorf("labels %v", sm.GetLabels())
			}
			ep := field(t, objs, "ServiceMonitor", deploy+"-metrics", "spec", "endpoints").([]any)[0].(map[string]any)
			if ep["port"] != "https" || ep["interval"] != "1m" || ep["scheme"] != "https" {
				t.Errorf("endpoint %v", ep)
			}
			// The ServiceMonitor selects the metrics Service and not the webhook's.
			sel := field(t, objs, "ServiceMonitor", deploy+"-metrics", "spec", "selector", "matchLabels").(map[string]any)
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
				t.Errorf("affinity %v: want the given nodeAffinity merged with the default spreading", aff)
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
		{"chart-owned release namespace", nil, "ogx-system", []string{"namespace.create", "namespace.create=false"}},
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
