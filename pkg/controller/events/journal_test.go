package events

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/types"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/record"
)

// TestJournalSummary: one Event note per flush, grouped by verb in the
// order first seen; repeats of a child under one verb are listed once;
// skipped and absent results are no news; past maxJournalEntries writes are
// counted.
func TestJournalSummary(t *testing.T) {
	type write struct {
		kind, name string
		r          WriteResult
	}
	many := make([]write, maxJournalEntries+2)
	for i := range many {
		many[i] = write{"ConfigMap", "c", Updated}
	}
	for _, tc := range []struct {
		name   string
		writes []write
		want   []string
	}{
		{"nothing", nil, []string{"", "", ""}},
		{"skips are no news", []write{{"Service", "s-service", Skipped}, {"PVC", "p", Absent}}, []string{"", "", ""}},
		{"a new server", []write{{"ServiceAccount", "s-sa", Created}, {"Deployment", "s", Created}},
			[]string{"Created", "Create", "Created ServiceAccount s-sa, Deployment s"}},
		{"verbs grouped in order", []write{{"Deployment", "s", Updated}, {"PodDisruptionBudget", "s-pdb", Created}, {"Service", "s-service", Updated}},
			[]string{"Updated", "Update", "Updated Deployment s, Service s-service; created PodDisruptionBudget s-pdb"}},
		{"a child updated twice", []write{{"Deployment", "s", Updated}, {"Deployment", "s", Updated}},
			[]string{"Updated", "Update", "Updated Deployment s"}},
		{"takeover first", []write{{"Deployment", "s", TakenOver}, {"Deployment", "s", Updated}},
			[]string{ogxv1beta1.EventTakenOver, "Reconcile", "Took over Deployment s; updated Deployment s"}},
		{"deleted", []write{{"HorizontalPodAutoscaler", "s-hpa", Deleted}},
			[]string{"Deleted", "Delete", "Deleted HorizontalPodAutoscaler s-hpa"}},
		{"too many", many, []string{"Updated", "Update", "Updated ConfigMap c; 2 more writes"}},
	} {
		j := NewJournal(record.New())
		uid := types.UID("u")
		for _, w := range tc.writes {
			j.Add("ns/s", uid, w.kind, w.name, w.r)
		}
		reason, action, note := j.Take(uid).Summary()
		if diff := cmp.Diff(tc.want, []string{reason, action, note}); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
		if !j.Take(uid).Empty() {
			t.Errorf("%s: take did not clear the journal", tc.name)
		}
	}
}
