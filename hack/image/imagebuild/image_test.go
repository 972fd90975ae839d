package imagebuild_test

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/x509"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/validate"

	"github.com/ogx-k8s/ogx-controller/hack/image/imagebuild"
)

const testRef = "ghcr.io/ogx-k8s/ogx-controller:v0.0.0-test"

// testOptions builds from this repository with values no real build uses,
// so a check cannot pass by finding a default.
func testOptions() imagebuild.Options {
	return imagebuild.Options{
		Root:          "../../..",
		Version:       "0.0.0-test",
		BinaryVersion: "v0.0.0-test-g0123456",
		Revision:      "0123456789abcdef0123456789abcdef01234567",
		Created:       time.Unix(1700000000, 0).UTC(),
	}
}

// buildLayout builds the image into a new OCI layout and reads it back, so
// the checks see what make image leaves on disk.
func buildLayout(t *testing.T, ctx context.Context) v1.ImageIndex {
	t.Helper()
	idx, err := imagebuild.Build(ctx, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "image")
	if err := imagebuild.WriteLayout(dir, idx, testRef); err != nil {
		t.Fatal(err)
	}
	got, ref, err := imagebuild.ReadLayout(dir)
	if err != nil {
		t.Fatal(err)
	}
	if ref != testRef {
		t.Errorf("layout's %s = %q, want %q", imagebuild.RefNameAnnotation, ref, testRef)
	}
	return got
}

// entry is a file of a layer.
type entry struct {
	hdr  *tar.Header
	data []byte
}

// layerFiles reads every entry of every layer of img, by path without the
// leading "/" or a trailing "/"; a path in two layers fails the test.
func layerFiles(t *testing.T, img v1.Image) map[string]entry {
	t.Helper()
	layers, err := img.Layers()
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]entry{}
	for _, l := range layers {
		rc, err := l.Uncompressed()
		if err != nil {
			t.Fatal(err)
		}
		tr := tar.NewReader(rc)
		for {
			h, err := tr.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			data, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			p := strings.Trim(h.Name, "/")
			if _, dup := files[p]; dup {
				t.Errorf("%s is in two layers", p)
			}
			files[p] = entry{hdr: h, data: data}
		}
		rc.Close()
	}
	return files
}

