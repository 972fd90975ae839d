package ocitest

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ogx-k8s/ogx-controller/pkg/configgen/oci"
)

// TestRegistryMovesTags resolves a tag with the project's own resolver
// before and after a push moves it, and checks what the registry counted.
func TestRegistryMovesTags(t *testing.T) {
	reg := New()
	defer reg.Close()
	res, err := oci.NewResolver(oci.Options{})
	if err != nil {
		t.Fatal(err)
	}
	type seen struct {
		Digest, Config string
		TagRequests    int
	}
	resolve := func() seen {
		t.Helper()
		r, err := res.Resolve(t.Context(), reg.Image("ogx/starter", "latest"))
		if err != nil {
			t.Fatalf("resolving: %v", err)
		}
		return seen{r.Digest, string(r.Config), reg.TagRequests("ogx/starter", "latest")}
	}
	a, err := reg.Push("ogx/starter", "latest", "version: 2\n")
	if err != nil {
		t.Fatal(err)
	}
	first := resolve()
	b, err := reg.Push("ogx/starter", "latest", "version: 3\n")
	if err != nil {
		t.Fatal(err)
	}
	second := resolve()
	if a == b {
		t.Fatalf("two different bases share digest %s", a)
	}
	if first.TagRequests == 0 || second.TagRequests <= first.TagRequests {
		t.Errorf("tag requests %d then %d, want each resolution counted", first.TagRequests, second.TagRequests)
	}
	got := []seen{{first.Digest, first.Config, 0}, {second.Digest, second.Config, 0}}
	want := []seen{{a, "version: 2\n", 0}, {b, "version: 3\n", 0}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("resolutions (-want +got):\n%s", diff)
	}
	if _, err := res.Resolve(t.Context(), reg.Host()+"/ogx/starter@"+a); err != nil {
		t.Errorf("resolving the old digest after the tag moved: %v", err)
	}
	if n := reg.TagRequests("ogx/starter", "latest"); n != second.TagRequests {
		t.Errorf("a digest reference counted as a tag request: %d, want %d", n, second.TagRequests)
	}
	reg.Fail(true)
	if _, err := res.Resolve(t.Context(), reg.Image("ogx/starter", "latest")); err == nil {
		t.Error("a failing registry resolved the tag")
	}
}
