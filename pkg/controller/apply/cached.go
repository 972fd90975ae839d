package apply

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// CachedChild is what a child cache holds for one child: the object whole
// (Whole), or a view of it: its metadata, the digest of the fields
// ogx-controller owns and a Body with what the readers of its kind use
// besides metadata. A view of a Deployment is about 450 bytes where a
// trimmed *appsv1.Deployment with its wrapper was about 1,580 (the struct
// alone is that large); the views of a server's children take about 2 KiB
// less than trimmed typed objects (docs/performance.md, Memory). Readers
// get a typed object built from the view on each read (Typed, KnownOf).
type CachedChild struct {
	// Whole is the child as received, when it is kept whole; nil for a
	// view.
	Whole ChildObject
	// Meta is a view's metadata (the child caches decide what of it).
	Meta metav1.ObjectMeta
	// Body builds a view's typed object from Meta.
	Body Body
	// OwnedDigest is DigestOf the fields ogx-controller owns in the whole
	// object; zero when Whole is set.
	OwnedDigest Digest
	// OwnsReplicas: ogx-controller owns spec.replicas (Deployment views
	// only).
	OwnsReplicas bool
	// OwnWrite: OwnedDigest is what one of our applies sent, as this
	// version is that apply's answer or, while a create is in flight, taken
	// for it (RecentWrites.SentFor). Its event starts no pass of the
	// controller that wrote it (caches.Watch.SkipOwnWrites). An answer whose
	// digest the Deployment view kept from the version before is not marked
	// (one pass more).
	OwnWrite bool
}

// Body is a view's part that is not metadata: what the readers of its kind
// use. Object returns a new typed object with meta and that part; a body
// is never changed once cached, so the objects share what it holds.
type Body interface {
	Object(meta metav1.ObjectMeta) ChildObject
}

// ChildObject is a typed child object.
type ChildObject interface {
	metav1.Object
	runtime.Object
}

// Typed returns the child as a typed object: Whole, or one built from the
// view. Readers must not change what it shares with the cache: a view's
// managedFields list is shared by every view with the same entries.
func (c *CachedChild) Typed() ChildObject {
	if c.Whole != nil {
		return c.Whole
	}
	return c.Body.Object(c.Meta)
}

// GetObjectMeta makes the cache's key functions and the event handlers see
// the child's metadata.
func (c *CachedChild) GetObjectMeta() metav1.Object {
	if c.Whole != nil {
		return c.Whole
	}
	return &c.Meta
}

// GetObjectKind makes CachedChild a runtime.Object; a cached child has no
// type metadata of its own.
func (c *CachedChild) GetObjectKind() schema.ObjectKind { return schema.EmptyObjectKind }

// DeepCopyObject makes CachedChild a runtime.Object, as caches need. A
// body is shared: it is never changed.
func (c *CachedChild) DeepCopyObject() runtime.Object {
	out := *c
	if c.Whole != nil {
		out.Whole = c.Whole.DeepCopyObject().(ChildObject)
	}
	c.Meta.DeepCopyInto(&out.Meta)
	return &out
}

// Digest is the sha256 of an apply configuration's JSON (DigestOf); the
// zero Digest is none. An array, not its hex string: a view holds 32
// bytes where a string held 80 (with its header), about 0.2 KiB per server
// at N=1,000.
type Digest [sha256.Size]byte

// IsZero reports whether d is none.
func (d Digest) IsZero() bool { return d == Digest{} }

// String is d in hex, for logs and test failures.
func (d Digest) String() string { return hex.EncodeToString(d[:]) }

// DigestOf is the digest of an apply configuration: sha256 of its JSON.
// encoding/json writes map keys sorted and every quantity in its canonical
// form, so the same fields with the same values get the same digest. The
// converse is not exact (an integer and its quantity spelling differ), and
// a false difference costs one apply that changes nothing.
func DigestOf(ac any) (Digest, error) {
	b, err := json.Marshal(ac)
	if err != nil {
		return Digest{}, fmt.Errorf("encoding apply configuration: %w", err)
	}
	return sha256.Sum256(b), nil
}

// KnownOf reads a cache entry: a CachedChild (child caches) or a whole
// object (the ConfigMaps' cache).
func KnownOf[O metav1.Object](kind string, obj any) (Known[O], error) {
	if c, ok := obj.(*CachedChild); ok {
		typed := c.Typed()
		if o, ok := typed.(O); ok && c.Whole == nil {
			return Known[O]{Obj: o, Digest: c.OwnedDigest, OwnsReplicas: c.OwnsReplicas}, nil
		}
		obj = typed
	}
	if o, ok := obj.(O); ok {
		return Known[O]{Obj: o}, nil
	}
	return Known[O]{}, fmt.Errorf("%s cache holds a %T", kind, obj)
}

// AsObject converts an apply configuration to the typed object of the same
// kind: for a write that is a create or an update rather than an apply
// (the PVC's create, the status write's typed copy).
func AsObject[T any](ac any) (*T, error) {
	b, err := json.Marshal(ac)
	if err != nil {
		return nil, err
	}
	out := new(T)
	if err := json.Unmarshal(b, out); err != nil {
		return nil, err
	}
	return out, nil
}
