package imagebuild

import (
	"context"
	"fmt"
	"os"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// RefNameAnnotation names an image in an OCI layout's index.json; tools
// that read layouts (skopeo's oci:DIR:REF, crane) select images by it.
const RefNameAnnotation = "org.opencontainers.image.ref.name"

// WriteLayout replaces dir with an OCI image layout whose index.json holds
// one entry, idx, annotated with ref (e.g.
// ghcr.io/ogx-k8s/ogx-controller:v0.1.0).
func WriteLayout(dir string, idx v1.ImageIndex, ref string) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return fmt.Errorf("write layout %s: %w", dir, err)
	}
	if err := p.AppendIndex(idx, layout.WithAnnotations(map[string]string{RefNameAnnotation: ref})); err != nil {
		return fmt.Errorf("write layout %s: %w", dir, err)
	}
	return nil
}

// ReadLayout returns the image index WriteLayout wrote to dir and the
// reference it was annotated with.
func ReadLayout(dir string) (v1.ImageIndex, string, error) {
	top, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		return nil, "", fmt.Errorf("read layout %s: %w", dir, err)
	}
	m, err := top.IndexManifest()
	if err != nil {
		return nil, "", fmt.Errorf("read layout %s: %w", dir, err)
	}
	if len(m.Manifests) != 1 {
		return nil, "", fmt.Errorf("layout %s: index.json has %d entries, want the one image index make image writes", dir, len(m.Manifests))
	}
	d := m.Manifests[0]
	if !d.MediaType.IsIndex() {
		return nil, "", fmt.Errorf("layout %s: index.json's entry is a %s, want an image index", dir, d.MediaType)
	}
	idx, err := top.ImageIndex(d.Digest)
	if err != nil {
		return nil, "", fmt.Errorf("read layout %s: %w", dir, err)
	}
	return idx, d.Annotations[RefNameAnnotation], nil
}

// Push writes idx, its images and their blobs to the registry of ref.
// Options carry the credentials (the CLI passes the default keychain:
// docker login's config, credential helpers).
func Push(ctx context.Context, idx v1.ImageIndex, ref string, opts ...remote.Option) (name.Reference, error) {
	r, err := name.ParseReference(ref)
	if err != nil {
		return nil, fmt.Errorf("image reference %q: %w", ref, err)
	}
	if err := remote.WriteIndex(r, idx, append([]remote.Option{remote.WithContext(ctx)}, opts...)...); err != nil {
		return nil, fmt.Errorf("push %s: %w", r, err)
	}
	return r, nil
}
