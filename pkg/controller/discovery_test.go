package controller

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
)

func testCRD(name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("apiextensions.k8s.io/v1")
	u.SetKind("CustomResourceDefinition")
	u.SetName(name)
	return u
}

// TestWatchOptionalCRDs: the CRDs present at start poke nothing (the
// manager checks the APIs at start anyway); a CRD created, changed or
// deleted later pokes the discovery loop.
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
	expect("initial list", false)
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
