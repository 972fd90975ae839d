package controller

// Sync tests of the pvc controller on fake clientsets (fakeenv_test.go).

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/caches"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/controllertest"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

func TestSyncFakePVCCreatesThenSkips(t *testing.T) {
	s := controllertest.Server(sfNamespace, sfName, sfUID, controllertest.WithStorage("20Gi"))
	e := newSFEnv(t, base.Options{}, nil, s)
	if _, err := e.m.pvc.Sync(e.ctx, sfKey); err != nil {
		t.Fatalf("first sync: %v", err)
	}
	w := e.KubeWrites()
	if len(w) != 1 {
		t.Fatalf("first sync: want one create, got%s", controllertest.Describe(w))
	}
	c, ok := w[0].(clienttesting.CreateActionImpl)
	if !ok || c.GetResource() != gvrPVCs || c.GetNamespace() != sfNamespace {
		t.Fatalf("want create of a PVC, got %s", controllertest.ActionString(w[0]))
	}
	if c.CreateOptions.FieldManager != render.FieldManager {
		t.Errorf("create field manager = %q, want %q", c.CreateOptions.FieldManager, render.FieldManager)
	}
	pvc := c.GetObject().(*corev1.PersistentVolumeClaim)
	want := &corev1.PersistentVolumeClaim{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolumeClaim"},
		ObjectMeta: metav1.ObjectMeta{Name: sfName + "-pvc", Namespace: sfNamespace, Labels: map[string]string{
			render.LabelManagedBy: render.ManagedByValue, render.LabelPartOf: render.PartOfValue,
			ogxv1beta1.WatchLabel: "true", render.LabelInstance: sfName,
		}},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceStorage: resource.MustParse("20Gi"),
			}},
		},
	}
	if !equality.Semantic.DeepEqual(pvc, want) {
		t.Errorf("created PVC (-want +got):\n%s", cmp.Diff(want, pvc))
	}
	if o, _ := e.Outcome(s, "pvc"); o != (base.Outcome{Generation: 1, Class: base.OutcomeOK}) {
		t.Errorf("outcome = %+v, want ok", o)
	}

	e.WaitCaught()
	e.ClearActions()
	if _, err := e.m.pvc.Sync(e.ctx, sfKey); err != nil {
		t.Fatalf("steady sync: %v", err)
	}
	if w := e.KubeWrites(); len(w) != 0 {
		t.Fatalf("steady sync sent writes:%s", controllertest.Describe(w))
	}

	// Without storage the pvc controller does nothing at all.
	s2 := controllertest.Server(sfNamespace, "plain", "uid-plain")
	e2 := newSFEnv(t, base.Options{}, nil, s2)
	if _, err := e2.m.pvc.Sync(e2.ctx, caches.Key(sfNamespace, "plain")); err != nil {
		t.Fatal(err)
	}
	if w := e2.KubeWrites(); len(w) != 0 {
		t.Errorf("pvc sync without storage sent writes:%s", controllertest.Describe(w))
	}
	if o, _ := e2.Outcome(s2, "pvc"); o != (base.Outcome{Generation: 1, Class: base.OutcomeOK}) {
		t.Errorf("outcome without storage = %+v, want ok", o)
	}
}

