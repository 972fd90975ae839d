package admissiontest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ogx-k8s/ogx-controller/pkg/testcerts"
)

// read returns the visible files of dir, resolved through their links.
func read(t *testing.T, dir string, names ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, n := range names {
		data, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		out[n] = string(data)
	}
	return out
}

func TestWriteSecretVolumeReplacesTheWholeSet(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "vol")
	first := map[string][]byte{"tls.crt": []byte("cert 1"), "tls.key": []byte("key 1")}
	second := map[string][]byte{"tls.crt": []byte("cert 2"), "tls.key": []byte("key 2")}
	if err := WriteSecretVolume(dir, first); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(map[string]string{"tls.crt": "cert 1", "tls.key": "key 1"}, read(t, dir, "tls.crt", "tls.key")); d != "" {
		t.Errorf("after the first write (-want +got):\n%s", d)
	}
	firstGen, err := os.Readlink(filepath.Join(dir, "..data"))
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteSecretVolume(dir, second); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(map[string]string{"tls.crt": "cert 2", "tls.key": "key 2"}, read(t, dir, "tls.crt", "tls.key")); d != "" {
		t.Errorf("after the second write (-want +got):\n%s", d)
	}
	for _, n := range []string{"tls.crt", "tls.key"} {
		if target, err := os.Readlink(filepath.Join(dir, n)); err != nil || target != filepath.Join("..data", n) {
			t.Errorf("%s links to %q (%v), want a link through ..data", n, target, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, firstGen)); !os.IsNotExist(err) {
		t.Errorf("the first generation %s is still there (%v)", firstGen, err)
	}
}

func TestSameCertificate(t *testing.T) {
	ca, err := testcerts.NewCA("ca")
	if err != nil {
		t.Fatal(err)
	}
	a, err := ca.Issue(testcerts.Leaf{CommonName: "a"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := ca.Issue(testcerts.Leaf{CommonName: "a"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		same bool
		got  bool
	}{
		{"itself", true, SameCertificate(a.Leaf, a.Leaf)},
		{"another issue for the same name", false, SameCertificate(a.Leaf, b.Leaf)},
		{"nil", false, SameCertificate(a.Leaf, nil)},
	}
	for _, tt := range tests {
		if tt.got != tt.same {
			t.Errorf("%s: SameCertificate = %v, want %v", tt.name, tt.got, tt.same)
		}
	}
}
