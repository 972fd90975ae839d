package apply

import (
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

// recentTTL is how long a remembered write or a deletion counts: the
// informer delivers our writes within moments, so an older entry can only
// be one the informer will never supersede. Expired entries are pruned by
// the next write a recentTTL after the last pruning.
const recentTTL = time.Minute

// RecentWrites remembers the object each of a kind's writes returned until
// the informer delivers that version (the "expectations" of
// kube-controller-manager's controllers), so a pass that runs before the
// cache has caught up neither writes again nor takes a missing cache entry
// for a missing object (docs/controllers.md, No-op skip and drift).
//
// Entries are dropped by Observe, which the kind's informer calls before it
// enqueues anything for the same event, by Forget once a reader finds the
// cache as new (an event that came before the write returned supersedes
// nothing), and when expired; the answer to a create whose event came
// first is not kept at all (seen). A deletion is also remembered (by
// UID): the informer may deliver an object's creation and deletion before
// the write that created it has returned, whose result must then not hide
// the deletion.
type RecentWrites[O metav1.Object] struct {
	now func() time.Time

	mu   sync.Mutex
	m    map[string]recentEntry[O]
	gone map[string]tombstone
	// creating holds, by key, the digest each create in flight sent
	// (Creating): SentFor.
	creating map[string]Digest
	// seen holds, by key, the last resourceVersion the informer delivered
	// while a create of that key was in flight (Observe): an answer no
	// newer is already in the cache, and is not remembered, since no later
	// event of it would drop it.
	seen map[string]string
	// pruned is when pruneLocked last ran.
	pruned time.Time
}

type recentEntry[O metav1.Object] struct {
	Obj O
	// sent is the digest of the apply configuration the write sent (zero
	// for other writes): see Known.Sent.
	sent Digest
	at   time.Time
}

type tombstone struct {
	uid types.UID
	at  time.Time
}

// NewRecentWrites returns an empty RecentWrites.
func NewRecentWrites[O metav1.Object]() *RecentWrites[O] {
	return &RecentWrites[O]{now: time.Now, m: map[string]recentEntry[O]{}, gone: map[string]tombstone{},
		creating: map[string]Digest{}, seen: map[string]string{}}
}

func recentKey(namespace, name string) string { return namespace + "/" + name }

// Remember records the object a write returned, and the digest of the
// apply configuration it sent (or zero), unless the informer has already
// reported it deleted, or, for a create, delivered it or a newer version.
func (r *RecentWrites[O]) Remember(obj O, sent Digest) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.now()
	r.pruneLocked(now)
	key := recentKey(obj.GetNamespace(), obj.GetName())
	delete(r.creating, key)
	seen, observed := r.seen[key]
	delete(r.seen, key)
	if observed && !NewerRV(obj.GetResourceVersion(), seen) {
		return
	}
	if t, ok := r.gone[key]; ok && t.uid == obj.GetUID() {
		return
	}
	r.m[key] = recentEntry[O]{Obj: obj, sent: sent, at: now}
}

// pruneLocked drops expired writes and tombstones, at most once per
// recentTTL: a write nothing reads or supersedes again would otherwise stay.
func (r *RecentWrites[O]) pruneLocked(now time.Time) {
	if now.Sub(r.pruned) < recentTTL {
		return
	}
	r.pruned = now
	for k, t := range r.gone {
		if now.Sub(t.at) > recentTTL {
			delete(r.gone, k)
		}
	}
	for k, w := range r.m {
		if now.Sub(w.at) > recentTTL {
			delete(r.m, k)
		}
	}
}

