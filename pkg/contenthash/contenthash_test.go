package contenthash

import "testing"

// TestH16 uses the standard SHA-256 test vectors; the generated-config
// vector (its bytes and hash) is pinned in pkg/configgen.
func TestH16(t *testing.T) {
	for in, want := range map[string]string{
		"":    "e3b0c44298fc1c14",
		"abc": "ba7816bf8f01cfea",
	} {
		if got := H16([]byte(in)); got != want {
			t.Errorf("H16(%q) = %s, want %s", in, got, want)
		}
	}
}
