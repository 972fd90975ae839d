package controller

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubefake "k8s.io/client-go/kubernetes/fake"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/controllertest"
	ogxfake "github.com/ogx-k8s/ogx-controller/pkg/generated/clientset/versioned/fake"
	"github.com/ogx-k8s/ogx-controller/pkg/metrics"
)

// TestServerChangesCounted drives the OGXServer event handlers of a real
// Manager: creations, deletions and new generations count; status-only
// updates (same generation) do not, since the controller causes those itself.
func TestServerChangesCounted(t *testing.T) {
	m := metrics.New("test")
	mgr, err := NewManager(kubefake.NewClientset(), ogxfake.NewSimpleClientset(),
		base.Options{OperatorNamespace: sfOperator, Metrics: m})
	if err != nil {
		t.Fatal(err)
	}
	changes := func() float64 {
		t.Helper()
		mfs, err := m.Registry().Gather()
		if err != nil {
			t.Fatal(err)
		}
		for _, mf := range mfs {
			if mf.GetName() == "ogx_controller_server_changes_total" {
				return mf.GetMetric()[0].GetCounter().GetValue()
			}
		}
		t.Fatal("no ogx_controller_server_changes_total")
		return 0
	}
	h := mgr.serverEvents()
	s := controllertest.Server(sfNamespace, sfName, sfUID)
	h.OnAdd(s, false)
	statusOnly := s.DeepCopy()
	statusOnly.Status.Phase = ogxv1beta1.PhaseReady
	h.OnUpdate(s, statusOnly)
	if got := changes(); got != 1 {
		t.Fatalf("after a creation and a status update: %v changes, want 1", got)
	}
	newSpec := statusOnly.DeepCopy()
	newSpec.Generation++
	h.OnUpdate(statusOnly, newSpec)
	h.OnDelete(newSpec)
	if got := changes(); got != 3 {
		t.Fatalf("after a new generation and a deletion: %v changes, want 3", got)
	}
	// The phase gauge reads the (empty) caches of this manager.
	if got := mgr.Caches.ServerPhases(); got[metrics.PhaseUnknown] != 0 || len(got) != 6 {
		t.Errorf("ServerPhases of empty caches = %v", got)
	}
}

// TestServerChangeMatters: the updates that wake every controller of a
// server, and those that must not (its own status writes).
func TestServerChangeMatters(t *testing.T) {
	base := controllertest.Server(sfNamespace, sfName, sfUID)
	base.Annotations = map[string]string{"unrelated": "a"}
	for _, tc := range []struct {
		name   string
		mutate func(*ogxv1beta1.OGXServer)
		want   bool
	}{
		{"status only", func(s *ogxv1beta1.OGXServer) { s.Status.Phase = ogxv1beta1.PhaseReady }, false},
		{"unrelated annotation", func(s *ogxv1beta1.OGXServer) { s.Annotations["unrelated"] = "b" }, false},
		{"label", func(s *ogxv1beta1.OGXServer) { s.Labels = map[string]string{"team": "x"} }, false},
		{"new generation", func(s *ogxv1beta1.OGXServer) { s.Generation++ }, true},
		{"deletion starts", func(s *ogxv1beta1.OGXServer) { now := metav1.Now(); s.DeletionTimestamp = &now }, true},
		{"adopt storage", func(s *ogxv1beta1.OGXServer) { s.Annotations[ogxv1beta1.AnnotationAdoptStorage] = "old" }, true},
		{"adopt networking", func(s *ogxv1beta1.OGXServer) { s.Annotations[ogxv1beta1.AnnotationAdoptNetworking] = "old" }, true},
		{"recheck image", func(s *ogxv1beta1.OGXServer) { s.Annotations[ogxv1beta1.AnnotationRecheckImage] = "1" }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cur := base.DeepCopy()
			tc.mutate(cur)
			if got := serverChangeMatters(base, cur); got != tc.want {
				t.Errorf("serverChangeMatters = %v, want %v", got, tc.want)
			}
		})
	}
}
