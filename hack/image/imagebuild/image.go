// Package imagebuild assembles the ogx-controller OCI image without a
// container engine: it cross-compiles the controller for each platform,
// stacks the binary on a base layer it writes itself, and returns a
// multi-platform image index. The Dockerfile at the repository root builds
// the same image for those with Docker; dockerfile_test.go keeps the two in
// step.
//
// Every byte of the result is a function of the source tree, the Go
// toolchain, the pinned CA bundle and Options, so building twice gives the
// same index digest (docs/operations.md, Building the image).
package imagebuild

import (
	"context"
	"fmt"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// What the image runs and as whom. The Dockerfile's final stage names the
// same values (dockerfile_test.go).
const (
	// BinaryPath is where the controller lies in the image's root.
	BinaryPath = "/ogx-controller"
	// User is distroless's "nonroot" user and group, which the Dockerfile's
	// base provides and the base layer here writes into /etc/passwd and
	// /etc/group.
	User = "65532:65532"
	// Source is the repository the org.opencontainers.image.source label
	// names.
	Source = "https://github.com/ogx-k8s/ogx-controller"
	// License is the SPDX identifier of the LICENSE file.
	License = "Apache-2.0"
)

// Entrypoint is the image's entrypoint. There is no default Cmd: with no
// arguments ogx-controller runs the controller, and every install path
// passes "run" and its flags explicitly as the container's args.
func Entrypoint() []string { return []string{BinaryPath} }

// Platforms are the platforms the index holds, in index order.
func Platforms() []v1.Platform {
	return []v1.Platform{{OS: "linux", Architecture: "amd64"}, {OS: "linux", Architecture: "arm64"}}
}

// Options say what to build.
type Options struct {
	// Root is the repository root (the directory of the root go.mod).
	Root string
	// BinaryVersion is main.version in the binary, what --version prints
	// (the Makefile passes v$(VERSION), as for bin/ogx-controller).
	BinaryVersion string
	// Version is the release, the org.opencontainers.image.version label
	// (the Makefile's VERSION).
	Version string
	// Revision is the source commit, the org.opencontainers.image.revision
	// label.
	Revision string
	// Created is every timestamp in the image: the config's and history's
	// creation time and every file's modification time. A fixed value
	// (SOURCE_DATE_EPOCH) is what makes two builds identical.
	Created time.Time
	// Go is the go command to compile with ("go" when empty).
	Go string
}

// Build compiles the controller for every platform of Platforms and returns
// the OCI image index of one image per platform.
func Build(ctx context.Context, o Options) (v1.ImageIndex, error) {
	base, err := baseLayer(o.Created)
	if err != nil {
		return nil, fmt.Errorf("base layer: %w", err)
	}
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for _, p := range Platforms() {
		bin, err := compile(ctx, o, p)
		if err != nil {
			return nil, fmt.Errorf("compile for %s/%s: %w", p.OS, p.Architecture, err)
		}
		img, err := platformImage(o, p, base, bin)
		if err != nil {
			return nil, fmt.Errorf("image for %s/%s: %w", p.OS, p.Architecture, err)
		}
		p := p
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{
			Add:        img,
			Descriptor: v1.Descriptor{Platform: &p},
		})
	}
	return mutate.Annotations(idx, Labels(o)).(v1.ImageIndex), nil
}

// Labels are the image config's labels, repeated as the index's
// annotations so that registries showing only the index (GitHub's among
// them) link the image to its source.
func Labels(o Options) map[string]string {
	return map[string]string{
		"org.opencontainers.image.source":   Source,
		"org.opencontainers.image.version":  o.Version,
		"org.opencontainers.image.revision": o.Revision,
		"org.opencontainers.image.licenses": License,
	}
}

// platformImage is the image of one platform: the base layer, then the
// controller binary.
func platformImage(o Options, p v1.Platform, base v1.Layer, binary []byte) (v1.Image, error) {
	binLayer, err := tarLayer(o.Created, []file{{name: BinaryPath, mode: 0o555, data: binary}})
	if err != nil {
		return nil, err
	}
	created := v1.Time{Time: o.Created.UTC()}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	img, err = mutate.Append(img,
		mutate.Addendum{Layer: base, MediaType: types.OCILayer, History: v1.History{
			Created: created, CreatedBy: "imagebuild: /etc/passwd, /etc/group, CA certificates", Comment: "base"}},
		mutate.Addendum{Layer: binLayer, MediaType: types.OCILayer, History: v1.History{
			Created: created, CreatedBy: "imagebuild: go build ./cmd/ogx-controller " + LDFlags(o.BinaryVersion)}},
	)
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture, cf.Variant = p.OS, p.Architecture, p.Variant
	cf.Created = created
	cf.Config = v1.Config{
		User:       User,
		Entrypoint: Entrypoint(),
		WorkingDir: "/",
		Labels:     Labels(o),
	}
	return mutate.ConfigFile(img, cf)
}
