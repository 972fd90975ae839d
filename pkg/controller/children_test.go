package controller

// Unit tests of the per-kind child constructors (base/children.go) on the fake
// clientsets (fakeenv_test.go): each kind reads its own cache and writes
// through its own typed client.

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	clienttesting "k8s.io/client-go/testing"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/apply"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/controllertest"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

// childMeta is the metadata of a cached child named "c": labelled for the
// child caches and for the watched ConfigMap cache.
func childMeta() metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: "c", Namespace: sfNamespace, UID: "uid-c", Labels: map[string]string{
		render.LabelManagedBy: render.ManagedByValue, ogxv1beta1.WatchLabel: "true"}}
}

// checkChild runs every operation of one kind's child against the fakes
// and checks each one reached that kind's cache or resource.
func checkChild[O metav1.Object, AC any](t *testing.T, e *sfEnv, c *apply.Child[O, AC], kind, apiVersion string, gvr schema.GroupVersionResource) {
	t.Helper()
	if c.Kind != kind || c.APIVersion != apiVersion {
		t.Errorf("kind %s %s, want %s %s", c.Kind, c.APIVersion, kind, apiVersion)
	}
	if d := cmp.Diff([]string{"ogx-operator", "manager"}, c.Takeover); d != "" {
		t.Errorf("takeover managers (-want +got):\n%s", d)
	}
	if c.Journal != e.m.Events.Journal() {
		t.Errorf("%s writes are not journaled in the event sink's journal", kind)
	}

	got, err := c.Cached(sfNamespace, "c")
	if err != nil || got.Obj.GetName() != "c" || got.Obj.GetUID() != "uid-c" {
		t.Fatalf("cached c: %v, %v", got.Obj, err)
	}
	if _, err := c.Cached(sfNamespace, "absent"); !apierrors.IsNotFound(err) {
		t.Errorf("cached absent: want NotFound, got %v", err)
	}
	if e.kube.ClearActions(); len(e.kube.Actions()) != 0 {
		t.Fatal("actions not cleared")
	}

	ctx := e.ctx
	live, err := c.Live(ctx, sfNamespace, "c")
	if err != nil {
		t.Fatalf("live: %v", err)
	}
	ac, err := c.Extract(live)
	if err != nil {
		t.Fatalf("extract: %v", err)
	}
	c.SetResourceVersion(ac, "5")
	if rv := acResourceVersion(t, ac); rv != "5" {
		t.Errorf("resourceVersion after set = %q, want 5", rv)
	}
	c.SetResourceVersion(ac, "")
	if rv := acResourceVersion(t, ac); rv != "" {
		t.Errorf("resourceVersion after unset = %q, want none", rv)
	}

	if _, err := c.Apply(ctx, sfNamespace, ac); err != nil {
		t.Errorf("apply: %v", err)
	}
	if _, err := c.Patch(ctx, sfNamespace, "c", []byte(`[{"op":"test","path":"/metadata/name","value":"c"}]`)); err != nil {
		t.Errorf("patch: %v", err)
	}
	if err := c.Delete(ctx, sfNamespace, "c", metav1.DeleteOptions{}); err != nil {
		t.Errorf("delete: %v", err)
	}
	var verbs []string
	for _, a := range e.kube.Actions() {
		if a.GetResource() != gvr || a.GetNamespace() != sfNamespace {
			t.Errorf("request to the wrong resource: %s", controllertest.ActionString(a))
			continue
		}
		v := a.GetVerb()
		if p, ok := a.(clienttesting.PatchActionImpl); ok {
			v += " " + string(p.GetPatchType()) + " " + p.PatchOptions.FieldManager
			if p.GetPatchType() == types.ApplyPatchType && (p.PatchOptions.Force == nil || !*p.PatchOptions.Force) {
				t.Errorf("apply without force")
			}
		}
		verbs = append(verbs, v)
	}
	want := []string{"get", "patch application/apply-patch+yaml ogx-controller", "patch application/json-patch+json ogx-controller", "delete"}
	if d := cmp.Diff(want, verbs); d != "" {
		t.Errorf("requests (-want +got):\n%s", d)
	}
}

// acResourceVersion reads metadata.resourceVersion of an apply configuration.
func acResourceVersion(t *testing.T, ac any) string {
	t.Helper()
	b, err := json.Marshal(ac)
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return v.Metadata.ResourceVersion
}

