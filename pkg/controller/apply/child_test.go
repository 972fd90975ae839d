package apply

import (
	"context"
	"crypto/sha256"
	"errors"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/utils/ptr"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/events"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

// TestCurrentKeepsTheDigestOnlyForTheCachedVersion: the cache's digest
// describes the cached version alone; our own newer write is known whole,
// so the applier extracts from it.
func TestCurrentKeepsTheDigestOnlyForTheCachedVersion(t *testing.T) {
	sa := func(rv string) *corev1.ServiceAccount {
		return &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "s-sa", Namespace: "ns", UID: "u", ResourceVersion: rv}}
	}
	cachedRV := "5"
	c := &Child[*corev1.ServiceAccount, *corev1ac.ServiceAccountApplyConfiguration]{
		Kind: "ServiceAccount", Recent: NewRecentWrites[*corev1.ServiceAccount](),
		Cached: func(string, string) (Known[*corev1.ServiceAccount], error) {
			return Known[*corev1.ServiceAccount]{Obj: sa(cachedRV), Digest: testDigest("cached-digest")}, nil
		},
	}
	if k, ok := c.Current("ns", "s-sa"); !ok || k.Digest != testDigest("cached-digest") {
		t.Fatalf("Current without a write = %+v, %v; want the cache's digest", k, ok)
	}
	c.Recent.Remember(sa("5"), Digest{})
	if k, _ := c.Current("ns", "s-sa"); k.Digest != testDigest("cached-digest") {
		t.Errorf("our write at the cached version: digest %q, want the cache's", k.Digest)
	}
	if c.Recent.len() != 0 {
		t.Error("our write is still remembered once the cache caught up with it")
	}
	c.Recent.Remember(sa("6"), testDigest("sent-digest"))
	k, ok := c.Current("ns", "s-sa")
	if !ok || k.Obj.ResourceVersion != "6" || !k.Digest.IsZero() || k.Sent != testDigest("sent-digest") {
		t.Errorf("our newer write: %+v, %v; want version 6 known whole (no digest) with what it sent", k, ok)
	}
	cachedRV = "7"
	if k, _ := c.Current("ns", "s-sa"); k.Obj.ResourceVersion != "7" || k.Digest != testDigest("cached-digest") || !k.Sent.IsZero() {
		t.Errorf("cache ahead of our write: %+v; want the cache with its digest, nothing sent", k)
	}
}

// TestCurrentSeesAWriteDeliveredDuringItsRead: the informer may cache our
// write and drop it from the remembered writes while Current reads the
// cache, whose read returns what it held before (nothing, or an older
// version). Current must still answer with our write.
func TestCurrentSeesAWriteDeliveredDuringItsRead(t *testing.T) {
	sa := func(rv string) *corev1.ServiceAccount {
		return &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "s-sa", Namespace: "ns", UID: "u", ResourceVersion: rv}}
	}
	for _, before := range []string{"", "4"} {
		c := &Child[*corev1.ServiceAccount, *corev1ac.ServiceAccountApplyConfiguration]{
			Kind: "ServiceAccount", Recent: NewRecentWrites[*corev1.ServiceAccount](),
		}
		c.Cached = func(ns, name string) (Known[*corev1.ServiceAccount], error) {
			// The informer delivers version 5 while this read returns
			// what the cache held before.
			c.Recent.Observe(sa("5"), false)
			if before == "" {
				return Known[*corev1.ServiceAccount]{}, apierrors.NewNotFound(corev1.Resource("serviceaccounts"), name)
			}
			return Known[*corev1.ServiceAccount]{Obj: sa(before), Digest: testDigest("old-digest")}, nil
		}
		c.Recent.Remember(sa("5"), testDigest("sent"))
		if k, ok := c.Current("ns", "s-sa"); !ok || k.Obj.ResourceVersion != "5" || k.Sent != testDigest("sent") {
			t.Errorf("cache held %q: Current = %+v, %v; want our write, version 5", before, k, ok)
		}
	}
	c := &Child[*corev1.ServiceAccount, *corev1ac.ServiceAccountApplyConfiguration]{
		Kind: "ServiceAccount", Recent: NewRecentWrites[*corev1.ServiceAccount](),
		Cached: func(ns, name string) (Known[*corev1.ServiceAccount], error) {
			return Known[*corev1.ServiceAccount]{}, apierrors.NewNotFound(corev1.Resource("serviceaccounts"), name)
		},
	}
	if k, ok := c.Current("ns", "s-sa"); ok {
		t.Errorf("Current of a missing child = %+v, want not found", k)
	}
}

