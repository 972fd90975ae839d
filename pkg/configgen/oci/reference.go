package oci

import (
	"fmt"
	"net"
	"strings"

	"github.com/distribution/reference"
)

// imageRef is a parsed image reference.
type imageRef struct {
	// raw is the reference as written, used in messages.
	raw string
	// registry is the normalized domain (docker.io) and host the one
	// contacted (registry-1.docker.io).
	registry, host string
	// repo is the repository path (library/ubuntu).
	repo string
	// tag is the tag, "latest" by default; digest wins over it when set.
	tag, digest string
}

// parseReference parses an image reference: docker.io is contacted as
// registry-1.docker.io, the default tag is latest, a digest wins over a tag.
func parseReference(s string) (*imageRef, error) {
	named, err := reference.ParseNormalizedNamed(s)
	if err != nil {
		return nil, fmt.Errorf("invalid image reference %q", s)
	}
	r := &imageRef{raw: s, registry: reference.Domain(named), repo: reference.Path(named), tag: "latest"}
	r.host = r.registry
	if r.registry == "docker.io" || r.registry == "index.docker.io" {
		r.host = "registry-1.docker.io"
	}
	if t, ok := named.(reference.Tagged); ok {
		r.tag = t.Tag()
	}
	if d, ok := named.(reference.Digested); ok {
		r.digest = d.Digest().String()
	}
	return r, nil
}

// PinnedImage is status.resolvedDistribution.image: the reference as written
// with @<digest> appended, unchanged when it already has a digest or when
// no digest is known.
func PinnedImage(image, digest string) string {
	if digest == "" || strings.Contains(image, "@") {
		return image
	}
	return image + "@" + digest
}

// isLoopback reports whether host (with or without a port) is localhost or
// a loopback IP.
func isLoopback(host string) bool {
	h := host
	if hh, _, err := net.SplitHostPort(host); err == nil {
		h = hh
	}
	h = strings.Trim(h, "[]")
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}
