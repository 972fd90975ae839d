package controller

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/ogx-k8s/ogx-controller/pkg/controller/render"
)

// takeoverPatch builds the JSON patch that hands the fields owned by the
// upstream operator's managers over to ogx-controller (docs/controllers.md,
// Takeover): their non-status Apply and Update entries are merged into one
// Apply entry of ogx-controller, so the next apply removes whatever they set
// that ogx-controller no longer renders. It returns nil when no listed manager
// owns anything. The patch is guarded by resourceVersion.
//
// subresource selects the entries: "" for the object, "status" for the
// status takeover of the OGXServer itself.
func takeoverPatch(obj metav1.Object, apiVersion string, managers []string, subresource string, now time.Time) ([]byte, error) {
	entries := obj.GetManagedFields()
	merged := &fieldpath.Set{}
	var kept []metav1.ManagedFieldsEntry
	found := false
	for _, e := range entries {
		takeover := e.Subresource == subresource && slices.Contains(managers, e.Manager) &&
			(e.Operation == metav1.ManagedFieldsOperationApply || e.Operation == metav1.ManagedFieldsOperationUpdate)
		ours := e.Subresource == subresource && e.Manager == render.FieldManager && e.Operation == metav1.ManagedFieldsOperationApply
		if !takeover && !ours {
			kept = append(kept, e)
			continue
		}
		found = found || takeover
		if e.FieldsV1 == nil {
			continue
		}
		s := &fieldpath.Set{}
		if err := s.FromJSON(bytes.NewReader(e.FieldsV1.Raw)); err != nil {
			return nil, fmt.Errorf("reading managed fields of %s: %w", e.Manager, err)
		}
		merged = merged.Union(s)
	}
	if !found {
		return nil, nil
	}
	raw, err := merged.ToJSON()
	if err != nil {
		return nil, err
	}
	kept = append(kept, metav1.ManagedFieldsEntry{
		Manager: render.FieldManager, Operation: metav1.ManagedFieldsOperationApply, APIVersion: apiVersion,
		Time: &metav1.Time{Time: now.UTC().Truncate(time.Second)}, FieldsType: "FieldsV1",
		FieldsV1: &metav1.FieldsV1{Raw: raw}, Subresource: subresource,
	})
	return json.Marshal([]map[string]any{
		{"op": "test", "path": "/metadata/resourceVersion", "value": obj.GetResourceVersion()},
		{"op": "replace", "path": "/metadata/managedFields", "value": kept},
	})
}
