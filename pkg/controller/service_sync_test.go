package controller

// Sync tests of the service controller on fake clientsets (fakeenv_test.go).

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/utils/ptr"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/controllertest"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

func TestSyncFakeServiceAppliesThenSkips(t *testing.T) {
	for _, tc := range []struct {
		name  string
		muts  []func(*ogxv1beta1.OGXServerSpec)
		ports []int32
	}{
		{name: "defaults with metrics port", ports: []int32{8321, 9464}},
		{name: "monitoring off", ports: []int32{8321}, muts: []func(*ogxv1beta1.OGXServerSpec){func(s *ogxv1beta1.OGXServerSpec) {
			s.Monitoring = &ogxv1beta1.MonitoringSpec{Enabled: ptr.To(false)}
		}}},
		{name: "custom port", ports: []int32{9000, 9464}, muts: []func(*ogxv1beta1.OGXServerSpec){func(s *ogxv1beta1.OGXServerSpec) {
			s.Network = &ogxv1beta1.NetworkSpec{Port: 9000}
		}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := controllertest.Server(sfNamespace, sfName, sfUID, tc.muts...)
			e := newSFEnv(t, base.Options{}, nil, s)
			if _, err := e.m.service.Sync(e.ctx, sfKey); err != nil {
				t.Fatalf("first sync: %v", err)
			}
			w := e.KubeWrites()
			if len(w) != 1 {
				t.Fatalf("first sync: want one Service apply, got%s", controllertest.Describe(w))
			}
			sfExpectApply(t, w[0], gvrServices, sfName+"-service")
			svc, err := e.kube.CoreV1().Services(sfNamespace).Get(e.ctx, sfName+"-service", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var ports []int32
			for _, p := range svc.Spec.Ports {
				ports = append(ports, p.Port)
			}
			if diff := cmp.Diff(tc.ports, ports); diff != "" {
				t.Errorf("Service ports (-want +got):\n%s", diff)
			}
			owned, err := corev1ac.ExtractService(svc, render.FieldManager)
			if err != nil {
				t.Fatal(err)
			}
			if want := render.Service(s, &render.Inputs{}); !equality.Semantic.DeepEqual(owned, want) {
				t.Errorf("owned Service fields differ from render:\n%s", cmp.Diff(want, owned))
			}
			if o, _ := e.Outcome(s, "service"); o != (base.Outcome{Generation: 1, Class: base.OutcomeOK}) {
				t.Errorf("outcome = %+v, want ok", o)
			}

			e.WaitCaught()
			e.ClearActions()
			if _, err := e.m.service.Sync(e.ctx, sfKey); err != nil {
				t.Fatalf("steady sync: %v", err)
			}
			if w := e.KubeWrites(); len(w) != 0 {
				t.Fatalf("steady sync sent writes:%s", controllertest.Describe(w))
			}

			// A spec change reaches the Service with one apply.
			s2 := s.DeepCopy()
			s2.Generation = 2
			s2.Spec.Network = &ogxv1beta1.NetworkSpec{Port: 7777}
			e.UpdateServer(s2)
			e.ClearActions()
			if _, err := e.m.service.Sync(e.ctx, sfKey); err != nil {
				t.Fatal(err)
			}
			w = e.KubeWrites()
			if len(w) != 1 {
				t.Fatalf("after spec change: want one apply, got%s", controllertest.Describe(w))
			}
			sfExpectApply(t, w[0], gvrServices, sfName+"-service")
			if o, _ := e.Outcome(s, "service"); o.Generation != 2 || o.Class != base.OutcomeOK {
				t.Errorf("outcome after spec change = %+v, want ok for generation 2", o)
			}
		})
	}
}
