package controller

import (
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// recentWrites remembers the object each of a kind's writes returned until
// the informer delivers that version (the "expectations" of
// kube-controller-manager's controllers). A pass that runs before the cache
// has caught up with our own write then compares against what we wrote,
// instead of writing again or taking a missing cache entry for a missing
// object.
//
// Entries are dropped by observe, which the kind's informer calls before it
// enqueues anything for the same event, so a pass started by an event never
// sees an entry that event made stale.
type recentWrites[O metav1.Object] struct {
	mu sync.Mutex
	m  map[string]O
}

func newRecentWrites[O metav1.Object]() *recentWrites[O] {
	return &recentWrites[O]{m: map[string]O{}}
}

func recentKey(namespace, name string) string { return namespace + "/" + name }

// remember records the object a write returned.
func (r *recentWrites[O]) remember(obj O) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.m[recentKey(obj.GetNamespace(), obj.GetName())] = obj
}

// newer returns the remembered object when it is newer than cached (or
// cached is absent, found false).
func (r *recentWrites[O]) newer(namespace, name string, cached O, found bool) (O, bool) {
	if r == nil {
		return cached, found
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	w, ok := r.m[recentKey(namespace, name)]
	if !ok {
		return cached, found
	}
	if found && !newerRV(w.GetResourceVersion(), cached.GetResourceVersion()) {
		delete(r.m, recentKey(namespace, name))
		return cached, found
	}
	return w, true
}

// observe drops the entry an informer event supersedes: a deletion, or a
// version at least as new as the one remembered.
func (r *recentWrites[O]) observe(obj metav1.Object, deleted bool) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	key := recentKey(obj.GetNamespace(), obj.GetName())
	w, ok := r.m[key]
	if !ok {
		return
	}
	if deleted || !newerRV(w.GetResourceVersion(), obj.GetResourceVersion()) {
		delete(r.m, key)
	}
}

// len is the number of entries (for tests).
func (r *recentWrites[O]) len() int {
	if r == nil {
		return 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.m)
}
