package imagebuild

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// LDFlags are the linker flags of the image's binary: the Dockerfile's
// (symbols and DWARF stripped, which the image has no use for) with the
// version stamped as the Makefile stamps bin/ogx-controller.
func LDFlags(version string) string {
	return "-s -w -X main.version=" + version
}

// compile cross-compiles ./cmd/ogx-controller of o.Root for p and returns
// the binary. CGO is off so the binary is static and needs no libc in the
// image; -trimpath keeps the build directory out of it, so the same source
// compiles to the same bytes wherever it is checked out. Go's build cache
// makes a second build of unchanged sources quick.
func compile(ctx context.Context, o Options, p v1.Platform) ([]byte, error) {
	goCmd := o.Go
	if goCmd == "" {
		goCmd = "go"
	}
	dir, err := os.MkdirTemp("", "ogx-image-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "ogx-controller")
	cmd := exec.CommandContext(ctx, goCmd, "build", "-trimpath", "-buildvcs=false", "-ldflags", LDFlags(o.BinaryVersion),
		"-o", out, "./cmd/ogx-controller")
	cmd.Dir = o.Root
	// The caller's environment may set the instruction-set level or extra
	// flags (GOAMD64=v3, GOFLAGS=-race, ...), which would change the bytes,
	// and so the digest, or give a binary that older CPUs cannot run: the
	// image's are set here to the baseline each architecture guarantees.
	// -buildvcs=false keeps a dirty checkout's VCS stamp out of it too.
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+p.OS, "GOARCH="+p.Architecture,
		"GOAMD64=v1", "GOARM64=v8.0", "GOFLAGS=", "GOEXPERIMENT=")
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s: %w\n%s", cmd, err, stderr.Bytes())
	}
	return os.ReadFile(out)
}
