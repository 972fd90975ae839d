package apply

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// CachedChild is what a child cache holds for one child.
type CachedChild struct {
	metav1.TypeMeta
	// Object is the child, trimmed to what its readers use (the child caches
	// decide what) unless OwnedDigest is empty.
	Object ChildObject
	// OwnedDigest is DigestOf the fields ogx-controller owns in the whole
	// object; empty when Object is whole.
	OwnedDigest string
	// OwnsReplicas: ogx-controller owns spec.replicas (Deployments with a
	// digest only).
	OwnsReplicas bool
	// OwnedFieldSet is the sha256 of our Apply entry's API version and
	// field set, for Deployments with a digest: with the generation and
	// metadata it tells when the digest still holds (caches, reuse.go).
	OwnedFieldSet [32]byte
}

// ChildObject is a typed child object.
type ChildObject interface {
	metav1.Object
	runtime.Object
}

// GetObjectMeta makes the cache's key functions and the event handlers see
// the child's metadata.
func (c *CachedChild) GetObjectMeta() metav1.Object { return c.Object }

// DeepCopyObject makes CachedChild a runtime.Object, as caches need.
func (c *CachedChild) DeepCopyObject() runtime.Object {
	out := *c
	out.Object = c.Object.DeepCopyObject().(ChildObject)
	return &out
}

// DigestOf is the digest of an apply configuration: sha256 of its JSON.
// encoding/json writes map keys sorted and every quantity in its canonical
// form, so the same fields with the same values get the same digest. The
// converse is not exact (an integer and its quantity spelling differ), and
// a false difference costs one apply that changes nothing.
func DigestOf(ac any) (string, error) {
	b, err := json.Marshal(ac)
	if err != nil {
		return "", fmt.Errorf("encoding apply configuration: %w", err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// KnownOf reads a cache entry: a CachedChild (child caches) or a whole
// object (the ConfigMaps' cache).
func KnownOf[O metav1.Object](kind string, obj any) (Known[O], error) {
	if c, ok := obj.(*CachedChild); ok {
		if o, ok := c.Object.(O); ok {
			return Known[O]{Obj: o, Digest: c.OwnedDigest, OwnsReplicas: c.OwnsReplicas}, nil
		}
		obj = c.Object
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