// TestTakeOverKnownDropsTheDigestOfAPatchedObject: without anything to take
// over the known child is kept as it is; an object the takeover patched is
// known whole.
func TestTakeOverKnownDropsTheDigestOfAPatchedObject(t *testing.T) {
	owner := &ogxv1beta1.OGXServer{ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "ns", UID: "u"}}
	cached := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "s-sa", Namespace: "ns", ResourceVersion: "5",
		ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "ogx-operator", Operation: metav1.ManagedFieldsOperationUpdate,
			APIVersion: "v1", FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:labels":{}}}`)}}}}}
	patched := cached.DeepCopy()
	patched.ResourceVersion = "6"
	c := &Child[*corev1.ServiceAccount, *corev1ac.ServiceAccountApplyConfiguration]{Kind: "ServiceAccount", APIVersion: "v1",
		Recent: NewRecentWrites[*corev1.ServiceAccount](),
		Patch:  func(context.Context, string, string, []byte) (*corev1.ServiceAccount, error) { return patched, nil }}
	k := Known[*corev1.ServiceAccount]{Obj: cached, Digest: testDigest("d")}
	if got, err := c.TakeOverKnown(context.Background(), owner, k); err != nil || got.Digest != testDigest("d") || got.Obj != cached {
		t.Errorf("no takeover managers: %+v, %v; want the known child unchanged", got, err)
	}
	c.Takeover = []string{"ogx-operator"}
	got, err := c.TakeOverKnown(context.Background(), owner, k)
	if err != nil || got.Obj != patched || !got.Digest.IsZero() {
		t.Errorf("after a takeover patch: %+v, %v; want the patched object, no digest", got, err)
	}
}

// TestOwnWriteSkipsWithoutExtracting: a pass that runs before the cache
// shows our write compares with what that write sent, without extracting
// from its answer, and still writes a real change.
func TestOwnWriteSkipsWithoutExtracting(t *testing.T) {
	ctx := context.Background()
	owner := &ogxv1beta1.OGXServer{ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "ns", UID: "u"}}
	desired := func(label string) *corev1ac.ServiceAccountApplyConfiguration {
		return corev1ac.ServiceAccount("s-sa", "ns").WithLabels(map[string]string{"l": label})
	}
	applied := 0
	c := &Child[*corev1.ServiceAccount, *corev1ac.ServiceAccountApplyConfiguration]{
		Kind: "ServiceAccount", Recent: NewRecentWrites[*corev1.ServiceAccount](),
		Cached: func(string, string) (Known[*corev1.ServiceAccount], error) {
			return Known[*corev1.ServiceAccount]{}, apierrors.NewNotFound(corev1.Resource("serviceaccounts"), "s-sa")
		},
		SetResourceVersion: func(ac *corev1ac.ServiceAccountApplyConfiguration, rv string) { SetTypedResourceVersion(ac, rv) },
		Extract: func(*corev1.ServiceAccount) (*corev1ac.ServiceAccountApplyConfiguration, error) {
			t.Error("extracted from our own write's answer")
			return nil, errors.New("no extraction")
		},
		Apply: func(_ context.Context, _ string, ac *corev1ac.ServiceAccountApplyConfiguration) (*corev1.ServiceAccount, error) {
			applied++
			rv := strconv.Itoa(applied + 1)
			return &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "s-sa", Namespace: "ns", UID: "u", ResourceVersion: rv,
				OwnerReferences: []metav1.OwnerReference{{UID: owner.UID, Controller: ptr.To(true)}}}}, nil
		},
	}
	for _, step := range []struct {
		label string
		want  events.WriteResult
	}{{"a", events.Created}, {"a", events.Skipped}, {"b", events.Updated}, {"b", events.Skipped}} {
		got, err := c.Converge(ctx, owner, "s-sa", desired(step.label))
		if err != nil || got != step.want {
			t.Fatalf("label %s: %q, %v; want %q", step.label, got, err, step.want)
		}
	}
	if applied != 2 {
		t.Errorf("%d applies, want 2", applied)
	}
}

