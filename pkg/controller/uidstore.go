package controller

import (
	"sync"

	"k8s.io/apimachinery/pkg/types"
)

// uidStore is what a per-server store keeps in memory: one value per
// OGXServer UID, under the store's own lock, so the controllers that share
// the store never contend on a lock of another. The zero value is empty and
// ready to use.
//
// Every such store must be emptied of a server when it is deleted: the
// delete handler calls forget, and since a pass that was running when the
// server was deleted may record a value afterwards, Manager.sweep calls
// retain to drop what such a pass left behind.
type uidStore[V any] struct {
	mu      sync.Mutex
	entries map[types.UID]V
}

// get returns uid's value and whether there is one.
func (s *uidStore[V]) get(uid types.UID) (V, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.entries[uid]
	return v, ok
}

// set replaces uid's value.
func (s *uidStore[V]) set(uid types.UID, v V) {
	s.update(uid, func(V, bool) (V, bool) { return v, true })
}

// update replaces uid's value with what f returns for the current one (ok:
// there is one), all under the lock, so a read-modify-write is atomic; f
// returning keep false deletes the entry. f must not call the store.
func (s *uidStore[V]) update(uid types.UID, f func(v V, ok bool) (next V, keep bool)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.entries[uid]
	next, keep := f(v, ok)
	switch {
	case keep && s.entries == nil:
		s.entries = map[types.UID]V{uid: next}
	case keep:
		s.entries[uid] = next
	case ok:
		delete(s.entries, uid)
	}
}

// forget drops a deleted server's value.
func (s *uidStore[V]) forget(uid types.UID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.entries, uid)
}

// retain is forget for every server that is not live (Manager.sweep); it
// returns how many values it dropped.
func (s *uidStore[V]) retain(live func(types.UID) bool) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return retainLive(s.entries, live)
}
