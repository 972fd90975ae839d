package pvc

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/controllertest"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/worker"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
	"github.com/ogx-k8s/ogx-controller/pkg/resolve"
)

func TestStorageAdoption(t *testing.T) {
	lsdRef := metav1.OwnerReference{APIVersion: "llamastack.io/v1alpha1", Kind: base.LegacyKind, Name: "legacy", UID: "u-lsd", Controller: ptr.To(true)}
	keptRef := metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "keep", UID: "u-keep"}
	pvc := func(labels map[string]string, refs ...metav1.OwnerReference) *corev1.PersistentVolumeClaim {
		return &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "legacy-pvc", Namespace: controllertest.Namespace,
			ResourceVersion: "11", Labels: labels, OwnerReferences: refs}}
	}
	legacyLabels := map[string]string{"app": "llama-stack", render.LabelInstance: "legacy"}
	deployment := func(replicas int32, refs ...metav1.OwnerReference) *appsv1.Deployment {
		return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "legacy", Namespace: controllertest.Namespace, ResourceVersion: "21",
			OwnerReferences: refs}, Spec: appsv1.DeploymentSpec{Replicas: ptr.To(replicas)}}
	}
	legacyDeployment := func(replicas int32) *appsv1.Deployment { return deployment(replicas, lsdRef) }
	legacyPod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "legacy-0", Namespace: controllertest.Namespace,
		Labels: map[string]string{render.LabelInstance: "legacy"}}}
	otherPod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "other-0", Namespace: controllertest.Namespace,
		Labels: map[string]string{render.LabelInstance: "other"}}}
	adoptedCond := []metav1.Condition{{Type: ogxv1beta1.ConditionStorageAdopted, Status: metav1.ConditionTrue, Reason: ogxv1beta1.ReasonStorageAdopted,
		Message: "PVC legacy-pvc adopted"}}
	pvcPatch := map[string]any{"metadata": map[string]any{
		"resourceVersion": "11",
		"ownerReferences": []any{map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "name": "keep", "uid": "u-keep"}},
		"labels": map[string]any{render.LabelAdoptedFrom: "legacy", render.LabelInstance: controllertest.Name,
			render.LabelManagedBy: render.ManagedByValue},
		"annotations": map[string]any{},
	}}
	const waitMsg = "waiting for 1 legacy pods of legacy to terminate"

	cases := []struct {
		name    string
		objs    []runtime.Object
		conds   []metav1.Condition
		waiting bool
		user    string
		writes  []string
		bodies  map[string]map[string]any
		events  []string
		// refused: the API server refuses changes of the PVC's owner
		// references (owner-reference permissions without delete on PVCs).
		refused bool
	}{
		{
			name:   "the PVC does not exist",
			conds:  []metav1.Condition{{Type: ogxv1beta1.ConditionStorageReady, Status: metav1.ConditionFalse, Reason: "StorageFailed", Message: "PVC legacy-pvc (ogx.io/adopt-storage) not found"}},
			events: []string{"Warning AdoptionSourceNotFound: PVC legacy-pvc (ogx.io/adopt-storage) not found"},
		},
		{
			name:  "already adopted: nothing is written",
			objs:  []runtime.Object{pvc(map[string]string{render.LabelAdoptedFrom: "legacy"}), legacyDeployment(1), legacyPod},
			conds: adoptedCond,
		},
		{
			name: "someone else controls the PVC",
			objs: []runtime.Object{pvc(nil, metav1.OwnerReference{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "db", UID: "u-db", Controller: ptr.To(true)})},
			user: ogxv1beta1.ReasonChildConflict,
		},
		{
			name:    "legacy pods run: scale down and wait",
			objs:    []runtime.Object{pvc(nil, lsdRef), legacyDeployment(1), legacyPod, otherPod},
			conds:   []metav1.Condition{{Type: ogxv1beta1.ConditionStorageAdopted, Status: metav1.ConditionFalse, Reason: ogxv1beta1.ReasonAdoptionInProgress, Message: waitMsg}},
			waiting: true,
			writes:  []string{`patch deployments team-a/legacy (application/merge-patch+json, manager "ogx-controller")`},
			bodies:  map[string]map[string]any{"deployments": {"metadata": map[string]any{"resourceVersion": "21"}, "spec": map[string]any{"replicas": float64(0)}}},
			events: []string{"Normal LegacyScaledDown: Scaled legacy Deployment legacy to 0 replicas",
				"Normal AdoptionWaiting: " + waitMsg},
		},
		{
			name:   "scaled down and no pods: the PVC is adopted",
			objs:   []runtime.Object{pvc(nil, lsdRef, keptRef), legacyDeployment(0), otherPod},
			conds:  adoptedCond,
			writes: []string{`patch persistentvolumeclaims team-a/legacy-pvc (application/merge-patch+json, manager "ogx-controller")`},
			bodies: map[string]map[string]any{"persistentvolumeclaims": pvcPatch},
			events: []string{"Normal StorageAdopted: PVC legacy-pvc adopted"},
		},
		{
			name:    "owner references may not change: refused before the legacy workload is stopped",
			objs:    []runtime.Object{pvc(nil, lsdRef), legacyDeployment(1), legacyPod},
			user:    ogxv1beta1.ReasonApplyFailed,
			refused: true,
		},
		{
			name:    "owner references may not change, legacy already stopped: refused",
			objs:    []runtime.Object{pvc(nil, lsdRef), legacyDeployment(0)},
			user:    ogxv1beta1.ReasonApplyFailed,
			refused: true,
		},
		{
			name: "a PVC that does not prove it is the install's is refused",
			objs: []runtime.Object{pvc(nil, keptRef), legacyDeployment(1), legacyPod},
			user: ogxv1beta1.ReasonChildConflict,
		},
		{
			name: "a Deployment that only has the install's name is not scaled",
			objs: []runtime.Object{pvc(nil, lsdRef), deployment(1), legacyPod},
			user: ogxv1beta1.ReasonChildConflict,
		},
		{
			name:   "no legacy Deployment: a PVC labelled by the legacy operator is adopted",
			objs:   []runtime.Object{pvc(legacyLabels, keptRef)},
			conds:  adoptedCond,
			writes: []string{`patch persistentvolumeclaims team-a/legacy-pvc (application/merge-patch+json, manager "ogx-controller")`},
			bodies: map[string]map[string]any{"persistentvolumeclaims": pvcPatch},
			events: []string{"Normal StorageAdopted: PVC legacy-pvc adopted"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			kube := kubefake.NewClientset(c.objs...)
			kube.PrependReactor("patch", "*", controllertest.DryRunPatches(kube.Tracker()))
			if c.refused {
				kube.PrependReactor("patch", "persistentvolumeclaims", func(clienttesting.Action) (bool, runtime.Object, error) {
					return true, nil, apierrors.NewForbidden(corev1.Resource("persistentvolumeclaims"), "legacy-pvc",
						errors.New("cannot set an ownerRef on a resource you can't delete"))
				})
			}
			events := controllertest.ActiveSink()
			d := &base.Deps{Kube: kube, Events: events, Caches: controllertest.AdoptedCaches(t)}
			s := controllertest.Annotated(ogxv1beta1.AnnotationAdoptStorage, "legacy")
			conds, err := storageAdoption(context.Background(), d, s, "legacy")
			var we *worker.WaitingError
			var ue *resolve.UserError
			switch {
			case c.waiting:
				if !errors.As(err, &we) || we.Reason != ogxv1beta1.ReasonAdoptionInProgress || we.Message != waitMsg {
					t.Errorf("want waiting for legacy pods, got %v", err)
				}
			case c.user != "":
				if !errors.As(err, &ue) || ue.Reason != c.user {
					t.Errorf("want a %s user error, got %v", c.user, err)
				}
				if c.refused && (ue == nil || !strings.Contains(ue.Error(), StorageAdoptionClusterRole)) {
					t.Errorf("a refusal names the grant that lifts it: %v", err)
				}
			case err != nil:
				t.Errorf("unexpected error %v", err)
			}
			if d := cmp.Diff(c.conds, conds, cmpopts.EquateEmpty()); d != "" {
				t.Errorf("conditions (-want +got):\n%s", d)
			}
			writes, bodies := controllertest.WriteSummary(t, kube.Actions())
			if b := bodies["persistentvolumeclaims"]; b != nil {
				controllertest.AdoptedAtOf(t, b)
			}
			if d := cmp.Diff(c.writes, writes); d != "" {
				t.Errorf("writes (-want +got):\n%s", d)
			}
			if d := cmp.Diff(c.bodies, bodies, cmpopts.EquateEmpty()); d != "" {
				t.Errorf("patch bodies (-want +got):\n%s", d)
			}
			if d := cmp.Diff(c.events, controllertest.DrainEvents(events)); d != "" {
				t.Errorf("events (-want +got):\n%s", d)
			}
		})
	}
}
