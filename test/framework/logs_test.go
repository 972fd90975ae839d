package framework

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestTailLines(t *testing.T) {
	long := make([]string, 5000)
	for i := range long {
		long[i] = "line " + strconv.Itoa(i) + " " + strings.Repeat("x", 40)
	}
	for _, tc := range []struct {
		name    string
		content string
		n       int
		want    []string
	}{
		{"empty", "", 3, nil},
		{"fewer lines than asked", "a\nb\n", 5, []string{"a", "b"}},
		{"no trailing newline", "a\nb\nc", 2, []string{"b", "c"}},
		{"exact", "a\nb\nc\n", 3, []string{"a", "b", "c"}},
		{"spans blocks", strings.Join(long, "\n") + "\n", 3, long[len(long)-3:]},
		{"many lines across blocks", strings.Join(long, "\n") + "\n", 2000, long[len(long)-2000:]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "log")
			if err := os.WriteFile(path, []byte(tc.content), 0o600); err != nil {
				t.Fatal(err)
			}
			got, err := tailLines(path, tc.n)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("tailLines(%d) = %d lines %q..., want %d lines", tc.n, len(got), head(got), len(tc.want))
			}
		})
	}
}

func head(s []string) []string { return s[:min(len(s), 3)] }
