package render

import (
	"k8s.io/apimachinery/pkg/util/intstr"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	policyv1ac "k8s.io/client-go/applyconfigurations/policy/v1"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

// PDB renders N-pdb (docs/children.md, PodDisruptionBudget). Without a user
// budget, maxUnavailable 1 keeps all but one pod of a multi-pod server through
// a node drain.
func PDB(s *ogxv1beta1.OGXServer, _ *Inputs) *policyv1ac.PodDisruptionBudgetApplyConfiguration {
	spec := policyv1ac.PodDisruptionBudgetSpec().
		WithSelector(metav1ac.LabelSelector().WithMatchLabels(SelectorLabels(s.Name)))
	var user *ogxv1beta1.PodDisruptionBudgetSpec
	if w := s.Spec.Workload; w != nil {
		user = w.PodDisruptionBudget
	}
	switch {
	case user != nil && user.MinAvailable != nil:
		spec.WithMinAvailable(*user.MinAvailable)
	case user != nil && user.MaxUnavailable != nil:
		spec.WithMaxUnavailable(*user.MaxUnavailable)
	default:
		spec.WithMaxUnavailable(intstr.FromInt32(1))
	}
	return policyv1ac.PodDisruptionBudget(PDBName(s.Name), s.Namespace).
		WithLabels(ScalingLabels(s.Name)).
		WithOwnerReferences(ownerRefs(s)...).
		WithSpec(spec)
}
