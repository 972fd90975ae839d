package caches

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/tools/cache"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

// managedFieldsFilter is a cache transform on managedFields. An object that
// has an entry of a takeover manager keeps all its entries: the takeover
// rewrites the whole list, so it must see every entry to keep them (it
// happens once per object). Any other object keeps only our own entries;
// the entries of everyone else (kube-controller-manager's status updates
// above all) are never read from the cache and would only take memory.
type managedFieldsFilter struct {
	ours, takeover sets.Set[string]
}

func newManagedFieldsFilter(ours, takeover []string) managedFieldsFilter {
	return managedFieldsFilter{ours: sets.New(ours...), takeover: sets.New(takeover...)}
}

// takeoverPending reports whether m has an entry the takeover would merge
// (see apply.TakeoverPatch): an Apply or Update entry of a takeover manager
// on the given subresource ("" for a child, "status" for an OGXServer).
// Entries a takeover never touches (say, a status writer that happens to be
// called "manager") must not keep an object whole for good.
func (f managedFieldsFilter) takeoverPending(m metav1.Object, subresource string) bool {
	for _, e := range m.GetManagedFields() {
		if f.takeover.Has(e.Manager) && e.Subresource == subresource &&
			(e.Operation == metav1.ManagedFieldsOperationApply || e.Operation == metav1.ManagedFieldsOperationUpdate) {
			return true
		}
	}
	return false
}

func (f managedFieldsFilter) transform(obj any) (any, error) {
	m, ok := obj.(metav1.Object)
	if !ok || f.takeoverPending(m, "") {
		return obj, nil
	}
	f.filter(m)
	internMeta(m, nil)
	return obj, nil
}

// filter drops every managedFields entry but our own.
func (f managedFieldsFilter) filter(m metav1.Object) {
	entries := m.GetManagedFields()
	kept := entries[:0]
	for _, e := range entries {
		if f.ours.Has(e.Manager) {
			kept = append(kept, e)
		}
	}
	if len(kept) == 0 {
		kept = nil
	}
	m.SetManagedFields(kept)
}

// serverView is the OGXServer cache transform: no managedFields (nothing
// reads ours: status is applied whole) unless the status takeover is due,
// and no last-applied annotation (kubectl's copy of the whole object, never
// read here); shared strings and maps are interned (intern.go).
func serverView(keep managedFieldsFilter) cache.TransformFunc {
	distributions := &mapSharer{}
	return func(obj any) (any, error) {
		m, ok := obj.(metav1.Object)
		if !ok {
			return obj, nil
		}
		if a := m.GetAnnotations(); a[corev1.LastAppliedConfigAnnotation] != "" {
			delete(a, corev1.LastAppliedConfigAnnotation)
			m.SetAnnotations(a)
		}
		if !keep.takeoverPending(m, "status") {
			m.SetManagedFields(nil)
		}
		internMeta(m, nil)
		if s, ok := obj.(*ogxv1beta1.OGXServer); ok {
			internStatus(&s.Status, distributions)
		}
		return obj, nil
	}
}

// stripUserManagedFields is the watched ConfigMaps' and Secrets' transform:
// only those an OGXServer controls keep managedFields (the applier extracts
// what we own from them).
func stripUserManagedFields(obj any) (any, error) {
	m, ok := obj.(metav1.Object)
	if !ok {
		return obj, nil
	}
	if _, owned := OwnerKey(m); owned {
		return obj, nil
	}
	m.SetManagedFields(nil)
	internMeta(m, nil)
	return obj, nil
}
