package imagebuild

import (
	"archive/tar"
	"bytes"
	"encoding/pem"
	"io"
	"path"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"golang.org/x/crypto/x509roots/fallback/bundle"
)

// CACertsPath is where Go's crypto/x509 looks first for the system's roots
// on Linux. The controller needs them to read base-config labels from
// public registries (docs/config-generation.md).
const CACertsPath = "/etc/ssl/certs/ca-certificates.crt"

// The user database a static Go binary consults (os/user without cgo reads
// these files): root, and distroless's nonroot user whose ids User names.
// nonroot's home is / because nothing in the image is writable: the root
// filesystem is read-only and the Deployment mounts only the admission
// certificates' emptyDir (config/manager/manager.yaml).
const (
	passwd = "root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/:/sbin/nologin\n"
	group  = "root:x:0:\nnonroot:x:65532:\n"
)

// baseLayer is what the binary needs around it: /etc/passwd, /etc/group
// and the CA certificates.
//
// The certificates come from the Go module golang.org/x/crypto/x509roots,
// the Mozilla NSS roots, pinned by go.sum, rather than from the build
// machine's /etc/ssl/certs: that file differs between distributions and
// changes with their updates, so the image's digest would depend on where
// it was built, and what the image trusts would change without a commit.
// Updating the bundle is a go.mod change that review sees.
func baseLayer(created time.Time) (v1.Layer, error) {
	certs, err := caCertificates()
	if err != nil {
		return nil, err
	}
	return tarLayer(created, []file{
		{name: "/etc/passwd", mode: 0o444, data: []byte(passwd)},
		{name: "/etc/group", mode: 0o444, data: []byte(group)},
		{name: CACertsPath, mode: 0o444, data: certs},
	})
}

// caCertificates is the PEM bundle of the NSS roots. Roots that NSS
// distrusts for certificates issued after a date are left out: a PEM file
// cannot carry that constraint, and trusting them without it would trust
// more than NSS does.
func caCertificates() ([]byte, error) {
	var b bytes.Buffer
	for r := range bundle.Roots() {
		if r.Constraint != nil {
			continue
		}
		if err := pem.Encode(&b, &pem.Block{Type: "CERTIFICATE", Bytes: r.Certificate}); err != nil {
			return nil, err
		}
	}
	return b.Bytes(), nil
}

// file is a regular file of a layer.
type file struct {
	name string // absolute path in the image
	mode int64
	data []byte
}

// tarLayer is a gzipped layer of files, each owned by root with mtime
// created, preceded by entries for their parent directories (root, 0755),
// so that nothing in it depends on the build machine's clock, users or
// umask.
func tarLayer(created time.Time, files []file) (v1.Layer, error) {
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	dirs := map[string]bool{}
	hdr := func(name string) tar.Header {
		return tar.Header{Name: name, Uid: 0, Gid: 0, Uname: "root", Gname: "root",
			ModTime: created.UTC()}
	}
	for _, f := range files {
		rel := strings.TrimPrefix(f.name, "/")
		var parents []string
		for d := path.Dir(rel); d != "."; d = path.Dir(d) {
			parents = append([]string{d}, parents...)
		}
		for _, d := range parents {
			if dirs[d] {
				continue
			}
			dirs[d] = true
			h := hdr(d + "/")
			h.Typeflag, h.Mode = tar.TypeDir, 0o755
			if err := tw.WriteHeader(&h); err != nil {
				return nil, err
			}
		}
		h := hdr(rel)
		h.Typeflag, h.Mode, h.Size = tar.TypeReg, f.mode, int64(len(f.data))
		if err := tw.WriteHeader(&h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	data := b.Bytes()
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(data)), nil
	})
}