// TestPinnedWriteRemembersWhatItSent: after a create conflict, the write
// pinned to the live object's resourceVersion is remembered by the digest
// of what it sent without that precondition, so the next pass skips.
func TestPinnedWriteRemembersWhatItSent(t *testing.T) {
	ctx := context.Background()
	owner := &ogxv1beta1.OGXServer{ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "ns", UID: "u"}}
	object := func(rv string) *corev1.ServiceAccount {
		return &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "s-sa", Namespace: "ns", UID: "u", ResourceVersion: rv,
			OwnerReferences: []metav1.OwnerReference{{UID: owner.UID, Controller: ptr.To(true)}}}}
	}
	extracted, applies := 0, 0
	c := &Child[*corev1.ServiceAccount, *corev1ac.ServiceAccountApplyConfiguration]{
		Kind: "ServiceAccount", Recent: NewRecentWrites[*corev1.ServiceAccount](),
		Cached: func(string, string) (Known[*corev1.ServiceAccount], error) {
			return Known[*corev1.ServiceAccount]{}, apierrors.NewNotFound(corev1.Resource("serviceaccounts"), "s-sa")
		},
		Live:               func(context.Context, string, string) (*corev1.ServiceAccount, error) { return object("7"), nil },
		SetResourceVersion: func(ac *corev1ac.ServiceAccountApplyConfiguration, rv string) { SetTypedResourceVersion(ac, rv) },
		Extract: func(*corev1.ServiceAccount) (*corev1ac.ServiceAccountApplyConfiguration, error) {
			extracted++
			return corev1ac.ServiceAccount("s-sa", "ns"), nil
		},
		Apply: func(_ context.Context, _ string, ac *corev1ac.ServiceAccountApplyConfiguration) (*corev1.ServiceAccount, error) {
			applies++
			if rv := ac.ResourceVersion; rv != nil && *rv == AbsentResourceVersion {
				return nil, apierrors.NewConflict(corev1.Resource("serviceaccounts"), "s-sa", errors.New("exists"))
			}
			return object("8"), nil
		},
	}
	desired := corev1ac.ServiceAccount("s-sa", "ns").WithLabels(map[string]string{"l": "a"})
	for _, want := range []events.WriteResult{events.Updated, events.Skipped} {
		if got, err := c.Converge(ctx, owner, "s-sa", desired); err != nil || got != want {
			t.Fatalf("%q, %v; want %q", got, err, want)
		}
	}
	if extracted != 1 || applies != 2 {
		t.Errorf("%d extractions and %d applies; want 1 (the live read) and 2 (create, pinned update)", extracted, applies)
	}
}

// testDigest is a digest standing for s.
func testDigest(s string) Digest { return sha256.Sum256([]byte(s)) }

// TestCreateInFlightIsKnownByWhatItSent: the event of a new child that
// comes before the create's answer is known by what the create sent
// (RecentWrites.SentFor); a create that failed is forgotten.
func TestCreateInFlightIsKnownByWhatItSent(t *testing.T) {
	ctx := context.Background()
	owner := &ogxv1beta1.OGXServer{ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "ns", UID: "u"}}
	event := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "s-sa", Namespace: "ns", UID: "c", ResourceVersion: "5",
		ManagedFields: []metav1.ManagedFieldsEntry{{Manager: render.FieldManager, Operation: metav1.ManagedFieldsOperationApply}}}}
	desired := corev1ac.ServiceAccount("s-sa", "ns").WithLabels(map[string]string{"l": "a"})
	want, err := DigestOf(desired)
	if err != nil {
		t.Fatal(err)
	}
	var during Digest
	fail := false
	recent := NewRecentWrites[*corev1.ServiceAccount]()
	c := &Child[*corev1.ServiceAccount, *corev1ac.ServiceAccountApplyConfiguration]{
		Kind: "ServiceAccount", Recent: recent,
		Cached: func(string, string) (Known[*corev1.ServiceAccount], error) {
			return Known[*corev1.ServiceAccount]{}, apierrors.NewNotFound(corev1.Resource("serviceaccounts"), "s-sa")
		},
		SetResourceVersion: func(ac *corev1ac.ServiceAccountApplyConfiguration, rv string) { SetTypedResourceVersion(ac, rv) },
		Apply: func(_ context.Context, _ string, ac *corev1ac.ServiceAccountApplyConfiguration) (*corev1.ServiceAccount, error) {
			during = recent.SentFor(event)
			if fail {
				return nil, apierrors.NewForbidden(corev1.Resource("serviceaccounts"), "s-sa", errors.New("no"))
			}
			return event, nil
		},
	}
	if _, err := c.create(ctx, owner, "s-sa", desired); err != nil {
		t.Fatal(err)
	}
	if during != want {
		t.Errorf("event during the create: %q, want the digest it sent %q", during, want)
	}
	fail = true
	if _, err := c.create(ctx, owner, "s-sa", desired); err == nil {
		t.Fatal("the failing create succeeded")
	}
	other := event.DeepCopy()
	other.UID, other.ResourceVersion = "d", "9"
	if got := c.Recent.SentFor(other); !got.IsZero() {
		t.Errorf("after a failed create: %q, want zero", got)
	}
}

