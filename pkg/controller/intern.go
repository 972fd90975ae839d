package controller

import (
	"unique"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The decoders allocate every string of every cached object on its own, so
// a fleet's caches hold thousands of copies of the same few strings: the
// namespace, label keys and values (each server's children share its
// instance label), owner kinds and API versions, field manager names. The
// cache transforms replace those with one canonical copy each (the runtime's
// unique package, whose copies the garbage collector frees once nothing
// holds them). Names and UIDs are left alone: they are rarely shared.

// intern returns the canonical copy of s.
func intern(s string) string {
	if s == "" {
		return ""
	}
	return unique.Make(s).Value()
}

// internMap returns m with canonical keys, and canonical values when
// values is set, in a map of exactly its size. Annotation values (digests,
// JSON) are rarely shared, and a canonical copy of a string nothing else
// holds costs more than the string.
func internMap(m map[string]string, values bool) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		if values {
			v = intern(v)
		}
		out[intern(k)] = v
	}
	return out
}

// internMeta replaces the shared strings of m's metadata with canonical
// copies, in place.
func internMeta(m metav1.Object) {
	m.SetNamespace(intern(m.GetNamespace()))
	if l := m.GetLabels(); len(l) > 0 {
		m.SetLabels(internMap(l, true))
	}
	if a := m.GetAnnotations(); len(a) > 0 {
		m.SetAnnotations(internMap(a, false))
	}
	refs := m.GetOwnerReferences()
	for i := range refs {
		refs[i].APIVersion = intern(refs[i].APIVersion)
		refs[i].Kind = intern(refs[i].Kind)
		refs[i].Name = intern(refs[i].Name)
	}
	entries := m.GetManagedFields()
	for i := range entries {
		entries[i].Manager = intern(entries[i].Manager)
		entries[i].APIVersion = intern(entries[i].APIVersion)
		entries[i].Operation = metav1.ManagedFieldsOperationType(intern(string(entries[i].Operation)))
		entries[i].FieldsType = intern(entries[i].FieldsType)
		entries[i].Subresource = intern(entries[i].Subresource)
	}
}
