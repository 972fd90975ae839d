package controller

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	autoscalingv2ac "k8s.io/client-go/applyconfigurations/autoscaling/v2"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	networkingv1ac "k8s.io/client-go/applyconfigurations/networking/v1"
	policyv1ac "k8s.io/client-go/applyconfigurations/policy/v1"
	rbacv1ac "k8s.io/client-go/applyconfigurations/rbac/v1"
	clienttesting "k8s.io/client-go/testing"

	"github.com/ogx-k8s/ogx-controller/pkg/controller/apply"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/controllertest"
)

// TestSetTypedResourceVersion: every typed child's apply configuration takes
// the create-only precondition and loses it again; a kind it silently
// missed would be created by an unconditional apply, past the guard.
func TestSetTypedResourceVersion(t *testing.T) {
	for _, ac := range []any{
		appsv1ac.Deployment("n", "ns"), corev1ac.Service("n", "ns"), corev1ac.ServiceAccount("n", "ns"),
		rbacv1ac.RoleBinding("n", "ns"), networkingv1ac.NetworkPolicy("n", "ns"), networkingv1ac.Ingress("n", "ns"),
		autoscalingv2ac.HorizontalPodAutoscaler("n", "ns"), policyv1ac.PodDisruptionBudget("n", "ns"), corev1ac.ConfigMap("n", "ns"),
	} {
		rv := func() string {
			b, err := json.Marshal(ac)
			if err != nil {
				t.Fatal(err)
			}
			var body struct {
				Metadata map[string]any `json:"metadata"`
			}
			if err := json.Unmarshal(b, &body); err != nil {
				t.Fatal(err)
			}
			v, ok := body.Metadata["resourceVersion"]
			if !ok {
				return "<unset>"
			}
			return v.(string)
		}
		apply.SetTypedResourceVersion(ac, apply.AbsentResourceVersion)
		if got := rv(); got != apply.AbsentResourceVersion {
			t.Errorf("%T: resourceVersion %q after setting it, want %q", ac, got, apply.AbsentResourceVersion)
		}
		apply.SetTypedResourceVersion(ac, "")
		if got := rv(); got != "<unset>" {
			t.Errorf("%T: resourceVersion %q after clearing it, want it unset", ac, got)
		}
	}
}

// TestCreateOnAPIServerRefusingPrecondition: an API server that refuses a
// resourceVersion on an apply that creates gets a live read and a plain
// apply instead, and the child is created.
func TestCreateOnAPIServerRefusingPrecondition(t *testing.T) {
	s := controllertest.Server(sfNamespace, sfName, sfUID)
	e := newSFEnv(t, base.Options{}, nil, s)
	e.kube.PrependReactor("patch", "services", func(a clienttesting.Action) (bool, runtime.Object, error) {
		if controllertest.IsCreateOnly(a) {
			return true, nil, apierrors.NewInternalError(errors.New("resourceVersion should not be set on objects to be created"))
		}
		return false, nil, nil
	})
	if _, err := e.m.service.Sync(e.ctx, sfKey); err != nil {
		t.Fatal(err)
	}
	if _, err := e.kube.CoreV1().Services(sfNamespace).Get(e.ctx, sfName+"-service", metav1.GetOptions{}); err != nil {
		t.Errorf("Service not created: %v", err)
	}
	var verbs []string
	for _, a := range e.kube.Actions() {
		if a.GetResource().Resource == "services" {
			verbs = append(verbs, a.GetVerb())
		}
	}
	if d := cmp.Diff([]string{"patch", "get", "patch", "get"}, verbs); d != "" {
		t.Errorf("Service requests (-want +got):\n%s", d)
	}
}
