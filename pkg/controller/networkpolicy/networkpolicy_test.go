package networkpolicy

import (
	"testing"

	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/utils/ptr"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/controllertest"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

var policies = networkingv1.SchemeGroupVersion.WithResource("networkpolicies")

func TestKind(t *testing.T) {
	controllertest.CheckKind(t, kind, &networkingv1.NetworkPolicy{ObjectMeta: controllertest.ChildMeta()}, policies)
}

// TestController: the default applies N-network-policy, policy.enabled
// false deletes it.
func TestController(t *testing.T) {
	byDefault := controllertest.Server(controllertest.Namespace, controllertest.Name, controllertest.UID)
	disabled := controllertest.Server(controllertest.Namespace, controllertest.Name, controllertest.UID, func(s *ogxv1beta1.OGXServerSpec) {
		s.Network = &ogxv1beta1.NetworkSpec{Policy: &ogxv1beta1.NetworkPolicySpec{Enabled: ptr.To(false)}}
	})
	controllertest.CheckOptional(t, NewController, byDefault, disabled, policies, render.NetworkPolicyName(controllertest.Name))
}
