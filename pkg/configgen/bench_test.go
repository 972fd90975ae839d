package configgen

import (
	"path/filepath"
	"testing"
)

// BenchmarkGenerateAllAPIs generates the golden case that populates all
// seven APIs, storage, models and both TLS features.
func BenchmarkGenerateAllAPIs(b *testing.B) {
	in, err := goldenInput(b, filepath.Join("testdata", "x06-all-apis-populated"))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Generate(&in.server.Spec, in.base); err != nil {
			b.Fatal(err)
		}
	}
}
