package record

import (
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/types"
)

func TestSlotsShareOneEntryPerServer(t *testing.T) {
	s := New()
	names := NewSlot[string](s)
	counts := NewSlot[int](s)

	if _, ok := names.Get("a"); ok {
		t.Fatal("empty store has a value")
	}
	names.Set("a", "one")
	counts.Set("a", 1)
	counts.Set("b", 2)
	if got, ok := names.Get("a"); !ok || got != "one" {
		t.Errorf("names[a] = %q, %v", got, ok)
	}
	if _, ok := names.Get("b"); ok {
		t.Error("names[b] set by counts")
	}
	if s.Len() != 2 {
		t.Errorf("Len = %d, want 2", s.Len())
	}

	counts.Update("a", func(v int, ok bool) (int, bool) { return v + 1, ok })
	if got, _ := counts.Get("a"); got != 2 {
		t.Errorf("counts[a] after update = %d, want 2", got)
	}
	// Removing a server's last value removes the server.
	counts.Update("b", func(int, bool) (int, bool) { return 0, false })
	if s.Len() != 1 {
		t.Errorf("Len after b's last value went = %d, want 1", s.Len())
	}
	// A value kept for another slot keeps the server.
	counts.Update("a", func(int, bool) (int, bool) { return 0, false })
	if _, ok := names.Get("a"); !ok || s.Len() != 1 {
		t.Errorf("a's name lost with its count (Len %d)", s.Len())
	}
}

func TestForgetAndSweep(t *testing.T) {
	s := New()
	a, b := NewSlot[string](s), NewSlot[bool](s)
	for _, uid := range []types.UID{"u1", "u2", "u3"} {
		a.Set(uid, string(uid))
		b.Set(uid, true)
	}
	s.Forget("u1")
	if _, ok := a.Get("u1"); ok {
		t.Error("Forget kept a value of a")
	}
	if _, ok := b.Get("u1"); ok {
		t.Error("Forget kept a value of b")
	}
	n := s.Sweep(func(uid types.UID) bool { return uid == "u3" })
	if n != 1 {
		t.Errorf("Sweep forgot %d servers, want 1", n)
	}
	if s.Has("u2") || !s.Has("u3") {
		t.Error("Has disagrees with Sweep")
	}
	if _, ok := a.Get("u2"); ok {
		t.Error("Sweep kept a server that is not live")
	}
	if v, ok := a.Get("u3"); !ok || v != "u3" {
		t.Error("Sweep dropped a live server")
	}
}

func TestSlotRegisteredAfterValues(t *testing.T) {
	s := New()
	first := NewSlot[int](s)
	first.Set("u", 1)
	late := NewSlot[int](s)
	late.Set("u", 2)
	if v, _ := first.Get("u"); v != 1 {
		t.Errorf("first = %d after a late slot grew the entry", v)
	}
	if v, _ := late.Get("u"); v != 2 {
		t.Errorf("late = %d", v)
	}
}

func TestChangedReachesEveryHandler(t *testing.T) {
	s := New()
	var got []string
	s.AddHandler(func(k string) { got = append(got, "1:"+k) })
	s.AddHandler(func(k string) { got = append(got, "2:"+k) })
	s.Changed("ns/a")
	if diff := cmp.Diff([]string{"1:ns/a", "2:ns/a"}, got); diff != "" {
		t.Errorf("handlers (-want +got):\n%s", diff)
	}
}

// TestUpdateIsAtomic: concurrent read-modify-writes of one server, through
// two slots, lose none of them.
func TestUpdateIsAtomic(t *testing.T) {
	const workers, each = 8, 200
	s := New()
	a, b := NewSlot[int](s), NewSlot[int](s)
	var wg sync.WaitGroup
	for i := range workers {
		sl := a
		if i%2 == 1 {
			sl = b
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				sl.Update("u", func(v int, _ bool) (int, bool) { return v + 1, true })
			}
		}()
	}
	wg.Wait()
	va, _ := a.Get("u")
	vb, _ := b.Get("u")
	if va+vb != workers*each || va != vb {
		t.Errorf("after %d updates the values are %d and %d", workers*each, va, vb)
	}
}

// TestUpdateNotKeepingAddsNothing: an update that keeps no value, on a
// server without one, stores no server.
func TestUpdateNotKeepingAddsNothing(t *testing.T) {
	s := New()
	a := NewSlot[int](s)
	a.Update("u", func(int, bool) (int, bool) { return 0, false })
	if s.Has("u") || s.Len() != 0 {
		t.Errorf("an update keeping nothing stored server u (Len %d)", s.Len())
	}
}

// TestViewReadsWithoutStoring: View sees the value, and a server without
// one gets no entry from being viewed.
func TestViewReadsWithoutStoring(t *testing.T) {
	s := New()
	a := NewSlot[[]int](s)
	a.Set("u", []int{1, 2})
	var got []int
	a.View("u", func(v []int, ok bool) { got = append(got, v...) })
	if len(got) != 2 {
		t.Errorf("View saw %v", got)
	}
	a.View("missing", func(v []int, ok bool) {
		if ok {
			t.Error("View of a missing server reports a value")
		}
	})
	if s.Has("missing") {
		t.Error("View stored a server")
	}
}

// TestSweepAsksLiveAfterTakingTheUIDs: a server recorded while a sweep runs
// (after the sweep took the UIDs) is not among those it judges, so the
// manager's sweep may read the cache once, at its first question.
func TestSweepAsksLiveAfterTakingTheUIDs(t *testing.T) {
	s := New()
	a := NewSlot[bool](s)
	a.Set("u1", true)
	asked := 0
	n := s.Sweep(func(types.UID) bool {
		if asked++; asked == 1 {
			a.Set("late", true)
		}
		return false
	})
	if n != 1 || asked != 1 || s.Has("u1") || !s.Has("late") {
		t.Errorf("Sweep forgot %d after %d questions; u1 kept %v, late kept %v; want 1, 1, false, true", n, asked, s.Has("u1"), s.Has("late"))
	}
}
