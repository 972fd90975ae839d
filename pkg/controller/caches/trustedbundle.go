package caches

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

// configMapsResource is the resource the trusted-bundle watch lists.
var configMapsResource = corev1.SchemeGroupVersion.WithResource("configmaps")

// WatchTrustedBundles adds to every scope a metadata-only informer of the
// ConfigMaps named odh-trusted-ca-bundle, labelled or not. The watched
// ConfigMap cache is label-filtered, so an unlabelled bundle would be
// invisible there, and a server would silently go without the cluster's
// CAs; this informer tells "absent" from "not labelled" without a live
// read on every pass. It costs one list and one watch per scope and holds
// at most one small object per namespace. Call it before Start; a nil
// client leaves the scopes without it (fake clientsets in tests).
func (c *Caches) WatchTrustedBundles(md metadata.Interface) {
	if md == nil {
		return
	}
	c.Each(func(s *Scope) {
		s.TrustedBundleFactory = metadatainformer.NewFilteredSharedInformerFactory(md, 0, s.Namespace,
			func(o *metav1.ListOptions) {
				o.FieldSelector = fields.OneTermEqualSelector("metadata.name", render.TrustedCABundleConfigMap).String()
			})
		s.TrustedBundles = s.TrustedBundleFactory.ForResource(configMapsResource).Informer()
		// Before the informer starts, setting its transform cannot fail.
		_ = s.TrustedBundles.SetTransform(trustedBundleView)
		s.informers = append(s.informers, s.TrustedBundles)
	})
}

// trustedBundleView keeps of a bundle's metadata only what the lookup and
// the event filter read: its key and whether it carries the watch label.
// Annotations (kubectl's last-applied copy of the whole data among them)
// and managedFields would only take memory.
func trustedBundleView(obj any) (any, error) {
	m, ok := obj.(*metav1.PartialObjectMetadata)
	if !ok {
		return obj, nil
	}
	out := &metav1.PartialObjectMetadata{TypeMeta: m.TypeMeta, ObjectMeta: metav1.ObjectMeta{
		Namespace: m.Namespace, Name: m.Name, UID: m.UID, ResourceVersion: m.ResourceVersion,
	}}
	if v, ok := m.Labels[ogxv1beta1.WatchLabel]; ok {
		out.Labels = map[string]string{ogxv1beta1.WatchLabel: v}
	}
	return out, nil
}

// HasUnwatchedTrustedBundle reports whether namespace ns holds an
// odh-trusted-ca-bundle ConfigMap without ogx.io/watch=true, which the
// watched cache therefore lacks. False when the scope has no metadata
// informer. A labelled bundle the watched cache has not seen yet is not
// reported: its own event comes shortly.
func (s *Scope) HasUnwatchedTrustedBundle(ns string) bool {
	if s.TrustedBundles == nil {
		return false
	}
	obj, ok, err := s.TrustedBundles.GetStore().GetByKey(ns + "/" + render.TrustedCABundleConfigMap)
	if err != nil || !ok {
		return false
	}
	m, ok := MetaOf(obj)
	return ok && !Watched(m)
}

// Watched reports whether an object carries ogx.io/watch=true.
func Watched(m metav1.Object) bool { return m.GetLabels()[ogxv1beta1.WatchLabel] == "true" }

// WatchLabelChanged filters trusted-bundle metadata updates to those that
// move the bundle in or out of the watched cache.
func WatchLabelChanged(old, cur any) bool {
	o, ok1 := MetaOf(old)
	c, ok2 := MetaOf(cur)
	return !ok1 || !ok2 || Watched(o) != Watched(c)
}
