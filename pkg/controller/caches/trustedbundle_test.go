package caches

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

// TestTrustedBundleView: the trusted-bundle cache keeps the key and the
// watch label only, so a large last-applied annotation or other labels
// cost nothing; a tombstone passes through.
func TestTrustedBundleView(t *testing.T) {
	in := &metav1.PartialObjectMetadata{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "odh-trusted-ca-bundle", UID: "u", ResourceVersion: "7",
			Labels:        map[string]string{"team": "a", ogxv1beta1.WatchLabel: "false"},
			Annotations:   map[string]string{"kubectl.kubernetes.io/last-applied-configuration": "{...}"},
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl"}}},
	}
	got, err := trustedBundleView(in)
	if err != nil {
		t.Fatal(err)
	}
	want := &metav1.PartialObjectMetadata{TypeMeta: in.TypeMeta, ObjectMeta: metav1.ObjectMeta{Namespace: "ns",
		Name: "odh-trusted-ca-bundle", UID: "u", ResourceVersion: "7", Labels: map[string]string{ogxv1beta1.WatchLabel: "false"}}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("view (-want +got):\n%s", d)
	}
	tomb := cache.DeletedFinalStateUnknown{Key: "ns/odh-trusted-ca-bundle", Obj: in}
	if got, _ := trustedBundleView(tomb); got != any(tomb) {
		t.Errorf("tombstone became %v", got)
	}
}

// TestWatchLabelChanged: only a move in or out of the watched cache counts.
func TestWatchLabelChanged(t *testing.T) {
	meta := func(labels map[string]string) *metav1.PartialObjectMetadata {
		return &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Labels: labels}}
	}
	on, off := map[string]string{ogxv1beta1.WatchLabel: "true"}, map[string]string{ogxv1beta1.WatchLabel: "no"}
	for _, tc := range []struct {
		old, cur map[string]string
		want     bool
	}{
		{nil, off, false}, {nil, on, true}, {on, off, true}, {on, on, false}, {off, map[string]string{"team": "a"}, false},
	} {
		if got := WatchLabelChanged(meta(tc.old), meta(tc.cur)); got != tc.want {
			t.Errorf("%v -> %v: %v, want %v", tc.old, tc.cur, got, tc.want)
		}
	}
}
