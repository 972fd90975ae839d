package base

import (
	"slices"
	"testing"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/record"
	"github.com/ogx-k8s/ogx-controller/pkg/resolve"
)

// TestConfigMemoKeepsNewestGeneration: a pass that read an older generation
// and finishes late does not take the memo back; a new base at the same
// generation replaces the entry and tells status.
func TestConfigMemoKeepsNewestGeneration(t *testing.T) {
	r := record.New()
	m := newConfigMemo(r)
	var told []string
	r.AddHandler(func(key string) { told = append(told, key) })
	m.put("u", "ns/s", memoKey{generation: 2, base: "a"}, resolve.GeneratedConfig{Hash: "two"})
	m.put("u", "ns/s", memoKey{generation: 1, base: "a"}, resolve.GeneratedConfig{Hash: "one"})
	if g, ok := m.Current("u", 2); !ok || g.Hash != "two" {
		t.Errorf("current(2) = %+v, %v; want the generation 2 entry", g, ok)
	}
	m.put("u", "ns/s", memoKey{generation: 2, base: "a"}, resolve.GeneratedConfig{Hash: "two"})
	m.put("u", "ns/s", memoKey{generation: 2, base: "b"}, resolve.GeneratedConfig{Hash: "two-b"})
	if g, _ := m.Current("u", 2); g.Hash != "two-b" {
		t.Errorf("current(2) = %+v, want the new base's entry", g)
	}
	if want := []string{"ns/s", "ns/s"}; !slices.Equal(told, want) {
		t.Errorf("status told %v, want %v (the first entry and the new base only)", told, want)
	}
}

// TestConfigMemoFirstPutWins: two controllers that generated the same
// generation and base at once get the first config put, so they never
// disagree on the ConfigMap's name.
func TestConfigMemoFirstPutWins(t *testing.T) {
	m := newConfigMemo(record.New())
	key := memoKey{generation: 1, base: "image:tag"}
	first := m.put("u", "ns/s", key, resolve.GeneratedConfig{Hash: "a"})
	second := m.put("u", "ns/s", key, resolve.GeneratedConfig{Hash: "b"})
	if first.Hash != "a" || second.Hash != "a" {
		t.Errorf("puts returned %q and %q, want the first config twice", first.Hash, second.Hash)
	}
	s := &ogxv1beta1.OGXServer{}
	s.UID, s.Generation = "u", 1
	g, err := m.Generated(s, "image:tag", func() (resolve.GeneratedConfig, error) { return resolve.GeneratedConfig{Hash: "c"}, nil })
	if err != nil || g.Hash != "a" {
		t.Errorf("Generated = %q, %v; want the stored config", g.Hash, err)
	}
}
