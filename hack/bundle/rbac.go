package main

import (
	"fmt"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// selfCertRole is the Role that lets ogx-controller keep its own webhook
// certificates (--admission-cert-management=self). Under OLM the bundle's
// webhook definition has OLM issue the certificate and inject the caBundle,
// so the operator runs with external certificates and needs neither this
// Role nor write access to the webhook configuration.
const selfCertRole = "ogx-controller-webhook-certs"

// olmOwnedResources are the resources of the install's rules that OLM takes
// over in the bundle: the webhook configuration is OLM's (see selfCertRole).
var olmOwnedResources = map[string]bool{"validatingwebhookconfigurations": true}

// resourceScope says whether each resource that the install's RBAC names is
// namespaced. OLM grants a CSV's permissions in the operator's namespace and
// in every namespace of its OperatorGroup (cluster-wide for AllNamespaces),
// and its clusterPermissions cluster-wide, so namespaced rules go to
// permissions: with --watch-namespaces the operator is granted no more than
// the namespaces it manages. A resource missing here is an error, so a new
// rule in config/rbac is classified on purpose rather than by accident.
//
// clusterroles is namespaced on purpose: the only rule on it (in the opt-in
// any-UID ClusterRole) is bind on system:openshift:scc:anyuid, which the
// API server checks in the namespace of the RoleBinding being written, so
// a Role there would suffice.
var resourceScope = map[string]bool{
	"ogxservers": true, "ogxservers/status": true, "ogxservers/finalizers": true,
	"configmaps": true, "services": true, "serviceaccounts": true, "persistentvolumeclaims": true,
	"secrets": true, "pods": true, "deployments": true, "replicasets": true,
	"horizontalpodautoscalers": true, "poddisruptionbudgets": true,
	"networkpolicies": true, "ingresses": true, "rolebindings": true, "clusterroles": true,
	"servicemonitors": true, "prometheusrules": true, "events": true, "leases": true,
	"customresourcedefinitions": false, "tokenreviews": false, "subjectaccessreviews": false,
}

// splitRules sorts the rules of the roles bound to the operator's
// ServiceAccount into OLM's permissions (namespaced) and clusterPermissions.
func splitRules(rel *manifests, serviceAccount string) (namespaced, cluster []rbacv1.PolicyRule, err error) {
	for _, u := range rel.all("RoleBinding") {
		var rb rbacv1.RoleBinding
		if err := rel.get("RoleBinding", u.GetName(), &rb); err != nil {
			return nil, nil, err
		}
		if !bindsTo(rb.Subjects, serviceAccount) || rb.RoleRef.Name == selfCertRole || rb.RoleRef.Name == hashKeyRole {
			continue
		}
		if rb.RoleRef.Kind != "Role" {
			return nil, nil, fmt.Errorf("RoleBinding %s: binds %s %s; only Roles are supported in the bundle", rb.Name, rb.RoleRef.Kind, rb.RoleRef.Name)
		}
		var r rbacv1.Role
		if err := rel.get("Role", rb.RoleRef.Name, &r); err != nil {
			return nil, nil, err
		}
		namespaced = append(namespaced, r.Rules...)
	}
	for _, u := range rel.all("ClusterRoleBinding") {
		var crb rbacv1.ClusterRoleBinding
		if err := rel.get("ClusterRoleBinding", u.GetName(), &crb); err != nil {
			return nil, nil, err
		}
		if !bindsTo(crb.Subjects, serviceAccount) {
			continue
		}
		var cr rbacv1.ClusterRole
		if err := rel.get("ClusterRole", crb.RoleRef.Name, &cr); err != nil {
			return nil, nil, err
		}
		for _, rule := range cr.Rules {
			ns, drop, err := classify(rule)
			if err != nil {
				return nil, nil, fmt.Errorf("ClusterRole %s: %w", cr.Name, err)
			}
			switch {
			case drop:
			case ns:
				namespaced = append(namespaced, rule)
			default:
				cluster = append(cluster, rule)
			}
		}
	}
	if len(namespaced) == 0 || len(cluster) == 0 {
		return nil, nil, fmt.Errorf("no roles bound to ServiceAccount %s found in %s", serviceAccount, rel.file)
	}
	return namespaced, cluster, nil
}

// classify says whether rule names only namespaced resources, or only
// resources OLM owns in the bundle (drop).
func classify(rule rbacv1.PolicyRule) (namespaced, drop bool, err error) {
	if len(rule.NonResourceURLs) > 0 {
		return false, false, nil
	}
	var scopes, dropped int
	for _, r := range rule.Resources {
		if olmOwnedResources[r] {
			dropped++
			continue
		}
		ns, known := resourceScope[r]
		if !known {
			return false, false, fmt.Errorf("resource %q is in neither resourceScope nor olmOwnedResources of hack/bundle/rbac.go: add it to the one that fits", r)
		}
		if ns {
			scopes++
		}
	}
	kept := len(rule.Resources) - dropped
	switch {
	case kept == 0:
		return false, true, nil
	case dropped > 0:
		return false, false, fmt.Errorf("rule on %s mixes resources OLM owns with others: split it in config/rbac", strings.Join(rule.Resources, ","))
	case scopes != 0 && scopes != kept:
		return false, false, fmt.Errorf("rule on %s mixes namespaced and cluster-scoped resources: split it in config/rbac", strings.Join(rule.Resources, ","))
	}
	return scopes == kept, false, nil
}

func bindsTo(subjects []rbacv1.Subject, serviceAccount string) bool {
	for _, s := range subjects {
		if s.Kind == rbacv1.ServiceAccountKind && s.Name == serviceAccount {
			return true
		}
	}
	return false
}

// dropSubjectNamespaces removes the namespace of obj's (a RoleBinding's)
// subjects: a ServiceAccount subject without one is the account of the
// binding's own namespace, which in a bundle is the one OLM installs into.
func dropSubjectNamespaces(obj *unstructured.Unstructured) error {
	subjects, _, err := unstructured.NestedSlice(obj.Object, "subjects")
	if err != nil {
		return err
	}
	for _, s := range subjects {
		if m, ok := s.(map[string]any); ok {
			delete(m, "namespace")
		}
	}
	return unstructured.SetNestedSlice(obj.Object, subjects, "subjects")
}
