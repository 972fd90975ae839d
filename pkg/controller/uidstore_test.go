package controller

import (
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"k8s.io/apimachinery/pkg/types"
)

// TestUIDStoreOperations: each case applies its operations to a store
// holding start and compares what the store holds after them.
func TestUIDStoreOperations(t *testing.T) {
	// add is an update that adds n to the value, keeping a non-zero sum.
	add := func(n int) func(int, bool) (int, bool) {
		return func(v int, _ bool) (int, bool) { return v + n, v+n != 0 }
	}
	cases := []struct {
		name  string
		start map[types.UID]int
		ops   func(s *uidStore[int])
		want  map[types.UID]int
	}{
		{name: "set on the zero value", ops: func(s *uidStore[int]) { s.set("a", 1) },
			want: map[types.UID]int{"a": 1}},
		{name: "set replaces", start: map[types.UID]int{"a": 1, "b": 2}, ops: func(s *uidStore[int]) { s.set("a", 3) },
			want: map[types.UID]int{"a": 3, "b": 2}},
		{name: "update reads the current value", start: map[types.UID]int{"a": 1}, ops: func(s *uidStore[int]) { s.update("a", add(2)) },
			want: map[types.UID]int{"a": 3}},
		{name: "update of a missing uid starts from zero", start: map[types.UID]int{"a": 1}, ops: func(s *uidStore[int]) { s.update("b", add(2)) },
			want: map[types.UID]int{"a": 1, "b": 2}},
		{name: "update not keeping deletes", start: map[types.UID]int{"a": 1, "b": 2}, ops: func(s *uidStore[int]) { s.update("a", add(-1)) },
			want: map[types.UID]int{"b": 2}},
		{name: "update not keeping a missing uid adds nothing", start: map[types.UID]int{"a": 1}, ops: func(s *uidStore[int]) { s.update("b", add(0)) },
			want: map[types.UID]int{"a": 1}},
		{name: "forget drops only its uid", start: map[types.UID]int{"a": 1, "b": 2}, ops: func(s *uidStore[int]) { s.forget("a"); s.forget("c") },
			want: map[types.UID]int{"b": 2}},
		{name: "forget on the zero value", ops: func(s *uidStore[int]) { s.forget("a") }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := &uidStore[int]{entries: c.start}
			c.ops(s)
			if d := cmp.Diff(c.want, s.entries, cmpopts.EquateEmpty()); d != "" {
				t.Errorf("entries (-want +got):\n%s", d)
			}
			for uid, want := range c.want {
				if got, ok := s.get(uid); !ok || got != want {
					t.Errorf("get(%s) = %d, %v; want %d, true", uid, got, ok, want)
				}
			}
			if got, ok := s.get("missing"); ok || got != 0 {
				t.Errorf("get(missing) = %d, %v; want 0, false", got, ok)
			}
		})
	}
}

// TestUIDStoreRetain: retain keeps exactly the live servers' values and
// counts the others.
func TestUIDStoreRetain(t *testing.T) {
	cases := []struct {
		name  string
		start map[types.UID]int
		live  []types.UID
		want  map[types.UID]int
		drops int
	}{
		{name: "empty store"},
		{name: "all live", start: map[types.UID]int{"a": 1, "b": 2}, live: []types.UID{"a", "b"},
			want: map[types.UID]int{"a": 1, "b": 2}},
		{name: "some deleted", start: map[types.UID]int{"a": 1, "b": 2, "c": 3}, live: []types.UID{"b", "d"},
			want: map[types.UID]int{"b": 2}, drops: 2},
		{name: "none live", start: map[types.UID]int{"a": 1, "b": 2}, drops: 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := &uidStore[int]{entries: c.start}
			live := map[types.UID]bool{}
			for _, uid := range c.live {
				live[uid] = true
			}
			if n := s.retain(func(uid types.UID) bool { return live[uid] }); n != c.drops {
				t.Errorf("retain dropped %d, want %d", n, c.drops)
			}
			if d := cmp.Diff(c.want, s.entries, cmpopts.EquateEmpty()); d != "" {
				t.Errorf("entries (-want +got):\n%s", d)
			}
		})
	}
}

// TestUIDStoreUpdateIsAtomic: concurrent read-modify-writes of one uid lose
// none of them.
func TestUIDStoreUpdateIsAtomic(t *testing.T) {
	const workers, each = 8, 200
	var s uidStore[int]
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				s.update("a", func(v int, _ bool) (int, bool) { return v + 1, true })
			}
		}()
	}
	wg.Wait()
	if got, _ := s.get("a"); got != workers*each {
		t.Errorf("after %d updates the value is %d", workers*each, got)
	}
}
