package oci

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"mime"
	"regexp"
	"strings"
)

// Manifest media types, the Accept list of manifest requests and the body
// limits (docs/config-generation.md, Registry access).
const (
	mtOCIIndex        = "application/vnd.oci.image.index.v1+json"
	mtDockerList      = "application/vnd.docker.distribution.manifest.list.v2+json"
	mtOCIManifest     = "application/vnd.oci.image.manifest.v1+json"
	mtDockerManifest  = "application/vnd.docker.distribution.manifest.v2+json"
	mtDockerSchema1   = "application/vnd.docker.distribution.manifest.v1+json"
	mtDockerSchema1JW = "application/vnd.docker.distribution.manifest.v1+prettyjws"

	acceptManifests = mtOCIIndex + ", " + mtDockerList + ", " + mtOCIManifest + ", " + mtDockerManifest

	maxManifestBody = 4 << 20
	maxConfigBody   = 4 << 20
)

// manifest is an image index or an image manifest; the kind decides which
// fields are used.
type manifest struct {
	SchemaVersion int          `json:"schemaVersion"`
	MediaType     string       `json:"mediaType"`
	Manifests     []descriptor `json:"manifests"`
	Config        *descriptor  `json:"config"`

	isIndex bool
}

type descriptor struct {
	MediaType string    `json:"mediaType"`
	Digest    string    `json:"digest"`
	Platform  *platform `json:"platform"`
}

type platform struct {
	OS           string `json:"os"`
	Architecture string `json:"architecture"`
	Variant      string `json:"variant"`
}

func (p platform) String() string {
	if p.Variant != "" {
		return p.OS + "/" + p.Architecture + "/" + p.Variant
	}
	return p.OS + "/" + p.Architecture
}

// parsePlatform parses os/arch[/variant].
func parsePlatform(s string) (platform, error) {
	parts := strings.Split(s, "/")
	if len(parts) < 2 || len(parts) > 3 || parts[0] == "" || parts[1] == "" {
		return platform{}, fmt.Errorf("invalid platform %q: want os/arch[/variant]", s)
	}
	p := platform{OS: parts[0], Architecture: parts[1]}
	if len(parts) == 3 {
		p.Variant = parts[2]
	}
	return p, nil
}

// kind classifies a media type: index, image manifest, or unsupported.
func kind(mt string) (isIndex, known bool, err error) {
	switch mt {
	case mtOCIIndex, mtDockerList:
		return true, true, nil
	case mtOCIManifest, mtDockerManifest:
		return false, true, nil
	case mtDockerSchema1, mtDockerSchema1JW:
		return false, true, fmt.Errorf("unsupported manifest media type %s", mt)
	}
	return false, false, nil
}

// parseManifest decodes a manifest body. The kind comes from Content-Type;
// when that is missing or generic, from the body's mediaType, else from the
// presence of manifests (index) or config (image manifest).
func parseManifest(contentType string, body []byte) (*manifest, error) {
	mt, _, _ := mime.ParseMediaType(contentType)
	var m manifest
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, fmt.Errorf("decoding manifest: %w", err)
	}
	isIndex, known, err := kind(mt)
	if err != nil {
		return nil, err
	}
	if !known && !genericType(mt) {
		return nil, fmt.Errorf("unsupported manifest media type %s", mt)
	}
	if !known {
		switch {
		case m.MediaType != "":
			if isIndex, known, err = kind(m.MediaType); err != nil {
				return nil, err
			}
			if !known {
				return nil, fmt.Errorf("unsupported manifest media type %s", m.MediaType)
			}
		case m.SchemaVersion == 1:
			return nil, fmt.Errorf("unsupported manifest media type %s", mtDockerSchema1)
		case m.Manifests != nil:
			isIndex = true
		case m.Config != nil:
		default:
			return nil, fmt.Errorf("unsupported manifest media type %q: neither an index nor an image manifest", mt)
		}
	}
	m.isIndex = isIndex
	if !isIndex && (m.Config == nil || m.Config.Digest == "") {
		return nil, fmt.Errorf("image manifest has no config descriptor")
	}
	// The digest becomes a request path before the blob is verified
	// against it: nothing but a sha256 digest may get there.
	if !isIndex && !sha256Digest.MatchString(m.Config.Digest) {
		return nil, fmt.Errorf("image manifest config digest %q is not a sha256 digest", m.Config.Digest)
	}
	return &m, nil
}

func genericType(mt string) bool {
	switch mt {
	case "", "application/json", "text/plain", "application/octet-stream":
		return true
	}
	return false
}

// selectPlatform picks an index entry (docs/config-generation.md, Platform
// selection): an exact os/arch match (variant too when both sides give one),
// else the first linux entry with a warning. Attestations (unknown/unknown)
// are never picked.
func selectPlatform(entries []descriptor, want platform, image string) (descriptor, string, error) {
	var fallback *descriptor
	for i := range entries {
		e := &entries[i]
		p := e.Platform
		if p == nil || (p.OS == "unknown" && p.Architecture == "unknown") {
			continue
		}
		if p.OS == want.OS && p.Architecture == want.Architecture &&
			(want.Variant == "" || p.Variant == "" || p.Variant == want.Variant) {
			return *e, "", nil
		}
		if fallback == nil && p.OS == "linux" {
			fallback = e
		}
	}
	if fallback != nil {
		p := fallback.Platform
		return *fallback, fmt.Sprintf("no %s manifest in index; used %s/%s", want, p.OS, p.Architecture), nil
	}
	return descriptor{}, "", fmt.Errorf("image index %s has no manifest for platform %s", image, want)
}

var sha256Digest = regexp.MustCompile(`^sha256:[a-f0-9]{64}$`)

// verify checks that body hashes to digest; only sha256 digests are
// accepted.
func verify(digest string, body []byte) error {
	if !sha256Digest.MatchString(digest) {
		return fmt.Errorf("unsupported digest %q (want sha256:<64 hex>)", digest)
	}
	if digestOf(body) != digest {
		return fmt.Errorf("digest mismatch for %s", digest)
	}
	return nil
}

func digestOf(body []byte) string {
	sum := sha256.Sum256(body)
	return "sha256:" + hex.EncodeToString(sum[:])
}
