package render

import (
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

// CABundleConfigMap renders N-ca-bundle (docs/children.md, CA bundle
// ConfigMap). It is not immutable: the bundle changes in place, and the
// content hash on the pod template rolls the pods.
func CABundleConfigMap(s *ogxv1beta1.OGXServer, data string) *corev1ac.ConfigMapApplyConfiguration {
	return corev1ac.ConfigMap(CABundleName(s.Name), s.Namespace).
		WithLabels(CABundleLabels(s.Name)).
		WithOwnerReferences(ownerRefs(s)...).
		WithData(map[string]string{CABundleKey: data})
}

// GeneratedConfigMap renders the generated config ConfigMap name
// (GeneratedConfigName; docs/config-generation.md, Generated ConfigMap). It is
// immutable: the name is the content hash, so a new config is a new object
// and ReplicaSets still mounting an old one keep it until retention.
func GeneratedConfigMap(s *ogxv1beta1.OGXServer, name, configYAML string) *corev1ac.ConfigMapApplyConfiguration {
	return corev1ac.ConfigMap(name, s.Namespace).
		WithLabels(GeneratedConfigLabels(s.Name)).
		WithOwnerReferences(ownerRefs(s)...).
		WithImmutable(true).
		WithData(map[string]string{GeneratedConfigKey: configYAML})
}
