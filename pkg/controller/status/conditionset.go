package status

import (
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

// conditionOrder lists the condition types in the fixed order status lists
// them (docs/status.md, Conditions).
func conditionOrder() []string {
	return []string{ogxv1beta1.ConditionConfigGenerated, ogxv1beta1.ConditionDeploymentReady,
		ogxv1beta1.ConditionStorageReady, ogxv1beta1.ConditionServiceReady, ogxv1beta1.ConditionHealthCheck,
		ogxv1beta1.ConditionReady, ogxv1beta1.ConditionReconciling, ogxv1beta1.ConditionStalled,
		ogxv1beta1.ConditionStorageAdopted, ogxv1beta1.ConditionNetworkingAdopted, ogxv1beta1.ConditionAdoptionConfigInvalid}
}

// maxConditionMessage caps condition messages (docs/status.md, Write rules).
const maxConditionMessage = 32768

// conditionSet is the conditions a status pass computes, starting from the
// current ones. set keeps a condition's lastTransitionTime while its status
// stays; the kstatus conditions (Reconciling, Stalled) exist only while
// True, so they survive only when this pass set them (setKstatus).
type conditionSet struct {
	conds      []metav1.Condition
	generation int64
	now        metav1.Time
	kstatus    map[string]bool
}

func newConditionSet(old []metav1.Condition, generation int64, now metav1.Time) *conditionSet {
	return &conditionSet{conds: append([]metav1.Condition(nil), old...), generation: generation, now: now, kstatus: map[string]bool{}}
}

// set sets one condition, its message capped (docs/status.md, Write rules).
func (c *conditionSet) set(t string, status metav1.ConditionStatus, reason, msg string) {
	if len(msg) > maxConditionMessage {
		msg = msg[:maxConditionMessage-len("…")] + "…"
	}
	apimeta.SetStatusCondition(&c.conds, metav1.Condition{Type: t, Status: status, Reason: reason, Message: msg,
		ObservedGeneration: c.generation, LastTransitionTime: c.now})
}

func (c *conditionSet) remove(t string) { apimeta.RemoveStatusCondition(&c.conds, t) }

// setKstatus sets Reconciling or Stalled for this pass.
func (c *conditionSet) setKstatus(t string, status metav1.ConditionStatus, reason, msg string) {
	c.kstatus[t] = true
	c.set(t, status, reason, msg)
}

// result drops the kstatus conditions this pass did not set and orders the
// rest.
func (c *conditionSet) result() []metav1.Condition {
	for _, t := range []string{ogxv1beta1.ConditionReconciling, ogxv1beta1.ConditionStalled} {
		if !c.kstatus[t] {
			c.remove(t)
		}
	}
	return orderConditions(c.conds)
}

// factOf returns the reported condition of a type, preferring a True one.
func factOf(facts []metav1.Condition, t string) *metav1.Condition {
	var found *metav1.Condition
	for i := range facts {
		if facts[i].Type != t {
			continue
		}
		if found == nil || facts[i].Status == metav1.ConditionTrue {
			found = &facts[i]
		}
	}
	return found
}

// orderConditions lists conditions in the fixed order, dropping unknown
// types.
func orderConditions(conds []metav1.Condition) []metav1.Condition {
	var out []metav1.Condition
	for _, t := range conditionOrder() {
		if c := apimeta.FindStatusCondition(conds, t); c != nil {
			out = append(out, *c)
		}
	}
	return out
}
