package controller

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/caches"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

// scopeSources builds the sources of one scope's events and maps their
// objects to OGXServer keys (docs/controllers.md, Enqueue rules). Children
// the applier writes carry its recent-writes hook; PVCs (never rewritten
// once created), pods and referenced Secrets do not. The kinds controller
// packages registered (base.RegisterKind) are mapped to their owner too.
func (m *Manager) scopeSources(sc *caches.Scope) *caches.Sources {
	f, w, ch := sc.ChildFactory, sc.WatchedFactory, m.Children
	owned := make(map[string]*caches.Source, len(m.Owned))
	for _, k := range m.Owned {
		owned[k.Kind] = &caches.Source{Informer: sc.ChildInformer(k.Kind), Keys: caches.ByOwner, Observe: k.Observe}
	}
	var trusted *caches.Source
	if sc.TrustedBundles != nil {
		// An odh-trusted-ca-bundle without the watch label: created,
		// deleted, or labelled in or out. Only its servers' CA bundle
		// report reads it; a labelled one's events come from ConfigMaps.
		trusted = &caches.Source{Informer: sc.TrustedBundles, Keys: m.unwatchedTrustedBundleServers,
			Changed: caches.WatchLabelChanged}
	}
	return &caches.Sources{
		TrustedBundles:  trusted,
		Owned:           owned,
		Deployments:     &caches.Source{Informer: f.Apps().V1().Deployments().Informer(), Keys: caches.ByOwner, Observe: ch.Deployments.Observe},
		ServiceAccounts: &caches.Source{Informer: f.Core().V1().ServiceAccounts().Informer(), Keys: caches.ByOwner, Observe: ch.ServiceAccounts.Observe},
		Services:        &caches.Source{Informer: f.Core().V1().Services().Informer(), Keys: caches.ByOwner, Observe: ch.Services.Observe},
		PVCs:            &caches.Source{Informer: f.Core().V1().PersistentVolumeClaims().Informer(), Keys: m.pvcOwners},
		// A pod's ogx container turning ready or reporting its image
		// digest changes status.resolvedDistribution.image.
		Pods:        &caches.Source{Informer: sc.PodFactory.Core().V1().Pods().Informer(), Keys: caches.ByInstance, Changed: caches.PodViewChanged},
		AdoptedPVCs: &caches.Source{Informer: sc.AdoptedFactory.Core().V1().PersistentVolumeClaims().Informer(), Keys: m.pvcOwners},
		// Adopted legacy Services and Ingresses (some without managed-by):
		// their release is decided from this cache, so its events start it.
		AdoptedServices:  &caches.Source{Informer: sc.AdoptedFactory.Core().V1().Services().Informer(), Keys: caches.ByOwner},
		AdoptedIngresses: &caches.Source{Informer: sc.AdoptedFactory.Networking().V1().Ingresses().Informer(), Keys: caches.ByOwner},
		Ingresses:        &caches.Source{Informer: f.Networking().V1().Ingresses().Informer(), Keys: caches.ByOwner, Observe: ch.Ingresses.Observe},
		// Owned (generated, CA bundle) and referenced ConfigMaps, and
		// referenced Secrets: content or label changes.
		ConfigMaps: &caches.Source{Informer: w.Core().V1().ConfigMaps().Informer(), Keys: m.configMapOwners,
			Changed: caches.DataOrLabelsChanged, Observe: ch.ConfigMaps.Observe},
		Secrets: &caches.Source{Informer: w.Core().V1().Secrets().Informer(), Keys: m.secretOwners, Changed: caches.DataOrLabelsChanged},
	}
}

// pvcOwners maps a PVC to its OGXServer: the instance label, else a name
// N-pvc where N is an OGXServer in the namespace.
func (m *Manager) pvcOwners(o metav1.Object) []string {
	if n := o.GetLabels()[render.LabelInstance]; n != "" {
		return []string{caches.Key(o.GetNamespace(), n)}
	}
	if name := o.GetName(); len(name) > 4 && name[len(name)-4:] == "-pvc" {
		if _, err := m.Caches.Server(o.GetNamespace(), name[:len(name)-4]); err == nil {
			return []string{caches.Key(o.GetNamespace(), name[:len(name)-4])}
		}
	}
	return nil
}

// configMapOwners maps a watched ConfigMap to the OGXServers that own it or
// reference it.
func (m *Manager) configMapOwners(o metav1.Object) []string {
	if k, ok := caches.OwnerKey(o); ok {
		return []string{k}
	}
	return m.referencing(caches.IndexConfigMaps, o)
}

// unwatchedTrustedBundleServers maps the metadata of an odh-trusted-ca-bundle
// ConfigMap to the servers of its namespace (every server reads it, through
// the reference index), on events where it lacks the watch label: the
// events of a labelled one already come from the watched ConfigMaps. An
// update that labels it (cur labelled) needs no pass of its own either.
func (m *Manager) unwatchedTrustedBundleServers(o metav1.Object) []string {
	if caches.Watched(o) {
		return nil
	}
	return m.referencing(caches.IndexConfigMaps, o)
}

// secretOwners maps a watched Secret to the OGXServers referencing it.
func (m *Manager) secretOwners(o metav1.Object) []string {
	return m.referencing(caches.IndexSecrets, o)
}

// referencing looks o up in a reference index of the OGXServer informer.
func (m *Manager) referencing(index string, o metav1.Object) []string {
	sc := m.Caches.For(o.GetNamespace())
	if sc == nil {
		return nil
	}
	objs, err := sc.ServerInformer.GetIndexer().ByIndex(index, caches.Key(o.GetNamespace(), o.GetName()))
	if err != nil {
		return nil
	}
	keys := make([]string, 0, len(objs))
	for _, obj := range objs {
		if s, ok := obj.(*ogxv1beta1.OGXServer); ok {
			keys = append(keys, caches.Key(s.Namespace, s.Name))
		}
	}
	return keys
}
