package main

import (
	"strings"
	"testing"
)

func TestServerSpecVariants(t *testing.T) {
	if s := serverSpec(nil); s.Distribution.Name == nil || *s.Distribution.Name != "starter" || s.Providers != nil {
		t.Errorf("name variant: %+v", s)
	}
	img, err := startRegistry()
	if err != nil {
		t.Fatal(err)
	}
	defer img.reg.Close()
	s := serverSpec(img)
	if s.Distribution.Image == nil || *s.Distribution.Image != img.image || !strings.HasSuffix(img.image, ":"+benchTag) {
		t.Errorf("oci-label variant names %v, want %s", s.Distribution.Image, img.image)
	}
	// Without providers the operator would not generate a config, and the
	// tag would never be resolved.
	if s.Providers == nil || len(s.Providers.Inference.Remote.Vllm) != 1 {
		t.Errorf("oci-label variant has no provider: %+v", s.Providers)
	}
	if tag, all := img.tagResolutions(); tag != 0 || all != 0 {
		t.Errorf("a fresh registry counts %d tag resolutions, %d requests", tag, all)
	}
}

func TestParseFlagsDistribution(t *testing.T) {
	if _, err := parseFlags([]string{"-distribution", "oci-label"}); err != nil {
		t.Error(err)
	}
	if _, err := parseFlags([]string{"-distribution", "tag"}); err == nil || !strings.Contains(err.Error(), "-distribution") {
		t.Errorf("an unknown variant: %v", err)
	}
}
