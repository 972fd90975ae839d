package controller

import (
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
	internMeta(a)
	internMeta(b)
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
