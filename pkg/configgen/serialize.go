package configgen

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	yaml "go.yaml.in/yaml/v3"
)

// marshalConfig serializes the merged tree with yaml.v3's defaults: 4-space
// indent, no wrapping, the encoder's own key order. All maps are plain Go maps
// so that order applies everywhere.
func marshalConfig(tree map[string]any) (data []byte, err error) {
	// yaml.v3 reports some unencodable values by panicking; a base config
	// must never crash a controller.
	defer func() {
		if r := recover(); r != nil {
			data, err = nil, fmt.Errorf("failed to serialize config: %v", r)
		}
	}()
	data, err = yaml.Marshal(tree)
	if err != nil {
		return nil, fmt.Errorf("failed to serialize config: %w", err)
	}
	return data, nil
}

// ConfigHash is status.resolvedDistribution.configHash of a base config:
// "sha256:" and the full hex digest.
func ConfigHash(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}
