package render

import (
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

// CABundleConfigMap renders N-ca-bundle (docs/children.md, CA bundle
// ConfigMap) holding the assembled bundle under ca-bundle.crt. It is not
// immutable: the bundle changes in place when a source changes, and the
// content hash on the pod template rolls the pods.
func CABundleConfigMap(s *ogxv1beta1.OGXServer, data string) *corev1ac.ConfigMapApplyConfiguration {
	return corev1ac.ConfigMap(CABundleName(s.Name), s.Namespace).
		WithLabels(CABundleLabels(s.Name)).
		WithOwnerReferences(ownerRefs(s)...).
		WithData(map[string]string{CABundleKey: data})
}

// GeneratedConfigMap renders a generated config ConfigMap
// (docs/config-generation.md, Generated ConfigMap). name is N-config-<h16 of
// configYAML> (GeneratedConfigName). It is immutable: the name is the content
// hash, so a new config is a new object, and the old ones stay available to
// ReplicaSets that still mount them until retention removes them.
func GeneratedConfigMap(s *ogxv1beta1.OGXServer, name string, configYAML string) *corev1ac.ConfigMapApplyConfiguration {
	return corev1ac.ConfigMap(name, s.Namespace).
		WithLabels(GeneratedConfigLabels(s.Name)).
		WithOwnerReferences(ownerRefs(s)...).
		WithImmutable(true).
		WithData(map[string]string{GeneratedConfigKey: configYAML})
}
