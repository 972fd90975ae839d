package e2e

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/generated/clientset/versioned"
	"github.com/ogx-k8s/ogx-controller/test/framework"
)

// TestAggregatedRoles installs the shipped aggregated ClusterRoles
// (config/rbac/aggregate_roles.yaml) and lets kube-controller-manager's
// aggregation controller fold them into the built-in roles: a user bound
// to edit in one namespace may create and scale OGXServers there and not in
// another namespace, and a user bound to view may read them but neither
// create nor scale them (docs/security.md, Aggregated roles).
func TestAggregatedRoles(t *testing.T) {
	kube, admin := clients(t)
	ctx := t.Context()
	b, err := os.ReadFile(filepath.Join(root, "config", "rbac", "aggregate_roles.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range strings.Split(string(b), "\n---\n") {
		var role rbacv1.ClusterRole
		if err := yaml.UnmarshalStrict([]byte(doc), &role); err != nil {
			t.Fatalf("decoding aggregate_roles.yaml: %v", err)
		}
		if _, err := kube.RbacV1().ClusterRoles().Create(ctx, &role, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = kube.RbacV1().ClusterRoles().Delete(context.Background(), role.Name, metav1.DeleteOptions{})
		})
	}
	// The built-in roles carry the rules once aggregated (admin takes in
	// edit's, edit view's).
	for _, want := range []struct{ role, verb string }{{"view", "get"}, {"edit", "create"}, {"admin", "create"}, {"admin", "get"}} {
		framework.Poll(t, time.Minute, "ClusterRole "+want.role+" to "+want.verb+" ogxservers", func(ctx context.Context) (bool, error) {
			r, err := kube.RbacV1().ClusterRoles().Get(ctx, want.role, metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			return slices.ContainsFunc(r.Rules, func(p rbacv1.PolicyRule) bool {
				return slices.Contains(p.APIGroups, ogxv1beta1.GroupName) && slices.Contains(p.Resources, "ogxservers") && slices.Contains(p.Verbs, want.verb)
			}), nil
		})
	}

	mine := cp.CreateNamespace(t, "aggr-mine")
	other := cp.CreateNamespace(t, "aggr-other")
	bind := func(user, role string) {
		rb := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: user, Namespace: mine},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
			Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}}}
		if _, err := kube.RbacV1().RoleBindings(mine).Create(ctx, rb, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	bind("ogx-editor", "edit")
	bind("ogx-viewer", "view")
	as := func(user string) versioned.Interface {
		cfg := quietConfig()
		cfg.Impersonate = rest.ImpersonationConfig{UserName: user}
		return versioned.NewForConfigOrDie(cfg)
	}
	editor, viewer := as("ogx-editor"), as("ogx-viewer")
	server := func(ns string) *ogxv1beta1.OGXServer {
		s := newServer(ns, "team")
		s.Spec.Workload = &ogxv1beta1.WorkloadSpec{Replicas: ptr.To[int32](1)}
		return s
	}
	scaleTo := func(c versioned.Interface, ns string, n int32) error {
		_, err := c.OgxV1beta1().OGXServers(ns).UpdateScale(ctx, "team", &autoscalingv1.Scale{
			ObjectMeta: metav1.ObjectMeta{Name: "team", Namespace: ns}, Spec: autoscalingv1.ScaleSpec{Replicas: n}}, metav1.UpdateOptions{})
		return err
	}

	// edit in its namespace: create, read the scale, scale.
	if _, err := editor.OgxV1beta1().OGXServers(mine).Create(ctx, server(mine), metav1.CreateOptions{}); err != nil {
		t.Fatalf("editor creating in %s: %v", mine, err)
	}
	if _, err := editor.OgxV1beta1().OGXServers(mine).GetScale(ctx, "team", metav1.GetOptions{}); err != nil {
		t.Errorf("editor reading the scale in %s: %v", mine, err)
	}
	if err := scaleTo(editor, mine, 2); err != nil {
		t.Errorf("editor scaling in %s: %v", mine, err)
	}
	// Not in another namespace.
	if _, err := editor.OgxV1beta1().OGXServers(other).Create(ctx, server(other), metav1.CreateOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("editor creating in %s: %v, want forbidden", other, err)
	}
	if _, err := admin.OgxV1beta1().OGXServers(other).Create(ctx, server(other), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := scaleTo(editor, other, 2); !apierrors.IsForbidden(err) {
		t.Errorf("editor scaling in %s: %v, want forbidden", other, err)
	}

	// view: read, and nothing more.
	if s, err := viewer.OgxV1beta1().OGXServers(mine).Get(ctx, "team", metav1.GetOptions{}); err != nil {
		t.Errorf("viewer reading in %s: %v", mine, err)
	} else if got := *s.Spec.Workload.Replicas; got != 2 {
		t.Errorf("viewer sees replicas %d, want the editor's 2", got)
	}
	if _, err := viewer.OgxV1beta1().OGXServers(mine).List(ctx, metav1.ListOptions{}); err != nil {
		t.Errorf("viewer listing in %s: %v", mine, err)
	}
	s := server(mine)
	s.Name = "viewers"
	if _, err := viewer.OgxV1beta1().OGXServers(mine).Create(ctx, s, metav1.CreateOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("viewer creating in %s: %v, want forbidden", mine, err)
	}
	if err := scaleTo(viewer, mine, 3); !apierrors.IsForbidden(err) {
		t.Errorf("viewer scaling in %s: %v, want forbidden", mine, err)
	}
	if _, err := viewer.OgxV1beta1().OGXServers(other).Get(ctx, "team", metav1.GetOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("viewer reading in %s: %v, want forbidden", other, err)
	}
}
