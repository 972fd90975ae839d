package caches

import (
	"fmt"
	"reflect"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/apply"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

// fresh returns a copy of s in memory of its own, as a decoder makes.
func fresh(s string) string { return string([]byte(s)) }

func TestInternMetaSharesStringsAndKeepsValues(t *testing.T) {
	meta := func() metav1.ObjectMeta {
		return metav1.ObjectMeta{
			Name: fresh("s1"), Namespace: fresh("team-a"),
			Labels:          map[string]string{fresh("app.kubernetes.io/instance"): fresh("s1")},
			Annotations:     map[string]string{fresh("note"): fresh("unique value")},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: fresh("ogx.io/v1beta1"), Kind: fresh("OGXServer"), Name: fresh("s1"), UID: "u1"}},
			ManagedFields:   []metav1.ManagedFieldsEntry{{Manager: fresh("ogx-controller"), Operation: metav1.ManagedFieldsOperationApply, APIVersion: fresh("v1")}},
		}
	}
	a := &corev1.Service{ObjectMeta: meta()}
	b := &appsv1.Deployment{ObjectMeta: meta()}
	want := meta()
	internMeta(a, nil)
	internMeta(b, nil)
	if diff := cmp.Diff(want, a.ObjectMeta); diff != "" {
		t.Fatalf("interning changed the metadata (-want +got):\n%s", diff)
	}
	same := func(what, x, y string) {
		t.Helper()
		if unsafe.StringData(x) != unsafe.StringData(y) {
			t.Errorf("%s: two copies after interning", what)
		}
	}
	same("namespace", a.Namespace, b.Namespace)
	same("label value", a.Labels["app.kubernetes.io/instance"], b.Labels["app.kubernetes.io/instance"])
	same("owner API version", a.OwnerReferences[0].APIVersion, b.OwnerReferences[0].APIVersion)
	same("owner name", a.OwnerReferences[0].Name, b.OwnerReferences[0].Name)
	same("manager", a.ManagedFields[0].Manager, b.ManagedFields[0].Manager)
	for k := range a.Labels {
		for k2 := range b.Labels {
			same("label key", k, k2)
		}
	}
	// Annotation values are left as they are (rarely shared).
	if unsafe.StringData(a.Annotations["note"]) == unsafe.StringData(b.Annotations["note"]) {
		t.Errorf("annotation value interned")
	}
}

func TestInternStatusSharesAndKeepsValues(t *testing.T) {
	status := func() ogxv1beta1.OGXServerStatus {
		return ogxv1beta1.OGXServerStatus{
			Phase:      ogxv1beta1.Phase(fresh("Ready")),
			Conditions: []metav1.Condition{{Type: fresh("Ready"), Status: metav1.ConditionStatus(fresh("True")), Reason: fresh("Available"), Message: fresh("1/1 replicas available")}},
			DistributionConfig: ogxv1beta1.DistributionConfig{
				ActiveDistribution:     fresh("starter"),
				AvailableDistributions: map[string]string{fresh("starter"): fresh("docker.io/ogxai/distribution-starter:latest")},
			},
			ResolvedDistribution: &ogxv1beta1.ResolvedDistribution{Image: fresh("docker.io/ogxai/distribution-starter:latest")},
		}
	}
	shared := &mapSharer{}
	a, b, want := status(), status(), status()
	internStatus(&a, shared)
	internStatus(&b, shared)
	if diff := cmp.Diff(want, a); diff != "" {
		t.Fatalf("interning changed the status (-want +got):\n%s", diff)
	}
	roomy := status()
	roomy.Conditions = append(make([]metav1.Condition, 0, 9), roomy.Conditions...)
	internStatus(&roomy, shared)
	if cap(roomy.Conditions) != len(roomy.Conditions) || roomy.Conditions[0].Reason != "Available" {
		t.Errorf("conditions kept with room for %d: %v", cap(roomy.Conditions), roomy.Conditions)
	}
	if unsafe.StringData(a.Conditions[0].Message) != unsafe.StringData(b.Conditions[0].Message) {
		t.Errorf("condition messages not shared")
	}
	if reflect.ValueOf(a.DistributionConfig.AvailableDistributions).UnsafePointer() !=
		reflect.ValueOf(b.DistributionConfig.AvailableDistributions).UnsafePointer() {
		t.Errorf("equal available-distribution maps not shared")
	}
	other := status()
	other.DistributionConfig.AvailableDistributions["custom"] = "example.com/custom:1"
	internStatus(&other, shared)
	if len(other.DistributionConfig.AvailableDistributions) != 2 || len(a.DistributionConfig.AvailableDistributions) != 1 {
		t.Errorf("a different map must not be replaced: %v, %v", other.DistributionConfig.AvailableDistributions, a.DistributionConfig.AvailableDistributions)
	}
}

