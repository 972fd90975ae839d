package events

import "testing"

// TestTruncateUTF8: cut to at most n bytes, never inside a character.
func TestTruncateUTF8(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"abc", 5, "abc"},
		{"abc", 3, "abc"},
		{"abc", 2, "ab"},
		{"aé", 1, "a"},
		{"aé", 2, "a"},
		{"aé", 3, "aé"},
		{"€", 2, ""},
		{"", 0, ""},
	} {
		if got := TruncateUTF8(tc.in, tc.n); got != tc.want {
			t.Errorf("TruncateUTF8(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}