// TestSyncFakePVCVerbAudit (no code path deletes or patches a PVC's spec):
// across creation, resize, storage removal, deletion and a foreign claim, no
// request other than create is ever sent for a PVC, by any controller.
func TestSyncFakePVCVerbAudit(t *testing.T) {
	foreign := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: "other-pvc", Namespace: sfNamespace},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany},
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceStorage: resource.MustParse("1Gi"),
			}},
		},
	}
	// A claim the upstream operator adopted for "third": labelled as adopted
	// but without managed-by, so the pvc controller adds that label (a
	// metadata-only patch, the one PVC patch allowed).
	adopted := foreign.DeepCopy()
	adopted.Name = "legacy-pvc"
	adopted.Labels = map[string]string{render.LabelAdoptedFrom: "legacy", render.LabelInstance: "third"}
	s := controllertest.Server(sfNamespace, sfName, sfUID, controllertest.WithStorage("10Gi"))
	other := controllertest.Server(sfNamespace, "other", "uid-other", controllertest.WithStorage("5Gi"))
	third := controllertest.Server(sfNamespace, "third", "uid-third", controllertest.WithStorage("5Gi"))
	e := newSFEnv(t, base.Options{}, []runtime.Object{foreign.DeepCopy(), adopted.DeepCopy()}, s, other, third)

	var all []clienttesting.Action
	pass := func(step string, keys ...string) {
		t.Helper()
		for _, key := range keys {
			for _, c := range e.m.childControllers {
				_, _ = c.Sync(e.ctx, key)
			}
			_, _ = e.m.status.Sync(e.ctx, key)
		}
		all = append(all, e.kube.Actions()...)
		e.kube.ClearActions()
		e.WaitCaught()
		// A second pass after the caches caught up.
		for _, key := range keys {
			for _, c := range e.m.childControllers {
				_, _ = c.Sync(e.ctx, key)
			}
		}
		all = append(all, e.kube.Actions()...)
		e.kube.ClearActions()
		e.WaitCaught()
	}
	otherKey := caches.Key(sfNamespace, "other")
	pass("create", sfKey, otherKey, caches.Key(sfNamespace, "third"))
	if got, err := e.kube.CoreV1().PersistentVolumeClaims(sfNamespace).Get(e.ctx, "legacy-pvc", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	} else {
		if !equality.Semantic.DeepEqual(got.Spec, adopted.Spec) {
			t.Errorf("adopted PVC spec changed:\n%s", cmp.Diff(adopted.Spec, got.Spec))
		}
		if got.Labels[render.LabelManagedBy] != render.ManagedByValue {
			t.Errorf("adopted PVC labels = %v, want managed-by added", got.Labels)
		}
	}

	// The foreign claim named other-pvc is reported, not touched.
	o, _ := e.Outcome(other, "pvc")
	wantMsg := "PersistentVolumeClaim other-pvc exists and is not managed by this OGXServer"
	if o.Class != base.OutcomeUserError || o.Reason != ogxv1beta1.ReasonChildConflict || o.Message != wantMsg {
		t.Errorf("foreign PVC outcome = %+v, want user error %s %q", o, ogxv1beta1.ReasonChildConflict, wantMsg)
	}
	got, err := e.kube.CoreV1().PersistentVolumeClaims(sfNamespace).Get(e.ctx, "other-pvc", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !equality.Semantic.DeepEqual(got.Spec, foreign.Spec) || len(got.Labels) != 0 {
		t.Errorf("foreign PVC was modified: %+v", got)
	}

	// Resize request: never applied.
	s2 := s.DeepCopy()
	s2.Generation = 2
	controllertest.WithStorage("50Gi")(&s2.Spec)
	e.UpdateServer(s2)
	pass("resize", sfKey)
	pvc, err := e.kube.CoreV1().PersistentVolumeClaims(sfNamespace).Get(e.ctx, sfName+"-pvc", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if q := pvc.Spec.Resources.Requests[corev1.ResourceStorage]; q.Cmp(resource.MustParse("10Gi")) != 0 {
		t.Errorf("PVC request after resize = %s, want 10Gi (never resized)", q.String())
	}

	// Storage removed: the claim stays.
	s3 := s2.DeepCopy()
	s3.Generation = 3
	s3.Spec.Workload.Storage = nil
	e.UpdateServer(s3)
	pass("storage removed", sfKey)

	// Being deleted, then gone.
	s4 := s3.DeepCopy()
	s4.DeletionTimestamp = ptr.To(metav1.Now())
	s4.Finalizers = []string{"example.com/hold"}
	e.UpdateServer(s4)
	pass("terminating", sfKey)
	if err := e.ogx.Tracker().Delete(gvrOGXServers, sfNamespace, sfName); err != nil {
		t.Fatal(err)
	}
	e.WaitCaught()
	pass("deleted", sfKey)

	creates, patches := 0, 0
	for _, a := range all {
		if a.GetResource() != gvrPVCs {
			continue
		}
		switch a.GetVerb() {
		case "get", "list", "watch":
		case "create":
			creates++
		case "patch":
			patches++
			// Only metadata may be patched (label normalisation), never spec.
			p := a.(clienttesting.PatchActionImpl)
			var body map[string]any
			if err := json.Unmarshal(p.GetPatch(), &body); err != nil || p.GetPatchType() != types.MergePatchType {
				t.Errorf("PVC patch %s is not a JSON merge patch: %s", controllertest.ActionString(a), p.GetPatch())
				continue
			}
			for k := range body {
				if k != "metadata" {
					t.Errorf("PVC patch touches %q: %s %s", k, controllertest.ActionString(a), p.GetPatch())
				}
			}
		default:
			t.Errorf("forbidden PVC request: %s", controllertest.ActionString(a))
		}
		if a.GetSubresource() != "" {
			t.Errorf("PVC subresource request: %s", controllertest.ActionString(a))
		}
	}
	// demo-pvc once, other-pvc once (answered AlreadyExists), and other-pvc
	// again on the second pass.
	if creates != 3 {
		t.Errorf("PVC creates = %d, want 3", creates)
	}
	if patches == 0 {
		t.Errorf("the adopted PVC's label normalisation sent no patch; the audit did not see the patch path")
	}
	if _, err := e.kube.CoreV1().PersistentVolumeClaims(sfNamespace).Get(e.ctx, sfName+"-pvc", metav1.GetOptions{}); err != nil {
		t.Errorf("demo-pvc after deletion of its OGXServer: %v (must be retained)", err)
	}
}
