package webhookcerts

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestWriteFiles(t *testing.T) {
	f := newFixture(t)
	f.dir = filepath.Join(f.dir, "certs")
	f.m = f.manager(t, Options{CertDir: f.dir})
	ctx := f.ctx

	// No Secret yet: nothing written, no error.
	if changed, err := f.m.WriteFiles(ctx); err != nil || changed {
		t.Fatalf("WriteFiles without a Secret = %v, %v", changed, err)
	}
	if _, err := os.Stat(f.dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("certificate directory: %v", err)
	}

	s := f.ensure(t, true)
	if changed, err := f.m.WriteFiles(ctx); err != nil || !changed {
		t.Fatalf("WriteFiles = %v, %v; want a change", changed, err)
	}
	expectFiles(t, f.dir, s)
	info, err := os.Stat(filepath.Join(f.dir, TLSKeyKey))
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("tls.key mode %v", info.Mode().Perm())
	}

	if changed, err := f.m.WriteFiles(ctx); err != nil || changed {
		t.Fatalf("second WriteFiles = %v, %v; want no change", changed, err)
	}

	// After a renewal, the files follow.
	f.clock.Set(start.Add(ServingLifetime))
	s = f.ensure(t, true)
	if changed, err := f.m.WriteFiles(ctx); err != nil || !changed {
		t.Fatalf("WriteFiles after renewal = %v, %v; want a change", changed, err)
	}
	expectFiles(t, f.dir, s)

	// An unusable pair in the Secret is not written; the files stay.
	bad := s.DeepCopy()
	bad.Data[TLSKeyKey] = []byte("garbage")
	if _, err := f.kube.CoreV1().Secrets(testNS).Update(ctx, bad, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if changed, err := f.m.WriteFiles(ctx); err == nil || changed {
		t.Errorf("WriteFiles with a broken pair = %v, %v; want an error", changed, err)
	}
	expectFiles(t, f.dir, s)

	// A deleted Secret leaves the files alone.
	if err := f.kube.CoreV1().Secrets(testNS).Delete(ctx, DefaultSecretName, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if changed, err := f.m.WriteFiles(ctx); err != nil || changed {
		t.Errorf("WriteFiles without a Secret = %v, %v", changed, err)
	}
	expectFiles(t, f.dir, s)

}

func TestWriteFilesNeedsADirectory(t *testing.T) {
	f := newFixture(t)
	m, err := New(Options{Kube: f.kube, Namespace: testNS})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.WriteFiles(f.ctx); err == nil {
		t.Error("WriteFiles without CertDir succeeded")
	}
}

// expectFiles checks that dir holds exactly the Secret's pair and no
// leftover temporary files.
func expectFiles(t *testing.T, dir string, s *corev1.Secret) {
	t.Helper()
	for _, k := range []string{TLSCertKey, TLSKeyKey} {
		b, err := os.ReadFile(filepath.Join(dir, k))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b, s.Data[k]) {
			t.Errorf("%s differs from the Secret", k)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("directory holds %v, want tls.crt and tls.key only", names)
	}
}
