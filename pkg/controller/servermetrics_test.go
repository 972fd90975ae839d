package controller

import (
	"testing"

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