func TestNewChildren(t *testing.T) {
	objs := []runtime.Object{
		&appsv1.Deployment{ObjectMeta: childMeta()},
		&corev1.Service{ObjectMeta: childMeta()},
		&corev1.ServiceAccount{ObjectMeta: childMeta()},
		&rbacv1.RoleBinding{ObjectMeta: childMeta()},
		&networkingv1.NetworkPolicy{ObjectMeta: childMeta()},
		&networkingv1.Ingress{ObjectMeta: childMeta()},
		&autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: childMeta()},
		&policyv1.PodDisruptionBudget{ObjectMeta: childMeta()},
		&corev1.ConfigMap{ObjectMeta: childMeta()},
	}
	cases := []struct {
		kind string
		run  func(t *testing.T, e *sfEnv)
	}{
		{"Deployment", func(t *testing.T, e *sfEnv) {
			checkChild(t, e, e.m.Children.Deployments, "Deployment", "apps/v1", gvrDeployments)
		}},
		{"Service", func(t *testing.T, e *sfEnv) {
			checkChild(t, e, e.m.Children.Services, "Service", "v1", gvrServices)
		}},
		{"ServiceAccount", func(t *testing.T, e *sfEnv) {
			checkChild(t, e, e.m.Children.ServiceAccounts, "ServiceAccount", "v1", gvrServiceAccounts)
		}},
		{"RoleBinding", func(t *testing.T, e *sfEnv) {
			checkChild(t, e, e.m.Children.RoleBindings, "RoleBinding", "rbac.authorization.k8s.io/v1", rbacv1.SchemeGroupVersion.WithResource("rolebindings"))
		}},
		{"NetworkPolicy", func(t *testing.T, e *sfEnv) {
			checkChild(t, e, e.m.Children.NetworkPolicies, "NetworkPolicy", "networking.k8s.io/v1", networkingv1.SchemeGroupVersion.WithResource("networkpolicies"))
		}},
		{"Ingress", func(t *testing.T, e *sfEnv) {
			checkChild(t, e, e.m.Children.Ingresses, "Ingress", "networking.k8s.io/v1", networkingv1.SchemeGroupVersion.WithResource("ingresses"))
		}},
		{"HorizontalPodAutoscaler", func(t *testing.T, e *sfEnv) {
			checkChild(t, e, e.m.Children.HPAs, "HorizontalPodAutoscaler", "autoscaling/v2", autoscalingv2.SchemeGroupVersion.WithResource("horizontalpodautoscalers"))
		}},
		{"PodDisruptionBudget", func(t *testing.T, e *sfEnv) {
			checkChild(t, e, e.m.Children.PDBs, "PodDisruptionBudget", "policy/v1", policyv1.SchemeGroupVersion.WithResource("poddisruptionbudgets"))
		}},
		{"ConfigMap", func(t *testing.T, e *sfEnv) {
			checkChild(t, e, e.m.Children.ConfigMaps, "ConfigMap", "v1", corev1.SchemeGroupVersion.WithResource("configmaps"))
		}},
	}
	for _, c := range cases {
		t.Run(c.kind, func(t *testing.T) {
			copies := make([]runtime.Object, len(objs))
			for i, o := range objs {
				copies[i] = o.DeepCopyObject()
			}
			c.run(t, newSFEnv(t, base.Options{}, copies))
		})
	}
}

// TestSetTypedResourceVersionEdges complements TestSetTypedResourceVersion
// (every kind): metadata not allocated yet, a replaced value, and values
// that are not apply configurations.
func TestSetTypedResourceVersionEdges(t *testing.T) {
	withRV := func(rv string) *corev1ac.ServiceApplyConfiguration {
		return corev1ac.Service("s", sfNamespace).WithResourceVersion(rv)
	}
	cases := []struct {
		name string
		ac   any
		rv   string
		want string
	}{
		{"set without metadata", &corev1ac.ServiceApplyConfiguration{}, "7", "7"},
		{"unset without metadata", &corev1ac.ServiceApplyConfiguration{}, "", ""},
		{"replace", withRV("3"), "7", "7"},
		{"unset", withRV("3"), "", ""},
		{"not an apply configuration", &corev1.Service{ObjectMeta: metav1.ObjectMeta{ResourceVersion: "3"}}, "7", "3"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			apply.SetTypedResourceVersion(c.ac, c.rv)
			if got := acResourceVersion(t, c.ac); got != c.want {
				t.Errorf("resourceVersion = %q, want %q", got, c.want)
			}
		})
	}
	apply.SetTypedResourceVersion((*corev1ac.ServiceApplyConfiguration)(nil), "7") // must not panic
}