// TestImage builds the image as make image does and checks what the
// Deployment (config/manager/manager.yaml) relies on: both platforms, the
// non-root user and the entrypoint, a root filesystem with nothing to write
// and nothing but the binary and what it reads, binaries that run, and a
// digest that depends on the source only and survives a registry.
func TestImage(t *testing.T) {
	ctx := t.Context()
	idx := buildLayout(t, ctx)
	m, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	images := map[string]v1.Image{}
	var platforms []string
	for _, d := range m.Manifests {
		if d.Platform == nil {
			t.Fatalf("manifest %s has no platform", d.Digest)
		}
		platforms = append(platforms, d.Platform.String())
		img, err := idx.Image(d.Digest)
		if err != nil {
			t.Fatal(err)
		}
		images[d.Platform.Architecture] = img
	}

	t.Run("platforms", func(t *testing.T) {
		if diff := cmp.Diff([]string{"linux/amd64", "linux/arm64"}, platforms); diff != "" {
			t.Errorf("index platforms (-want +got):\n%s", diff)
		}
	})

	t.Run("config", func(t *testing.T) {
		o := testOptions()
		for arch, img := range images {
			cf, err := img.ConfigFile()
			if err != nil {
				t.Fatal(err)
			}
			if cf.OS != "linux" || cf.Architecture != arch {
				t.Errorf("%s: config is for %s/%s", arch, cf.OS, cf.Architecture)
			}
			want := v1.Config{
				User:       "65532:65532",
				Entrypoint: []string{"/ogx-controller"},
				WorkingDir: "/",
				Labels: map[string]string{
					"org.opencontainers.image.source":   "https://github.com/ogx-k8s/ogx-controller",
					"org.opencontainers.image.version":  o.Version,
					"org.opencontainers.image.revision": o.Revision,
					"org.opencontainers.image.licenses": "Apache-2.0",
				},
			}
			if diff := cmp.Diff(want, cf.Config); diff != "" {
				t.Errorf("%s: config (-want +got):\n%s", arch, diff)
			}
			if !cf.Created.Time.Equal(o.Created) {
				t.Errorf("%s: created %s, want %s", arch, cf.Created, o.Created)
			}
		}
	})

	t.Run("files", func(t *testing.T) {
		// Every path, its type and its mode: owned by root, writable by no
		// one else, and nothing besides the binary and what it reads.
		want := map[string]string{
			"etc":                               "dir 755",
			"etc/passwd":                        "file 444",
			"etc/group":                         "file 444",
			"etc/ssl":                           "dir 755",
			"etc/ssl/certs":                     "dir 755",
			"etc/ssl/certs/ca-certificates.crt": "file 444",
			"ogx-controller":                    "file 555",
		}
		for arch, img := range images {
			files := layerFiles(t, img)
			got := map[string]string{}
			for p, e := range files {
				kind := map[byte]string{tar.TypeDir: "dir", tar.TypeReg: "file"}[e.hdr.Typeflag]
				if kind == "" {
					kind = "type " + string(e.hdr.Typeflag)
				}
				got[p] = kind + " " + modeString(e.hdr.Mode)
				if e.hdr.Uid != 0 || e.hdr.Gid != 0 {
					t.Errorf("%s: %s is owned by %d:%d, want root", arch, p, e.hdr.Uid, e.hdr.Gid)
				}
				if e.hdr.Mode&0o022 != 0 {
					t.Errorf("%s: %s is writable by group or others (%s)", arch, p, modeString(e.hdr.Mode))
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s: root filesystem (-want +got):\n%s", arch, diff)
			}
			if !bytes.Contains(files["etc/passwd"].data, []byte("\nnonroot:x:65532:65532:")) {
				t.Errorf("%s: /etc/passwd has no nonroot user 65532:65532:\n%s", arch, files["etc/passwd"].data)
			}
			if !bytes.Contains(files["etc/group"].data, []byte("\nnonroot:x:65532:")) {
				t.Errorf("%s: /etc/group has no nonroot group 65532:\n%s", arch, files["etc/group"].data)
			}
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(files["etc/ssl/certs/ca-certificates.crt"].data) {
				t.Errorf("%s: no certificate in /etc/ssl/certs/ca-certificates.crt", arch)
			}
		}
	})

	t.Run("binaries", func(t *testing.T) {
		machines := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}
		for arch, img := range images {
			bin := layerFiles(t, img)["ogx-controller"].data
			f, err := elf.NewFile(bytes.NewReader(bin))
			if err != nil {
				t.Errorf("%s: /ogx-controller is not an ELF file: %v", arch, err)
				continue
			}
			if f.Machine != machines[arch] {
				t.Errorf("%s: /ogx-controller is for %s, want %s", arch, f.Machine, machines[arch])
			}
			for _, p := range f.Progs {
				if p.Type == elf.PT_INTERP {
					t.Errorf("%s: /ogx-controller is dynamically linked; the image has no libc", arch)
				}
			}
			if arch != runtime.GOARCH || runtime.GOOS != "linux" {
				continue
			}
			path := filepath.Join(t.TempDir(), "ogx-controller")
			if err := os.WriteFile(path, bin, 0o755); err != nil {
				t.Fatal(err)
			}
			out, err := exec.CommandContext(ctx, path, "--version").CombinedOutput()
			if err != nil {
				t.Errorf("%s: /ogx-controller --version: %v\n%s", arch, err, out)
			}
			if got, want := strings.TrimSpace(string(out)), testOptions().BinaryVersion; got != want {
				t.Errorf("%s: /ogx-controller --version printed %q, want %q", arch, got, want)
			}
		}
	})

	d1, err := idx.Digest()
	if err != nil {
		t.Fatal(err)
	}

	t.Run("reproducible", func(t *testing.T) {
		d2, err := buildLayout(t, ctx).Digest()
		if err != nil {
			t.Fatal(err)
		}
		if d1 != d2 {
			t.Errorf("two builds of the same source: index %s, then %s", d1, d2)
		}
	})

	t.Run("push", func(t *testing.T) {
		// An in-memory registry on the loopback address.
		srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
		t.Cleanup(srv.Close)
		ref := strings.TrimPrefix(srv.URL, "http://") + "/ogx-k8s/ogx-controller:v0.0.0-test"
		if _, err := imagebuild.Push(ctx, idx, ref); err != nil {
			t.Fatal(err)
		}
		r, err := name.ParseReference(ref)
		if err != nil {
			t.Fatal(err)
		}
		pulled, err := remote.Index(r, remote.WithContext(ctx))
		if err != nil {
			t.Fatal(err)
		}
		d, err := pulled.Digest()
		if err != nil {
			t.Fatal(err)
		}
		if d != d1 {
			t.Errorf("pulled index %s, pushed %s", d, d1)
		}
		// Every manifest, config and layer is in the registry and matches
		// its digest.
		if err := validate.Index(pulled); err != nil {
			t.Errorf("pulled index: %v", err)
		}
	})
}

// modeString is a tar header's mode in octal, e.g. 755.
func modeString(mode int64) string {
	return fmt.Sprintf("%o", mode&0o7777)
}
