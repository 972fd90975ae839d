package integration

import (
	"encoding/json"
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
)

// TestFailedJSONPatchTestIsInvalidWithoutCauses pins what the controller's
// takeover relies on (pkg/controller isStaleTakeover): a JSON patch whose
// resourceVersion test fails, because the sender's copy is stale, comes
// back as 422 Invalid without field causes, unlike a validation failure.
func TestFailedJSONPatchTestIsInvalidWithoutCauses(t *testing.T) {
	ns := cp.CreateNamespace(t, "jsonpatch")
	kube, err := kubernetes.NewForConfig(restConfig)
	if err != nil {
		t.Fatal(err)
	}
	cms := kube.CoreV1().ConfigMaps(ns)
	cm, err := cms.Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c"}, Data: map[string]string{"a": "1"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	stale := cm.ResourceVersion
	if _, err := cms.Update(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c", ResourceVersion: stale}, Data: map[string]string{"a": "2"}}, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	patch, _ := json.Marshal([]map[string]any{
		{"op": "test", "path": "/metadata/resourceVersion", "value": stale},
		{"op": "replace", "path": "/data/a", "value": "3"},
	})
	_, err = cms.Patch(t.Context(), "c", types.JSONPatchType, patch, metav1.PatchOptions{})
	var status apierrors.APIStatus
	if !apierrors.IsInvalid(err) || !errors.As(err, &status) {
		t.Fatalf("stale JSON patch test: %v, want 422 Invalid", err)
	}
	if d := status.Status().Details; d != nil && len(d.Causes) > 0 {
		t.Errorf("stale JSON patch test carries causes %+v; the controller would take it for a validation failure", d.Causes)
	}
}