func mapPointer(m map[string]string) unsafe.Pointer { return reflect.ValueOf(m).UnsafePointer() }

// TestMapSharerRemembersRecentMaps: equal maps come back as one map while
// they are among the last sharedMaps distinct ones; the most recently used
// stays when others push through.
func TestMapSharerRemembersRecentMaps(t *testing.T) {
	s := &mapSharer{}
	common := func() map[string]string { return map[string]string{"app.kubernetes.io/managed-by": "ogx-operator"} }
	first := s.share(common())
	for i := range 3 * sharedMaps {
		s.share(map[string]string{"app.kubernetes.io/instance": fmt.Sprintf("s%d", i)})
		if got := s.share(common()); mapPointer(got) != mapPointer(first) {
			t.Fatalf("after %d other maps the common map was not shared", i+1)
		}
	}
	if len(s.recent) != sharedMaps {
		t.Errorf("remembers %d maps, want %d", len(s.recent), sharedMaps)
	}
	// A map pushed out is handed out anew, equal in content.
	old := s.share(map[string]string{"app.kubernetes.io/instance": "s0"})
	if old["app.kubernetes.io/instance"] != "s0" || len(old) != 1 {
		t.Errorf("got %v", old)
	}
}

// TestChildViewsShareLabels: the views of two children with equal labels
// share one label map.
func TestChildViewsShareLabels(t *testing.T) {
	v := testViews()
	labels := func() map[string]string { return map[string]string{"app.kubernetes.io/managed-by": "ogx-operator"} }
	a, _ := v.transform(&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "a-sa", Namespace: "ns", Labels: labels()}})
	b, _ := v.transform(&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "b-sa", Namespace: "ns", Labels: labels()}})
	if mapPointer(a.(*apply.CachedChild).Typed().GetLabels()) != mapPointer(b.(*apply.CachedChild).Typed().GetLabels()) {
		t.Errorf("equal label maps not shared")
	}
}

// TestChildViewsShareManagedFields: views whose objects have the same
// entries (times and field sets apart) share one list without either; a
// view with other entries gets its own.
func TestChildViewsShareManagedFields(t *testing.T) {
	v := testViews()
	entry := func(manager string, at int64) metav1.ManagedFieldsEntry {
		now := metav1.Unix(at, 0)
		return metav1.ManagedFieldsEntry{Manager: fresh(manager), Operation: metav1.ManagedFieldsOperationApply, APIVersion: "v1",
			FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{}}`)}, Time: &now}
	}
	view := func(name string, entries ...metav1.ManagedFieldsEntry) []metav1.ManagedFieldsEntry {
		out, err := v.transform(&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", ManagedFields: entries}})
		if err != nil {
			t.Fatal(err)
		}
		return out.(*apply.CachedChild).Typed().GetManagedFields()
	}
	a, b := view("a", entry(render.FieldManager, 1)), view("b", entry(render.FieldManager, 2))
	want := []metav1.ManagedFieldsEntry{{Manager: render.FieldManager, Operation: metav1.ManagedFieldsOperationApply, APIVersion: "v1", FieldsType: "FieldsV1"}}
	if diff := cmp.Diff(want, a); diff != "" {
		t.Errorf("view's entries (-want +got):\n%s", diff)
	}
	if &a[0] != &b[0] {
		t.Error("equal entries not shared")
	}
	c := view("c", entry(render.FieldManager, 1), entry(render.StrategyFieldManager, 1))
	if len(c) != 2 || &c[0] == &a[0] {
		t.Errorf("other entries share a list: %v", c)
	}
	if len(view("d")) != 0 {
		t.Error("a view without entries has some")
	}
}
