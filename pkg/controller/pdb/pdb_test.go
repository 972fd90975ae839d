package pdb

import (
	"testing"

	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/utils/ptr"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/controllertest"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

var pdbs = policyv1.SchemeGroupVersion.WithResource("poddisruptionbudgets")

func TestKind(t *testing.T) {
	controllertest.CheckKind(t, kind, &policyv1.PodDisruptionBudget{ObjectMeta: controllertest.ChildMeta()}, pdbs)
}

// TestController: a multi-pod server gets N-pdb, back to one pod deletes
// it.
func TestController(t *testing.T) {
	multi := controllertest.Server(controllertest.Namespace, controllertest.Name, controllertest.UID, func(s *ogxv1beta1.OGXServerSpec) {
		s.Workload = &ogxv1beta1.WorkloadSpec{Replicas: ptr.To[int32](2)}
	})
	single := controllertest.Server(controllertest.Namespace, controllertest.Name, controllertest.UID)
	controllertest.CheckOptional(t, NewController, multi, single, pdbs, render.PDBName(controllertest.Name))
}