// TestTakenNameIsReadLive: once our create found the name taken, passes read
// the object live until a write to it succeeds, even when the cache shows
// it with a digest equal to what we want (credited to our create while it
// was in flight, RecentWrites.SentFor): the live object is what counts.
func TestTakenNameIsReadLive(t *testing.T) {
	ctx := context.Background()
	owner := &ogxv1beta1.OGXServer{ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "ns", UID: "u"}}
	desired := corev1ac.ServiceAccount("s-sa", "ns").WithLabels(map[string]string{"l": "a"})
	want, err := DigestOf(desired)
	if err != nil {
		t.Fatal(err)
	}
	object := func(rv string) *corev1.ServiceAccount {
		return &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "s-sa", Namespace: "ns", UID: "u", ResourceVersion: rv,
			OwnerReferences: []metav1.OwnerReference{{UID: owner.UID, Controller: ptr.To(true)}}}}
	}
	cached := false
	lives, applies := 0, []string{}
	c := &Child[*corev1.ServiceAccount, *corev1ac.ServiceAccountApplyConfiguration]{
		Kind: "ServiceAccount", Recent: NewRecentWrites[*corev1.ServiceAccount](),
		Cached: func(string, string) (Known[*corev1.ServiceAccount], error) {
			if !cached {
				return Known[*corev1.ServiceAccount]{}, apierrors.NewNotFound(corev1.Resource("serviceaccounts"), "s-sa")
			}
			return Known[*corev1.ServiceAccount]{Obj: object("7"), Digest: want}, nil
		},
		Live: func(context.Context, string, string) (*corev1.ServiceAccount, error) {
			lives++
			return object("7"), nil
		},
		SetResourceVersion: func(ac *corev1ac.ServiceAccountApplyConfiguration, rv string) { SetTypedResourceVersion(ac, rv) },
		// The live object holds another writer's labels.
		Extract: func(*corev1.ServiceAccount) (*corev1ac.ServiceAccountApplyConfiguration, error) {
			return corev1ac.ServiceAccount("s-sa", "ns").WithLabels(map[string]string{"l": "other"}), nil
		},
		Apply: func(_ context.Context, _ string, ac *corev1ac.ServiceAccountApplyConfiguration) (*corev1.ServiceAccount, error) {
			rv := ptr.Deref(ac.ResourceVersion, "")
			applies = append(applies, rv)
			if rv == AbsentResourceVersion || len(applies) == 2 {
				// Taken; then another writer changes it in between.
				return nil, apierrors.NewConflict(corev1.Resource("serviceaccounts"), "s-sa", errors.New("conflict"))
			}
			return object("9"), nil
		},
	}
	if _, err := c.Converge(ctx, owner, "s-sa", desired); err == nil {
		t.Fatal("the pinned update refused with a conflict succeeded")
	}
	// The cache now shows the object, with the digest our create sent.
	cached = true
	if got, err := c.Converge(ctx, owner, "s-sa", desired); err != nil || got != events.Updated {
		t.Fatalf("second pass: %q, %v; want %q", got, err, events.Updated)
	}
	if d := cmp.Diff([]string{AbsentResourceVersion, "7", "7"}, applies); d != "" || lives != 2 {
		t.Errorf("applies (-want +got):\n%s\nlive reads %d, want 2", d, lives)
	}
	// Written: from here on the cache counts again.
	if got, err := c.Converge(ctx, owner, "s-sa", desired); err != nil || got != events.Skipped || lives != 2 {
		t.Errorf("third pass: %q, %v, %d live reads; want %q with no live read", got, err, lives, events.Skipped)
	}
}
