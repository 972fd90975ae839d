package hpa

import (
	"testing"

	autoscalingv2 "k8s.io/api/autoscaling/v2"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/controllertest"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

var hpas = autoscalingv2.SchemeGroupVersion.WithResource("horizontalpodautoscalers")

func TestKind(t *testing.T) {
	controllertest.CheckKind(t, kind, &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: controllertest.ChildMeta()}, hpas)
}

// TestController: autoscaling set applies N-hpa, autoscaling removed
// deletes it.
func TestController(t *testing.T) {
	autoscaled := controllertest.Server(controllertest.Namespace, controllertest.Name, controllertest.UID, func(s *ogxv1beta1.OGXServerSpec) {
		s.Workload = &ogxv1beta1.WorkloadSpec{Autoscaling: &ogxv1beta1.AutoscalingSpec{MaxReplicas: 3}}
	})
	plain := controllertest.Server(controllertest.Namespace, controllertest.Name, controllertest.UID)
	controllertest.CheckOptional(t, NewController, autoscaled, plain, hpas, render.HPAName(controllertest.Name))
}
