// Package record holds what one process knows about each OGXServer besides
// the API's objects, in memory only (a new process rebuilds it with one pass
// per server), in one map keyed by the server's UID so that a deleted server
// is forgotten in one place (Forget, Sweep). Each kind of value is a Slot its
// owner registers, so this package knows none of their types. Like an
// informer, the store calls its handlers when a producer reports a change
// (docs/controllers.md, Outcomes).
package record

import (
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/types"
)

// Store is the per-server record of one process; New returns an empty one.
type Store struct {
	mu sync.Mutex
	// servers holds each server's values, indexed by slot; a server with no
	// value left has no entry.
	servers map[types.UID][]any
	slots   int

	handlersMu sync.RWMutex
	handlers   []func(key string)
}

// New returns an empty store.
func New() *Store {
	return &Store{servers: map[types.UID][]any{}}
}

// Slot is one kind of per-server value in a Store.
type Slot[V any] struct {
	store *Store
	index int
}

// NewSlot registers a kind of value, when the controllers are built and
// before any value is stored.
func NewSlot[V any](s *Store) Slot[V] {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.slots++
	return Slot[V]{store: s, index: s.slots - 1}
}

// Get returns uid's value and whether there is one. A map, slice or
// pointer value is shared with the store, whose Update may change it in
// place: read such values inside View instead.
func (sl Slot[V]) Get(uid types.UID) (V, bool) {
	sl.store.mu.Lock()
	defer sl.store.mu.Unlock()
	return sl.getLocked(uid)
}

func (sl Slot[V]) getLocked(uid types.UID) (V, bool) {
	var zero V
	values := sl.store.servers[uid]
	if sl.index >= len(values) || values[sl.index] == nil {
		return zero, false
	}
	v, ok := values[sl.index].(V)
	return v, ok
}

// View calls f with uid's value (ok: there is one) under the store's lock,
// for reading a value that Update changes in place; f must not keep it,
// change it or call the store.
func (sl Slot[V]) View(uid types.UID, f func(v V, ok bool)) {
	sl.store.mu.Lock()
	defer sl.store.mu.Unlock()
	f(sl.getLocked(uid))
}

// Set replaces uid's value.
func (sl Slot[V]) Set(uid types.UID, v V) {
	sl.Update(uid, func(V, bool) (V, bool) { return v, true })
}

// Update replaces uid's value with what f returns for the current one (ok:
// there is one), under the store's lock, so a read-modify-write is atomic;
// f returning keep false removes the value. f must not call the store.
func (sl Slot[V]) Update(uid types.UID, f func(v V, ok bool) (next V, keep bool)) {
	s := sl.store
	s.mu.Lock()
	defer s.mu.Unlock()
	cur, ok := sl.getLocked(uid)
	next, keep := f(cur, ok)
	values := s.servers[uid]
	switch {
	case keep:
		if sl.index >= len(values) {
			grown := make([]any, s.slots)
			copy(grown, values)
			values = grown
			s.servers[uid] = values
		}
		values[sl.index] = next
	case ok:
		values[sl.index] = nil
		if !slices.ContainsFunc(values, func(v any) bool { return v != nil }) {
			delete(s.servers, uid)
		}
	}
}

// Forget drops every value of a deleted server.
func (s *Store) Forget(uid types.UID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.servers, uid)
}

// Sweep forgets every server that is not live and returns how many: a pass
// running when its server was deleted may record a value after Forget,
// which would otherwise stay for the life of the process. live is asked
// only after every UID is taken, without the lock held, so a sweep stalls
// no pass; a UID is never reused, so a server found dead stays dead.
func (s *Store) Sweep(live func(types.UID) bool) int {
	s.mu.Lock()
	uids := make([]types.UID, 0, len(s.servers))
	for uid := range s.servers {
		uids = append(uids, uid)
	}
	s.mu.Unlock()
	n := 0
	for _, uid := range uids {
		if !live(uid) {
			s.Forget(uid)
			n++
		}
	}
	return n
}

// Has reports whether the server has any value.
func (s *Store) Has(uid types.UID) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.servers[uid]
	return ok
}

// Len returns how many servers have a value.
func (s *Store) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.servers)
}

// AddHandler registers a function called with the key (namespace/name) of
// a server whose record changed. Handlers are registered when the
// controllers are built and must not block.
func (s *Store) AddHandler(h func(key string)) {
	s.handlersMu.Lock()
	defer s.handlersMu.Unlock()
	s.handlers = append(s.handlers, h)
}

// Changed tells every handler that the record of the server with key
// changed. Producers call it after the change, outside any Update.
func (s *Store) Changed(key string) {
	s.handlersMu.RLock()
	defer s.handlersMu.RUnlock()
	for _, h := range s.handlers {
		h(key)
	}
}
