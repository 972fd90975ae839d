package crd

import (
	"os"
	"path/filepath"
	"testing"
)

// Every CRD under bases can be read by name, so a new CRD file cannot be
// forgotten in files.
func TestSchemaOfEveryCRD(t *testing.T) {
	entries, err := os.ReadDir("bases")
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(files) {
		t.Errorf("%d CRD files in bases, %d known to Schema", len(entries), len(files))
	}
	for name, file := range files {
		if _, err := os.Stat(filepath.Join(".", file)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	for _, c := range []struct{ name, version string }{
		{"llamastackdistributions.llamastack.io", "v1alpha1"},
		{"ogxservers.ogx.io", "v1beta1"},
	} {
		s, err := Schema(c.name, c.version)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := s.Properties["spec"]; !ok {
			t.Errorf("%s: schema without spec", c.name)
		}
	}
	if _, err := Schema("ogxservers.ogx.io", "v0"); err == nil {
		t.Errorf("an unknown version must be an error")
	}
}
