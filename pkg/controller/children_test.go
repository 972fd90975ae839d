package controller

// Unit tests of the per-kind child constructors (base/children.go) on the fake
// clientsets (fakeenv_test.go): each kind reads its own cache and writes
// through its own typed client.

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"

	"github.com/ogx-k8s/ogx-controller/pkg/controller/apply"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/controllertest"
)

func TestNewChildren(t *testing.T) {
	objs := []runtime.Object{
		&appsv1.Deployment{ObjectMeta: controllertest.ChildMeta()},
		&corev1.Service{ObjectMeta: controllertest.ChildMeta()},
		&corev1.ServiceAccount{ObjectMeta: controllertest.ChildMeta()},
		&networkingv1.Ingress{ObjectMeta: controllertest.ChildMeta()},
		&corev1.ConfigMap{ObjectMeta: controllertest.ChildMeta()},
	}
	cases := []struct {
		kind string
		run  func(t *testing.T, e *sfEnv)
	}{
		{"Deployment", func(t *testing.T, e *sfEnv) {
			controllertest.CheckChild(e.Env, e.m.Children.Deployments, "Deployment", "apps/v1", gvrDeployments)
		}},
		{"Service", func(t *testing.T, e *sfEnv) {
			controllertest.CheckChild(e.Env, e.m.Children.Services, "Service", "v1", gvrServices)
		}},
		{"ServiceAccount", func(t *testing.T, e *sfEnv) {
			controllertest.CheckChild(e.Env, e.m.Children.ServiceAccounts, "ServiceAccount", "v1", gvrServiceAccounts)
		}},
		{"Ingress", func(t *testing.T, e *sfEnv) {
			controllertest.CheckChild(e.Env, e.m.Children.Ingresses, "Ingress", "networking.k8s.io/v1", networkingv1.SchemeGroupVersion.WithResource("ingresses"))
		}},
		{"ConfigMap", func(t *testing.T, e *sfEnv) {
			controllertest.CheckChild(e.Env, e.m.Children.ConfigMaps, "ConfigMap", "v1", corev1.SchemeGroupVersion.WithResource("configmaps"))
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
			if got := controllertest.ResourceVersionOf(t, c.ac); got != c.want {
				t.Errorf("resourceVersion = %q, want %q", got, c.want)
			}
		})
	}
	apply.SetTypedResourceVersion((*corev1ac.ServiceApplyConfiguration)(nil), "7") // must not panic
}
