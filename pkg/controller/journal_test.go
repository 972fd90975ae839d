package controller

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ogx-k8s/ogx-controller/pkg/controller/record"
)

// TestJournalSummary: one Event note per flush, grouped by verb in the
// order first seen; repeats of a child under one verb are listed once;
// skipped and absent results are no news; past maxJournalEntries writes are
// counted.
func TestJournalSummary(t *testing.T) {
	type write struct {
		kind, name string
		r          writeResult
	}
	many := make([]write, maxJournalEntries+2)
	for i := range many {
		many[i] = write{"ConfigMap", "c", writeUpdated}
	}
	for _, tc := range []struct {
		name   string
		writes []write
		want   []string
	}{
		{"nothing", nil, []string{"", "", ""}},
		{"skips are no news", []write{{"Service", "s-service", writeSkipped}, {"PVC", "p", writeAbsent}}, []string{"", "", ""}},
		{"a new server", []write{{"ServiceAccount", "s-sa", writeCreated}, {"Deployment", "s", writeCreated}},
			[]string{"Created", "Create", "Created ServiceAccount s-sa, Deployment s"}},
		{"verbs grouped in order", []write{{"Deployment", "s", writeUpdated}, {"PodDisruptionBudget", "s-pdb", writeCreated}, {"Service", "s-service", writeUpdated}},
			[]string{"Updated", "Update", "Updated Deployment s, Service s-service; created PodDisruptionBudget s-pdb"}},
		{"a child updated twice", []write{{"Deployment", "s", writeUpdated}, {"Deployment", "s", writeUpdated}},
			[]string{"Updated", "Update", "Updated Deployment s"}},
		{"takeover first", []write{{"Deployment", "s", writeTakenOver}, {"Deployment", "s", writeUpdated}},
			[]string{EventTakenOver, "Reconcile", "Took over Deployment s; updated Deployment s"}},
		{"deleted", []write{{"HorizontalPodAutoscaler", "s-hpa", writeDeleted}},
			[]string{"Deleted", "Delete", "Deleted HorizontalPodAutoscaler s-hpa"}},
		{"too many", many, []string{"Updated", "Update", "Updated ConfigMap c; 2 more writes"}},
	} {
		j := newWriteJournal(record.New())
		uid := types.UID("u")
		for _, w := range tc.writes {
			j.add("ns/s", uid, w.kind, w.name, w.r)
		}
		reason, action, note := j.take(uid).summary()
		if diff := cmp.Diff(tc.want, []string{reason, action, note}); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
		if !j.take(uid).empty() {
			t.Errorf("%s: take did not clear the journal", tc.name)
		}
	}
}
