package controller

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestAdoptedConditions: the adoption conditions follow what the controllers
// report; a released networking adoption, which nothing reports after the
// releasing pass, stays shown while adopt-networking is absent.
func TestAdoptedConditions(t *testing.T) {
	cond := func(typ string, status metav1.ConditionStatus, reason, msg string) metav1.Condition {
		return metav1.Condition{Type: typ, Status: status, Reason: reason, Message: msg}
	}
	netAdopted := cond(CondNetworkingAdopted, metav1.ConditionTrue, ReasonNetworkingAdopted, "Networking adopted from legacy")
	netReleased := cond(CondNetworkingAdopted, metav1.ConditionFalse, ReasonAnnotationRemoved, "Adoption annotation removed")
	storage := cond(CondStorageAdopted, metav1.ConditionTrue, ReasonStorageAdopted, "PVC legacy-pvc adopted")
	cases := []struct {
		name       string
		annotation string // adopt-networking
		shown      []metav1.Condition
		facts      []metav1.Condition
		want       []metav1.Condition
	}{
		{name: "reported: shown", annotation: "legacy", facts: []metav1.Condition{netAdopted, storage},
			want: []metav1.Condition{storage, netAdopted}},
		{name: "the releasing pass reports it released", shown: []metav1.Condition{netAdopted},
			facts: []metav1.Condition{netReleased}, want: []metav1.Condition{netReleased}},
		{name: "released: kept while the annotation stays absent", shown: []metav1.Condition{netReleased},
			want: []metav1.Condition{netReleased}},
		{name: "shown adopted, annotation gone, nothing reported: shown released", shown: []metav1.Condition{netAdopted},
			want: []metav1.Condition{netReleased}},
		{name: "annotation back, nothing adopted: removed", annotation: "legacy", shown: []metav1.Condition{netReleased}},
		{name: "never adopted: nothing"},
		{name: "storage is not kept by status: the pvc controller reports it", shown: []metav1.Condition{storage}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := annotated(adoptNetworking, c.annotation)
			cs := newConditionSet(c.shown, 1, metav1.Now())
			adoptedConditions(statusInputs{server: s, facts: c.facts}, cs)
			got := cs.result()
			if d := cmp.Diff(c.want, got, cmpopts.EquateEmpty(),
				cmpopts.IgnoreFields(metav1.Condition{}, "LastTransitionTime", "ObservedGeneration")); d != "" {
				t.Errorf("conditions (-want +got):\n%s", d)
			}
		})
	}
}
