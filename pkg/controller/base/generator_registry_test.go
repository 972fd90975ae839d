package base

import (
	"testing"

	"github.com/ogx-k8s/ogx-controller/pkg/configgen/oci/ocitest"
)

// labelRegistry is the loopback registry of these tests: repo team/ogx,
// whose tag 1.0 first names an image whose labels carry genBase
// (manifestDigest) and moves with push.
type labelRegistry struct {
	*ocitest.Registry
	manifestDigest string
}

const (
	genBase = "version: 2\napis: [inference]\n"
	genRepo = "team/ogx"
	genTag  = "1.0"
)

func newLabelRegistry(t *testing.T) *labelRegistry {
	t.Helper()
	f := &labelRegistry{Registry: ocitest.New()}
	t.Cleanup(f.Close)
	f.manifestDigest = f.push(t, genBase)
	return f
}

// push stores an image whose labels carry base, moves tag 1.0 to it and
// returns its manifest digest.
func (f *labelRegistry) push(t *testing.T, base string) string {
	t.Helper()
	d, err := f.Push(genRepo, genTag, base)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// tagHeads is how many times the tag was resolved.
func (f *labelRegistry) tagHeads() int { return f.TagRequests(genRepo, genTag) }

func (f *labelRegistry) image() string { return f.Image(genRepo, genTag) }

func (f *labelRegistry) set(failing bool, hold chan struct{}) {
	f.Fail(failing)
	f.Hold(hold)
}

func (f *labelRegistry) count() int { return f.Requests() }
