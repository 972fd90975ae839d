package caches

import (
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

// Index names on the OGXServer informer: NS/name of a ConfigMap or Secret to
// the OGXServers referencing it (docs/controllers.md, Reference indexes).
const (
	IndexConfigMaps = "configmaps"
	IndexSecrets    = "secrets"
)

// referencedConfigMaps lists the ConfigMaps an OGXServer reads. The
// cluster's trusted CA bundle is auto-detected for every OGXServer of the
// namespace.
func referencedConfigMaps(s *ogxv1beta1.OGXServer) []string {
	names := []string{render.TrustedCABundleConfigMap}
	if r := s.Spec.OverrideConfig; r != nil {
		names = append(names, r.Name)
	}
	if r := s.Spec.BaseConfig; r != nil {
		names = append(names, r.Name)
	}
	if t := s.Spec.TLS; t != nil {
		if t.Trust != nil {
			for _, r := range t.Trust.CACertificates {
				names = append(names, r.Name)
			}
		}
		if t.Identity != nil {
			names = append(names, t.Identity.Cert.Name)
		}
	}
	return names
}

// referencedSecrets lists the Secrets whose content reaches the server:
// provider and storage references, the serving certificate and the client
// key. Secrets named only in workload.overrides.env are not tracked.
func referencedSecrets(s *ogxv1beta1.OGXServer) []string {
	var names []string
	for _, e := range s.Spec.Providers.Entries() {
		for _, sf := range e.Secrets {
			names = append(names, sf.Ref.Name)
		}
	}
	if st := s.Spec.Storage; st != nil {
		if st.KV != nil && st.KV.Password != nil {
			names = append(names, st.KV.Password.Name)
		}
		if st.SQL != nil && st.SQL.ConnectionString != nil {
			names = append(names, st.SQL.ConnectionString.Name)
		}
	}
	if t := s.Spec.ServerTLS(); t != nil {
		names = append(names, t.SecretName)
	}
	if t := s.Spec.TLS; t != nil && t.Identity != nil {
		names = append(names, t.Identity.Key.Name)
	}
	return names
}

// ReferenceIndexers builds the two indexes, each key once.
func ReferenceIndexers() cache.Indexers {
	index := func(list func(*ogxv1beta1.OGXServer) []string) cache.IndexFunc {
		return func(obj any) ([]string, error) {
			s, ok := obj.(*ogxv1beta1.OGXServer)
			if !ok {
				return nil, nil
			}
			names := list(s)
			keys := make([]string, len(names))
			for i, n := range names {
				keys[i] = Key(s.Namespace, n)
			}
			slices.Sort(keys)
			return slices.Compact(keys), nil
		}
	}
	return cache.Indexers{IndexConfigMaps: index(referencedConfigMaps), IndexSecrets: index(referencedSecrets)}
}

// IndexInstance indexes the pod cache by NS/instance label, so the pods of
// one server are found without scanning the namespace.
const IndexInstance = "instance"

// InstanceIndexers builds the instance index (exported, with IndexInstance,
// for the status tests' pod caches).
func InstanceIndexers() cache.Indexers { return metaIndexers(IndexInstance, ByInstance) }

// metaIndexers builds the index name of the keys of an object's metadata.
func metaIndexers(name string, keys func(metav1.Object) []string) cache.Indexers {
	return cache.Indexers{name: func(obj any) ([]string, error) {
		m, ok := MetaOf(obj)
		if !ok {
			return nil, nil
		}
		return keys(m), nil
	}}
}
