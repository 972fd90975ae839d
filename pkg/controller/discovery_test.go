package controller

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
)

// TestOptionalCRDNames: the watched names are those of the CRDs that serve
// the optional APIs (and that config/rbac/role.yaml lists).
func TestOptionalCRDNames(t *testing.T) {
	want := []string{
		"servicemonitors.monitoring.coreos.com",
		"prometheusrules.monitoring.coreos.com",
		"securitycontextconstraints.security.openshift.io",
	}
	if diff := cmp.Diff(want, optionalCRDs()); diff != "" {
		t.Errorf("optionalCRDs (-want +got):\n%s", diff)
	}
}

func testCRD(name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("apiextensions.k8s.io/v1")
	u.SetKind("CustomResourceDefinition")
	u.SetName(name)
	return u
}

// TestWatchOptionalCRDs: a CRD in the first list, and one created or
// deleted later, pokes the discovery loop.
func TestWatchOptionalCRDs(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{crdsGVR: "CustomResourceDefinitionList"},
		testCRD("servicemonitors.monitoring.coreos.com"))
	pokes := make(chan struct{}, 10)
	if err := watchOptionalCRDs(ctx, dyn, func() { pokes <- struct{}{} }); err != nil {
		t.Fatal(err)
	}
	expect := func(what string, want bool) {
		t.Helper()
		select {
		case <-pokes:
			if !want {
				t.Errorf("%s: poked", what)
			}
			// The fake ignores field selectors, so every informer
			// reports the event: drain the others.
			for {
				select {
				case <-pokes:
					continue
				case <-time.After(200 * time.Millisecond):
				}
				break
			}
		case <-time.After(500 * time.Millisecond):
			if want {
				t.Errorf("%s: no poke", what)
			}
		}
	}
	expect("initial list", true)
	crds := dyn.Resource(crdsGVR)
	if _, err := crds.Create(ctx, testCRD("prometheusrules.monitoring.coreos.com"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	expect("create", true)
	if err := crds.Delete(ctx, "servicemonitors.monitoring.coreos.com", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	expect("delete", true)
}
