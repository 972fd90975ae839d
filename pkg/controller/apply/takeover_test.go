package apply

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

// mfEntry is a managedFields entry with the given fields (JSON; "" for none).
func mfEntry(manager string, op metav1.ManagedFieldsOperationType, subresource, fields string) metav1.ManagedFieldsEntry {
	e := metav1.ManagedFieldsEntry{Manager: manager, Operation: op, APIVersion: "apps/v1", Subresource: subresource}
	if fields != "" {
		e.FieldsType = "FieldsV1"
		e.FieldsV1 = &metav1.FieldsV1{Raw: []byte(fields)}
	}
	return e
}

// patchOp is one operation of a JSON patch.
type patchOp struct {
	Op    string          `json:"op"`
	Path  string          `json:"path"`
	Value json.RawMessage `json:"value"`
}

// canonicalJSON re-encodes raw so that key order does not matter.
func canonicalJSON(t *testing.T, raw []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("invalid JSON %s: %v", raw, err)
	}
	return v
}

func TestTakeoverPatch(t *testing.T) {
	const (
		apply  = metav1.ManagedFieldsOperationApply
		update = metav1.ManagedFieldsOperationUpdate
	)
	upstream := []string{"ogx-operator", "manager"}
	// The clock is in another zone and carries nanoseconds: the new entry's
	// time is UTC, whole seconds.
	now := time.Date(2026, 3, 4, 5, 6, 7, 890, time.FixedZone("X", 3600))
	wantTime := metav1.NewTime(time.Date(2026, 3, 4, 4, 6, 7, 0, time.UTC))
	replicas := `{"f:spec":{"f:replicas":{}}}`
	template := `{"f:spec":{"f:template":{"f:metadata":{"f:labels":{"f:app":{}}}}}}`
	labels := `{"f:metadata":{"f:labels":{"f:team":{}}}}`
	statusFields := `{"f:status":{"f:replicas":{}}}`
	kubectl := mfEntry("kubectl", update, "", labels)

	cases := []struct {
		name        string
		entries     []metav1.ManagedFieldsEntry
		subresource string
		// kept are the entries left as they are, in order.
		kept []metav1.ManagedFieldsEntry
		// merged is the fields of the new ogx-controller entry; "" means
		// no patch at all.
		merged  string
		wantErr bool
	}{
		{
			name:    "nothing to take over",
			entries: []metav1.ManagedFieldsEntry{mfEntry(render.FieldManager, apply, "", replicas), kubectl},
		},
		{
			name:    "no managed fields",
			entries: nil,
		},
		{
			name:    "an upstream manager's status entry is not the object's",
			entries: []metav1.ManagedFieldsEntry{mfEntry("ogx-operator", update, "status", statusFields)},
		},
		{
			name: "upstream Update merged with our Apply, others kept",
			entries: []metav1.ManagedFieldsEntry{
				kubectl,
				mfEntry("ogx-operator", update, "", template),
				mfEntry(render.FieldManager, apply, "", replicas),
				mfEntry("ogx-operator", update, "status", statusFields),
			},
			kept:   []metav1.ManagedFieldsEntry{kubectl, mfEntry("ogx-operator", update, "status", statusFields)},
			merged: `{"f:spec":{"f:replicas":{},"f:template":{"f:metadata":{"f:labels":{"f:app":{}}}}}}`,
		},
		{
			name:    "each listed manager, Apply or Update",
			entries: []metav1.ManagedFieldsEntry{mfEntry("manager", apply, "", replicas), mfEntry("ogx-operator", update, "", labels)},
			merged:  `{"f:metadata":{"f:labels":{"f:team":{}}},"f:spec":{"f:replicas":{}}}`,
		},
		{
			name:    "an upstream entry without fields still starts the takeover",
			entries: []metav1.ManagedFieldsEntry{mfEntry("ogx-operator", update, "", ""), mfEntry(render.FieldManager, apply, "", replicas)},
			merged:  replicas,
		},
		{
			name: "status takeover touches only status entries",
			entries: []metav1.ManagedFieldsEntry{
				mfEntry("ogx-operator", update, "", template),
				mfEntry("ogx-operator", update, "status", statusFields),
				mfEntry(render.FieldManager, apply, "", replicas),
			},
			subresource: "status",
			kept:        []metav1.ManagedFieldsEntry{mfEntry("ogx-operator", update, "", template), mfEntry(render.FieldManager, apply, "", replicas)},
			merged:      statusFields,
		},
		{
			name:    "unreadable fields are an error",
			entries: []metav1.ManagedFieldsEntry{mfEntry("ogx-operator", update, "", `{"f:spec":`)},
			wantErr: true,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			obj := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "demo", ResourceVersion: "42", ManagedFields: c.entries}}
			patch, err := TakeoverPatch(obj, "apps/v1", upstream, c.subresource, now)
			if c.wantErr {
				if err == nil {
					t.Fatalf("want an error, got patch %s", patch)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.merged == "" {
				if patch != nil {
					t.Fatalf("want no patch, got %s", patch)
				}
				return
			}
			var ops []patchOp
			if err := json.Unmarshal(patch, &ops); err != nil {
				t.Fatalf("patch %s: %v", patch, err)
			}
			if len(ops) != 2 {
				t.Fatalf("want a test and a replace operation, got %s", patch)
			}
			if ops[0].Op != "test" || ops[0].Path != "/metadata/resourceVersion" || string(ops[0].Value) != `"42"` {
				t.Errorf("first operation must test resourceVersion 42, got %+v", ops[0])
			}
			if ops[1].Op != "replace" || ops[1].Path != "/metadata/managedFields" {
				t.Fatalf("second operation must replace managedFields, got %s %s", ops[1].Op, ops[1].Path)
			}
			var got []metav1.ManagedFieldsEntry
			if err := json.Unmarshal(ops[1].Value, &got); err != nil {
				t.Fatal(err)
			}
			if len(got) == 0 {
				t.Fatal("managedFields replaced by nothing")
			}
			last := got[len(got)-1]
			if d := cmp.Diff(c.kept, got[:len(got)-1], cmpopts.EquateEmpty()); d != "" {
				t.Errorf("kept entries (-want +got):\n%s", d)
			}
			wantLast := metav1.ManagedFieldsEntry{Manager: render.FieldManager, Operation: apply, APIVersion: "apps/v1",
				Time: &wantTime, FieldsType: "FieldsV1", Subresource: c.subresource}
			gotFields := last.FieldsV1
			last.FieldsV1 = nil
			if d := cmp.Diff(wantLast, last); d != "" {
				t.Errorf("merged entry (-want +got):\n%s", d)
			}
			if gotFields == nil {
				t.Fatal("merged entry has no fields")
			}
			if d := cmp.Diff(canonicalJSON(t, []byte(c.merged)), canonicalJSON(t, gotFields.Raw)); d != "" {
				t.Errorf("merged fields (-want +got):\n%s", d)
			}
		})
	}
}
