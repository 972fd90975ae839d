package oci

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
)

// The labels a distribution image carries its base config in
// (docs/config-generation.md, From image labels).
const (
	LabelDefaultConfig = "com.ogx.distribution.default-config"
	LabelConfigPrefix  = "com.ogx.config."
	LabelConfigs       = "com.ogx.distribution.configs"
)

// baseFromConfigBlob reads the base config out of an image config blob: the
// file name F from the default-config label, then the base64 text of the
// label com.ogx.config.<F>.
func baseFromConfigBlob(blob []byte, image string) ([]byte, string, error) {
	var cfg struct {
		Config struct {
			Labels map[string]string `json:"Labels"`
		} `json:"config"`
	}
	if err := json.Unmarshal(blob, &cfg); err != nil {
		return nil, "", fmt.Errorf("decoding image config of %s: %w", image, err)
	}
	labels := cfg.Config.Labels
	name := strings.TrimSpace(labels[LabelDefaultConfig])
	if name == "" {
		return nil, "", fmt.Errorf("image %s has no label %s", image, LabelDefaultConfig)
	}
	text, ok := labels[LabelConfigPrefix+name]
	if !ok {
		avail := labels[LabelConfigs]
		if avail == "" {
			avail = "none listed"
		}
		return nil, "", fmt.Errorf("image %s has no label %s%s (%s: %s)", image, LabelConfigPrefix, name, LabelConfigs, avail)
	}
	data, err := decodeBase64(text)
	if err != nil {
		return nil, "", fmt.Errorf("label %s%s is not valid base64: %w", LabelConfigPrefix, name, err)
	}
	if len(data) > MaxBaseConfig {
		return nil, "", fmt.Errorf("label %s%s of image %s holds a config of %d bytes, over the %d a generated config may start from (it must fit a ConfigMap)",
			LabelConfigPrefix, name, image, len(data), MaxBaseConfig)
	}
	return data, name, nil
}

// MaxBaseConfig bounds a base config read from labels: the generated
// config is stored in a ConfigMap, which holds at most 1 MiB, so a larger
// base could never be used. It also bounds what one cached resolution
// holds (cache.go).
const MaxBaseConfig = 1 << 20

// decodeBase64 decodes the standard alphabet with optional padding after
// stripping ASCII whitespace.
func decodeBase64(s string) ([]byte, error) {
	s = strings.Map(func(r rune) rune {
		switch r {
		case ' ', '\t', '\n', '\r', '\f', '\v':
			return -1
		}
		return r
	}, s)
	return base64.RawStdEncoding.DecodeString(strings.TrimRight(s, "="))
}
