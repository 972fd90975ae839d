package caches

import (
	"maps"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	networkinginformers "k8s.io/client-go/informers/networking/v1"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	ogxfake "github.com/ogx-k8s/ogx-controller/pkg/generated/clientset/versioned/fake"
	"github.com/ogx-k8s/ogx-controller/pkg/metrics"
)

func managersOf(entries []metav1.ManagedFieldsEntry) []string {
	var out []string
	for _, e := range entries {
		out = append(out, e.Manager)
	}
	return out
}

// TestManagedFieldsFilter: the caches keep only our entries, except on an
// object the upstream operator still manages, whose list the takeover
// rewrites whole and so must see whole.
func TestManagedFieldsFilter(t *testing.T) {
	f := newManagedFieldsFilter([]string{"ogx-controller", "ogx-controller-strategy"}, []string{"ogx-operator", "manager"})
	entries := func(names ...string) []metav1.ManagedFieldsEntry {
		var out []metav1.ManagedFieldsEntry
		for _, n := range names {
			out = append(out, metav1.ManagedFieldsEntry{Manager: n, Operation: metav1.ManagedFieldsOperationApply})
		}
		return out
	}
	for _, tc := range []struct {
		name string
		in   []string
		want []string
	}{
		{"ours and others", []string{"kube-controller-manager", "ogx-controller", "kubectl", "ogx-controller-strategy"}, []string{"ogx-controller", "ogx-controller-strategy"}},
		{"only others", []string{"kube-controller-manager"}, nil},
		{"a takeover manager keeps the list whole", []string{"kube-controller-manager", "ogx-operator", "argocd"}, []string{"kube-controller-manager", "ogx-operator", "argocd"}},
	} {
		d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "x", ManagedFields: entries(tc.in...)}}
		out, err := f.transform(d)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.want, managersOf(out.(*appsv1.Deployment).ManagedFields)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
	// The OGXServer view also drops kubectl's last-applied copy.
	s := &ogxv1beta1.OGXServer{ObjectMeta: metav1.ObjectMeta{Name: "s",
		Annotations:   map[string]string{corev1.LastAppliedConfigAnnotation: "{...}", "ogx.io/adopt-storage": "old"},
		ManagedFields: entries("kubectl-client-side-apply", "ogx-controller")}}
	out, err := serverView(f)(s)
	if err != nil {
		t.Fatal(err)
	}
	got := out.(*ogxv1beta1.OGXServer)
	if diff := cmp.Diff(map[string]string{"ogx.io/adopt-storage": "old"}, got.Annotations); diff != "" {
		t.Errorf("annotations (-want +got):\n%s", diff)
	}
	if got.ManagedFields != nil {
		t.Errorf("server view keeps managedFields %v; nothing reads them", managersOf(got.ManagedFields))
	}
	// While the status takeover is due, the server is kept with all entries.
	s.ManagedFields = entries("kubectl-client-side-apply", "ogx-operator")
	s.ManagedFields[1].Subresource = "status"
	out, _ = serverView(f)(s)
	if diff := cmp.Diff([]string{"kubectl-client-side-apply", "ogx-operator"}, managersOf(out.(*ogxv1beta1.OGXServer).ManagedFields)); diff != "" {
		t.Errorf("managers with a takeover due (-want +got):\n%s", diff)
	}
}

func TestCountPhases(t *testing.T) {
	withPhase := func(name string, p ogxv1beta1.Phase) *ogxv1beta1.OGXServer {
		s := &ogxv1beta1.OGXServer{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: name, UID: types.UID(name)}}
		s.Status.Phase = p
		return s
	}
	got := countPhases([]*ogxv1beta1.OGXServer{
		withPhase("a", ogxv1beta1.PhaseReady), withPhase("b", ogxv1beta1.PhaseReady),
		withPhase("c", ogxv1beta1.PhaseFailed), withPhase("d", ""),
	})
	want := map[string]int{"Pending": 0, "Initializing": 0, "Ready": 2, "Failed": 1, "Terminating": 0, metrics.PhaseUnknown: 1}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("countPhases (-want +got):\n%s", diff)
	}
}

// TestPerServerCachesHaveNoNamespaceIndex: the caches that hold an object
// per server (children, pods, OGXServers) keep only the indexes something
// reads; the ConfigMaps' cache, listed by namespace for retention, keeps
// its namespace index.
func TestPerServerCachesHaveNoNamespaceIndex(t *testing.T) {
	c := NewCaches(kubefake.NewClientset(), ogxfake.NewClientset(), []string{"ns"}, "ogx-system", nil, nil)
	c.AddChildKind("NetworkPolicy", networkinginformers.NewFilteredNetworkPolicyInformer,
		ViewOf(func(*networkingv1.NetworkPolicy, string) (struct{}, error) { return struct{}{}, nil }))
	s := c.For("ns")
	indexes := func(inf cache.SharedIndexInformer) []string {
		return slices.Sorted(maps.Keys(inf.GetIndexer().GetIndexers()))
	}
	for kind, idx := range s.ChildIndexers {
		if kind == "ConfigMap" {
			continue
		}
		if names := slices.Sorted(maps.Keys(idx.GetIndexers())); len(names) != 0 {
			t.Errorf("%s cache has indexes %v", kind, names)
		}
	}
	if got := indexes(s.ChildInformer("NetworkPolicy")); len(got) != 0 {
		t.Errorf("added kind's cache has indexes %v", got)
	}
	if got := slices.Sorted(maps.Keys(s.PodIndexer.GetIndexers())); !slices.Equal(got, []string{IndexInstance}) {
		t.Errorf("pod cache indexes %v, want only %s", got, IndexInstance)
	}
	if got := indexes(s.ServerInformer); slices.Contains(got, cache.NamespaceIndex) {
		t.Errorf("OGXServer cache indexes %v", got)
	}
	if got := slices.Sorted(maps.Keys(s.ChildIndexers["ConfigMap"].GetIndexers())); !slices.Equal(got, []string{cache.NamespaceIndex}) {
		t.Errorf("ConfigMap cache indexes %v, want the namespace index", got)
	}
}
