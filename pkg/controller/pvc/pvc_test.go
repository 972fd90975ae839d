package pvc

// Unit tests of the pvc controller's own decisions (pvc.go); its writes on
// a started Manager are in pvc_sync_test.go.

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kubefake "k8s.io/client-go/kubernetes/fake"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/controllertest"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/record"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
	"github.com/ogx-k8s/ogx-controller/pkg/resolve"
)

// TestKeepStorageAdopted: once adopt-storage is removed, StorageAdopted
// keeps being shown from the adopted PVC the cache holds for the instance,
// never from the condition status shows.
func TestKeepStorageAdopted(t *testing.T) {
	adoptedPVC := func(name, instance, at string) *corev1.PersistentVolumeClaim {
		return &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: controllertest.Namespace,
			Labels: map[string]string{render.LabelAdoptedFrom: "legacy", render.LabelInstance: instance,
				render.LabelManagedBy: render.ManagedByValue},
			Annotations: map[string]string{render.AnnotationAdoptedAt: at}}}
	}
	shownTrue := []metav1.Condition{{Type: ogxv1beta1.ConditionStorageAdopted, Status: metav1.ConditionTrue, Reason: ogxv1beta1.ReasonStorageAdopted,
		Message: "PVC legacy-pvc adopted"}}
	adopted := func(pvc string) []metav1.Condition {
		return []metav1.Condition{{Type: ogxv1beta1.ConditionStorageAdopted, Status: metav1.ConditionTrue, Reason: ogxv1beta1.ReasonStorageAdopted,
			Message: "PVC " + pvc + " adopted"}}
	}
	cases := []struct {
		name string
		// shown is what the server's status shows.
		shown  []metav1.Condition
		cached []runtime.Object
		facts  []metav1.Condition
		// multiple: the several-adopted-PVCs user error.
		multiple bool
	}{
		{name: "adopted PVC, status lacks the condition: shown",
			cached: []runtime.Object{adoptedPVC("legacy-pvc", controllertest.Name, "2026-01-01T00:00:00Z")}, facts: adopted("legacy-pvc")},
		{name: "adopted PVC and shown: still shown", shown: shownTrue,
			cached: []runtime.Object{adoptedPVC("legacy-pvc", controllertest.Name, "2026-01-01T00:00:00Z")}, facts: adopted("legacy-pvc")},
		{name: "status claims adoption, no adopted PVC: not shown", shown: shownTrue},
		{name: "another instance's adopted PVC is not ours", shown: shownTrue,
			cached: []runtime.Object{adoptedPVC("legacy-pvc", "other", "2026-01-01T00:00:00Z")}},
		{name: "several: the one adopted first is named", multiple: true, cached: []runtime.Object{
			adoptedPVC("b-pvc", controllertest.Name, "2026-01-01T00:00:00Z"), adoptedPVC("a-pvc", controllertest.Name, "2026-02-01T00:00:00Z")},
			facts: adopted("b-pvc")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			kube := kubefake.NewClientset(c.cached...)
			caches := controllertest.AdoptedCaches(t, c.cached...)
			board := base.NewOutcomeBoard(record.New())
			d := &base.Deps{Kube: kube, Caches: caches, Events: controllertest.ActiveSink(), Board: board}
			s := controllertest.Annotated()
			s.Status.Conditions = c.shown
			_, err := reconcile(context.Background(), d, s)
			var ue *resolve.UserError
			switch {
			case c.multiple:
				if !errors.As(err, &ue) || ue.Reason != ogxv1beta1.ReasonAdoptionConfigInvalid {
					t.Errorf("want the several-adopted-PVCs user error, got %v", err)
				}
			case err != nil:
				t.Errorf("unexpected error %v", err)
			}
			if d := cmp.Diff(c.facts, board.Facts(controllertest.UID), cmpopts.EquateEmpty()); d != "" {
				t.Errorf("facts (-want +got):\n%s", d)
			}
			if writes := controllertest.Writes(kube.Actions()); len(writes) > 0 {
				t.Errorf("unexpected writes: %s", controllertest.Describe(writes))
			}
		})
	}
}
