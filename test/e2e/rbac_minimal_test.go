package e2e

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/ogx-k8s/ogx-controller/test/framework/auditlog"
)

// rbacSANamespace holds the ServiceAccount TestShippedRBACIsEnough runs the
// controller as; rbacUser is its API user, which the audit policy records.
const (
	rbacSANamespace = "ogx-rbac-audit"
	rbacUser        = "system:serviceaccount:" + rbacSANamespace + ":ogx-controller"
)

// heldUnused returns the grants the RBAC scenario does not send, each with
// the reason the operator holds it anyway, keyed "verb group/resource". A
// grant missing here and unused by the scenario fails the test: that is
// how a widened rule is caught.
func heldUnused() map[string]string {
	const (
		// docs/security.md, RBAC by install mode.
		ownerRefs  = "an API server enforcing owner-reference permissions lets only whoever may delete an object change its ownerReferences (adoption, its release, takeover of orphans)"
		applyNew   = "a server-side apply that creates the child is authorised as create"
		readLive   = "a write refused with a conflict reads the name live: the label-filtered cache cannot show a foreign object"
		listBackup = "informers fall back to LIST where the API server does not serve streaming lists (the scenario's informers use WATCH)"
		monitoring = "the scenario has no Prometheus Operator API; TestMonitoring exercises these writes"
	)
	held := map[string]string{
		"delete /persistentvolumeclaims":                                     "the opt-in storage-adoption ClusterRole: storage adoption drops a PVC's legacy owner, " + ownerRefs,
		"delete /serviceaccounts":                                            ownerRefs,
		"delete /services":                                                   ownerRefs,
		"delete apps/deployments":                                            ownerRefs,
		"delete rbac.authorization.k8s.io/rolebindings":                      ownerRefs,
		"bind rbac.authorization.k8s.io/clusterroles":                        "bind is checked when the anyuid RoleBinding is written, never a request of its own",
		"update ogx.io/ogxservers/finalizers":                                "blockOwnerDeletion in a child's owner reference is checked against it, never a request of its own",
		"patch ogx.io/ogxservers":                                            "status field ownership is taken over from the upstream operator through the main resource",
		"list apps/replicasets":                                              "retention lists a server's ReplicaSets before deleting a third superseded config",
		"patch /secrets":                                                     "the webhook's serving certificate is renewed by patching its Secret, long after the scenario ends",
		"patch admissionregistration.k8s.io/validatingwebhookconfigurations": "the caBundle is patched into the webhook configuration, which the scenario does not install",
	}
	children := []string{"/configmaps", "/services", "/serviceaccounts", "apps/deployments", "autoscaling/horizontalpodautoscalers",
		"policy/poddisruptionbudgets", "networking.k8s.io/networkpolicies", "networking.k8s.io/ingresses",
		"rbac.authorization.k8s.io/rolebindings"}
	for _, r := range children {
		held["create "+r] = applyNew
		held["get "+r] = readLive
	}
	for _, r := range append(children, "/persistentvolumeclaims", "/secrets", "ogx.io/ogxservers", "apiextensions.k8s.io/customresourcedefinitions") {
		held["list "+r] = listBackup
	}
	for _, r := range []string{"monitoring.coreos.com/servicemonitors", "monitoring.coreos.com/prometheusrules"} {
		for _, v := range []string{"get", "list", "watch", "create", "patch", "delete"} {
			held[v+" "+r] = monitoring
		}
	}
	return held
}

// checkRulesUsed fails for every verb on a resource that rules grant and
// user never sent in the audit log, unless heldUnused says why it is held:
// the shipped RBAC is then no wider than what the code sends. It also fails
// for a heldUnused entry that no rule grants any more, so the list cannot
// outlive a rule.
func checkRulesUsed(t *testing.T, user string, rules ...[]rbacv1.PolicyRule) {
	t.Helper()
	used := map[string]bool{}
	err := auditlog.Each(cp.AuditLogPath(), auditlog.Options{Match: auditlog.ByUser(user)}, func(e *auditlog.Event) error {
		if e.ObjectRef != nil {
			used[e.Verb+" "+e.ObjectRef.APIGroup+"/"+e.Resource()] = true
		}
		return nil
	})
	if err != nil {
		t.Fatalf("reading the audit log: %v", err)
	}
	if len(used) == 0 {
		t.Fatalf("the audit log has no request of %s: is the user in the audit policy?", user)
	}
	granted := map[string]bool{}
	for _, rs := range rules {
		for _, r := range rs {
			for _, g := range r.APIGroups {
				for _, res := range r.Resources {
					for _, v := range r.Verbs {
						granted[fmt.Sprintf("%s %s/%s", v, g, res)] = true
					}
				}
			}
		}
	}
	held := heldUnused()
	for _, k := range slices.Sorted(maps.Keys(granted)) {
		if !used[k] && held[k] == "" {
			t.Errorf("the shipped RBAC grants %q, which the scenario never used: drop it, make the scenario use it, or list it in heldUnused with the reason", k)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(held)) {
		if !granted[k] {
			t.Errorf("heldUnused lists %q, which no shipped rule grants", k)
		}
	}
}
