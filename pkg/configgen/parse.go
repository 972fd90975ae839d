package configgen

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

// ParseServer decodes one OGXServer YAML (or JSON) document strictly:
// unknown and duplicate fields are errors, so a typo in an offline input is
// reported instead of silently changing the generated config.
func ParseServer(data []byte) (*v1beta1.OGXServer, error) {
	var s v1beta1.OGXServer
	if err := yaml.UnmarshalStrict(data, &s); err != nil {
		return nil, fmt.Errorf("invalid OGXServer: %w", err)
	}
	if gv := v1beta1.SchemeGroupVersion.String(); s.APIVersion != gv || s.Kind != "OGXServer" {
		return nil, fmt.Errorf("invalid OGXServer: apiVersion %q, kind %q; want %s OGXServer", s.APIVersion, s.Kind, gv)
	}
	return &s, nil
}

// BaseFromConfigMap returns the base config of spec.baseConfig from its
// ConfigMap: data[key], else binaryData[key], and whether the key exists.
// An empty value is returned as is; Generate reports it as a parse error.
// The message of a missing key is the caller's (the controller and render
// share resolve.MissingConfigMapKeyMessage).
func BaseFromConfigMap(cm *corev1.ConfigMap, key string) ([]byte, bool) {
	if v, ok := cm.Data[key]; ok {
		return []byte(v), true
	}
	if v, ok := cm.BinaryData[key]; ok {
		return v, true
	}
	return nil, false
}

// Sources of a base config, for status.resolvedDistribution.configSource.
const (
	SourceConfigMap = "configmap"
	SourceOCILabel  = "oci-label"
)