// Lookup returns the remembered write of namespace/name and the digest it
// sent, unless none is remembered or it is older than recentTTL.
func (r *RecentWrites[O]) Lookup(namespace, name string) (obj O, sent Digest, ok bool) {
	if r == nil {
		return obj, Digest{}, false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	key := recentKey(namespace, name)
	w, ok := r.m[key]
	if !ok {
		return obj, Digest{}, false
	}
	if r.now().Sub(w.at) > recentTTL {
		delete(r.m, key)
		return obj, Digest{}, false
	}
	return w.Obj, w.sent, true
}

// Forget drops the remembered write of namespace/name if it is still the
// one of resourceVersion rv: the cache has caught up with it. A write whose
// event came before the write returned is never superseded by Observe
// (nothing may follow it for a ServiceAccount), so readers that find the
// cache as new forget it.
func (r *RecentWrites[O]) Forget(namespace, name, rv string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	key := recentKey(namespace, name)
	if w, ok := r.m[key]; ok && w.Obj.GetResourceVersion() == rv {
		delete(r.m, key)
	}
}

// Creating records that a create of namespace/name sending the apply
// configuration of digest sent is in flight, until Remember or Abandon:
// SentFor.
func (r *RecentWrites[O]) Creating(namespace, name string, sent Digest) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.creating[recentKey(namespace, name)] = sent
}

// Abandon ends the create of namespace/name Creating recorded; after the
// create's Remember it finds nothing left to end.
func (r *RecentWrites[O]) Abandon(namespace, name string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	key := recentKey(namespace, name)
	delete(r.creating, key)
	delete(r.seen, key)
}

// SentFor is the digest of what our write sent when obj is the object that
// write returned, else zero. The child caches' transform reads it before
// the informer's handlers Observe the event, so the event of our own apply
// costs no extraction (caches, childview.go).
//
// The object a write returned is known by its UID and resourceVersion once
// the write has returned. In a fleet start the watch event of a new child
// came before the create's answer for about half of them (1,740 of 4,000
// children at N=1,000), and each cost an extraction: so the first version
// of an object whose every managedFields entry is ours, arriving while our
// create of that name is in flight, is taken as that create's (the
// transform asks before it drops other managers' entries). Should the
// create fail because another ogx-controller (a former leader, or our own
// earlier create whose answer was lost) had created the name first, passes
// read the object live until a write to it succeeds (Child.ConvergeCreating),
// so a digest taken wrongly costs at most one write more.
func (r *RecentWrites[O]) SentFor(obj metav1.Object) Digest {
	if r == nil {
		return Digest{}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	key := recentKey(obj.GetNamespace(), obj.GetName())
	w, ok := r.m[key]
	// An object without a resourceVersion (a fake clientset's) is not one
	// version, so no write can be known to have returned it.
	switch {
	case obj.GetResourceVersion() == "":
		return Digest{}
	case ok && w.Obj.GetUID() == obj.GetUID() && w.Obj.GetResourceVersion() == obj.GetResourceVersion():
		return w.sent
	}
	if sent, creating := r.creating[key]; creating && obj.GetGeneration() <= 1 && onlyOurs(obj.GetManagedFields()) {
		return sent
	}
	return Digest{}
}

// onlyOurs reports whether entries are all ogx-controller's, and not none.
func onlyOurs(entries []metav1.ManagedFieldsEntry) bool {
	for _, e := range entries {
		if e.Manager != render.FieldManager {
			return false
		}
	}
	return len(entries) > 0
}

// Observe drops the entry an informer event supersedes: a deletion, or a
// version at least as new as the one remembered. A deletion is kept as a
// tombstone for Remember.
func (r *RecentWrites[O]) Observe(obj metav1.Object, deleted bool) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	key := recentKey(obj.GetNamespace(), obj.GetName())
	if deleted {
		r.gone[key] = tombstone{uid: obj.GetUID(), at: r.now()}
	} else if _, creating := r.creating[key]; creating {
		r.seen[key] = obj.GetResourceVersion()
	}
	w, ok := r.m[key]
	if !ok {
		return
	}
	if deleted || !NewerRV(w.Obj.GetResourceVersion(), obj.GetResourceVersion()) {
		delete(r.m, key)
	}
}

// NewerRV compares resourceVersions numerically where they are numbers (as
// with etcd); resourceVersions are otherwise opaque, and then the cache wins.
func NewerRV(a, b string) bool {
	if len(a) != len(b) {
		return len(a) > len(b)
	}
	return a > b
}
