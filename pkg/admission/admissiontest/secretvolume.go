// Package admissiontest provides certificate directories for tests of the
// admission server: a writer that updates a directory the way the kubelet
// updates a Secret volume, and a comparison of served certificates. The
// certificates themselves come from pkg/testcerts.
package admissiontest

import (
	"bytes"
	"crypto/x509"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"time"
)

var generation atomic.Int64

// WriteSecretVolume writes files into dir as the kubelet writes a Secret
// volume, so a reader sees either the old or the new set, never a mix:
// the files live in a fresh hidden directory, the symlink "..data" is
// atomically re-pointed to it by a rename, and each visible name is a
// symlink through "..data". The previous hidden directory is removed.
// Every call must pass the same file names.
func WriteSecretVolume(dir string, files map[string][]byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	gen := "..gen_" + strconv.FormatInt(time.Now().UnixNano(), 10) + "_" + strconv.FormatInt(generation.Add(1), 10)
	if err := os.Mkdir(filepath.Join(dir, gen), 0o755); err != nil {
		return err
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, gen, name), data, 0o600); err != nil {
			return err
		}
	}
	dataLink := filepath.Join(dir, "..data")
	old, err := os.Readlink(dataLink)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	tmpLink := filepath.Join(dir, "..data_tmp")
	_ = os.Remove(tmpLink)
	if err := os.Symlink(gen, tmpLink); err != nil {
		return err
	}
	if err := os.Rename(tmpLink, dataLink); err != nil {
		return err
	}
	for name := range files {
		link := filepath.Join(dir, name)
		if _, err := os.Lstat(link); err == nil {
			continue
		}
		if err := os.Symlink(filepath.Join("..data", name), link); err != nil {
			return err
		}
	}
	if old != "" {
		return os.RemoveAll(filepath.Join(dir, old))
	}
	return nil
}

// SameCertificate reports whether two parsed certificates are the same
// certificate (false if either is nil).
func SameCertificate(a, b *x509.Certificate) bool {
	return a != nil && b != nil && bytes.Equal(a.Raw, b.Raw)
}
