// Package contenthash is the content hash that names generated ConfigMaps
// and fills the rollout annotations, so that only a change of content rolls
// pods. It is a leaf: config generation and rendering both use it without
// depending on each other.
package contenthash

import (
	"crypto/sha256"
	"encoding/hex"
)

// H16 is the lowercase hex of the first 8 bytes of the SHA-256 of b.
func H16(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}
