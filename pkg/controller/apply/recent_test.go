package apply

import (
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

func rwSA(uid types.UID, rv string) *corev1.ServiceAccount {
	return &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "sa", UID: uid, ResourceVersion: rv}}
}

func TestRecentWrites(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	r := NewRecentWrites[*corev1.ServiceAccount]()
	r.now = func() time.Time { return now }

	// A write the cache has not delivered yet is remembered.
	r.Remember(rwSA("u1", "10"), Digest{})
	if got, _, ok := r.Lookup("ns", "sa"); !ok || got.ResourceVersion != "10" {
		t.Fatalf("before the cache: got %v %v, want our write", got, ok)
	}
	// An older event keeps it; the informer delivering ours drops it.
	r.Observe(rwSA("u1", "9"), false)
	if _, _, ok := r.Lookup("ns", "sa"); !ok {
		t.Errorf("an older event dropped our write")
	}
	r.Observe(rwSA("u1", "10"), false)
	if r.len() != 0 {
		t.Errorf("entry kept after the informer delivered it")
	}

	// Deleted before the write returned: the write's result is not
	// remembered, so the missing cache entry means missing.
	r.Observe(rwSA("u2", "20"), true)
	r.Remember(rwSA("u2", "20"), Digest{})
	if _, _, ok := r.Lookup("ns", "sa"); ok {
		t.Error("a write the informer already reported deleted hides the deletion")
	}
	// A new incarnation (another UID) is remembered.
	r.Remember(rwSA("u3", "30"), Digest{})
	if got, _, ok := r.Lookup("ns", "sa"); !ok || got.UID != "u3" {
		t.Errorf("new incarnation: got %v %v", got, ok)
	}
	// Past the TTL nothing remembered counts.
	now = now.Add(recentTTL + time.Second)
	if _, _, ok := r.Lookup("ns", "sa"); ok {
		t.Error("an entry older than recentTTL is still used")
	}

	// A write nothing reads or supersedes again is dropped by a later
	// write once it has expired.
	other := rwSA("u4", "40")
	other.Name = "other"
	r.Remember(other, Digest{})
	now = now.Add(recentTTL + time.Second)
	r.Remember(rwSA("u5", "50"), Digest{})
	if r.len() != 1 {
		t.Errorf("%d writes remembered, want the expired one dropped", r.len())
	}
	// Forget drops the write of the version the cache caught up with only.
	r.Forget("ns", "sa", "49")
	if _, _, ok := r.Lookup("ns", "sa"); !ok {
		t.Error("Forget of another version dropped the write")
	}
	r.Forget("ns", "sa", "50")
	if _, _, ok := r.Lookup("ns", "sa"); ok {
		t.Error("Forget of the write's version kept it")
	}
}

// len is the number of remembered writes.
func (r *RecentWrites[O]) len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.m)
}

// TestSentFor: only the very object a write returned (its UID and
// resourceVersion) is known by the digest the write sent.
func TestSentFor(t *testing.T) {
	r := NewRecentWrites[*corev1.ServiceAccount]()
	r.Remember(rwSA("u1", "10"), testDigest("sent"))
	r.Remember(&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "fake", UID: "u1"}}, testDigest("sent"))
	for _, tc := range []struct {
		obj  *corev1.ServiceAccount
		want Digest
	}{
		{rwSA("u1", "10"), testDigest("sent")},
		{rwSA("u1", "11"), Digest{}},
		{rwSA("u2", "10"), Digest{}},
		{&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "other", UID: "u1", ResourceVersion: "10"}}, Digest{}},
		// A fake clientset's object, of no version.
		{&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "fake", UID: "u1"}}, Digest{}},
	} {
		if got := r.SentFor(tc.obj); got != tc.want {
			t.Errorf("SentFor(%s %s/%s) = %q, want %q", tc.obj.Name, tc.obj.UID, tc.obj.ResourceVersion, got, tc.want)
		}
	}
	var none *RecentWrites[*corev1.ServiceAccount]
	if got := none.SentFor(rwSA("u1", "10")); !got.IsZero() {
		t.Errorf("nil RecentWrites: %q", got)
	}
}

// TestSentForCreateInFlight: while our create of a name is in flight, the
// first version of an object of that name that only ogx-controller manages
// is known by what the create sent (its event may come before the answer);
// once the create has returned or failed, only the object it returned is.
func TestSentForCreateInFlight(t *testing.T) {
	ours := []metav1.ManagedFieldsEntry{{Manager: "ogx-controller", Operation: metav1.ManagedFieldsOperationApply}}
	theirs := append(slices.Clone(ours), metav1.ManagedFieldsEntry{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationUpdate})
	sa := func(gen int64, entries []metav1.ManagedFieldsEntry) *corev1.ServiceAccount {
		o := rwSA("u1", "10")
		o.Generation, o.ManagedFields = gen, entries
		return o
	}
	r := NewRecentWrites[*corev1.ServiceAccount]()
	if got := r.SentFor(sa(1, ours)); !got.IsZero() {
		t.Errorf("no create in flight: %q, want zero", got)
	}
	r.Creating("ns", "sa", testDigest("create"))
	for _, tc := range []struct {
		name string
		obj  *corev1.ServiceAccount
		want Digest
	}{
		{"first version, ours only", sa(1, ours), testDigest("create")},
		{"kind without generation", sa(0, ours), testDigest("create")},
		{"another manager's entry", sa(1, theirs), Digest{}},
		{"no entries", sa(1, nil), Digest{}},
		{"a later generation", sa(2, ours), Digest{}},
	} {
		if got := r.SentFor(tc.obj); got != tc.want {
			t.Errorf("%s: SentFor = %q, want %q", tc.name, got, tc.want)
		}
	}
	r.Abandon("ns", "sa")
	if got := r.SentFor(sa(1, ours)); !got.IsZero() {
		t.Errorf("after Abandon: %q, want zero", got)
	}
	r.Creating("ns", "sa", testDigest("create"))
	r.Remember(rwSA("u1", "10"), testDigest("create"))
	if got := r.SentFor(sa(1, ours)); got != testDigest("create") {
		t.Errorf("the object the create returned: %q", got)
	}
	if got := r.SentFor(&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "sa", UID: "u2", ResourceVersion: "12", Generation: 1, ManagedFields: ours}}); !got.IsZero() {
		t.Errorf("another object after the create returned: %q, want zero", got)
	}
}

// TestRememberSkipsACreateTheCacheHas: the answer to a create whose event
// (or a newer one) the informer delivered while it was in flight is not
// remembered, as nothing would drop it; an older event does not count.
func TestRememberSkipsACreateTheCacheHas(t *testing.T) {
	for _, tc := range []struct {
		name       string
		observed   string
		remembered bool
	}{
		{"its own event first", "10", false},
		{"a newer event first", "11", false},
		{"an older event first", "9", true},
		{"no event", "", true},
	} {
		r := NewRecentWrites[*corev1.ServiceAccount]()
		r.Creating("ns", "sa", testDigest("create"))
		if tc.observed != "" {
			r.Observe(rwSA("u1", tc.observed), false)
		}
		r.Remember(rwSA("u1", "10"), testDigest("create"))
		got, _, ok := r.Lookup("ns", "sa")
		if ok != tc.remembered || ok && got.ResourceVersion != "10" {
			t.Errorf("%s: remembered %v (%v), want %v", tc.name, ok, got, tc.remembered)
		}
	}
}
