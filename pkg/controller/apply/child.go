// Package apply holds the rules every write of a child follows: create-only
// first writes, the ownership guard, the no-op skip, the takeover and
// remembered writes (docs/architecture.md, Writes). A Child binds these rules
// to one kind; the child caches hold a CachedChild per object, which Known
// reads.
package apply

import (
	"context"
	"fmt"
	"reflect"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	"k8s.io/klog/v2"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/events"
	"github.com/ogx-k8s/ogx-controller/pkg/metrics"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

// Child is what the applier needs to know about one kind of child object:
// where to read it (the cache; live only after a create conflict), how to
// extract the fields ogx-controller owns, and how to apply and delete it.
// The manager binds one per kind to its typed client and cache.
type Child[O metav1.Object, AC any] struct {
	Kind       string
	APIVersion string
	// Metrics counts writes and skipped applies; nil counts nothing.
	Metrics *metrics.Metrics
	// Takeover lists the field managers whose ownership is merged into
	// ours before the first apply (--takeover-field-managers).
	Takeover []string
	// Journal notes takeovers for the server's next Event; nil notes none.
	Journal *events.Journal
	// Cached reads the child from the cache.
	Cached func(namespace, name string) (Known[O], error)
	// SetResourceVersion sets (or, with "", clears) the resourceVersion
	// precondition of an apply configuration.
	SetResourceVersion func(ac AC, rv string)
	// Recent holds what our writes returned until the cache shows it; nil
	// remembers nothing.
	Recent *RecentWrites[O]
	// taken holds the NS/names a create-only apply found taken by an
	// object the cache cannot show.
	taken   sync.Map
	Live    func(ctx context.Context, namespace, name string) (O, error)
	Extract func(obj O) (AC, error)
	Apply   func(ctx context.Context, namespace string, ac AC) (O, error)
	Delete  func(ctx context.Context, namespace, name string, opts metav1.DeleteOptions) error
	Patch   func(ctx context.Context, namespace, name string, jsonPatch []byte) (O, error)
}

// AbsentResourceVersion is the resourceVersion precondition of the first
// write of a child the cache does not show: no stored object has it (etcd
// numbers the first write 2), so a taken name, labelled or not, answers 409
// and a new child costs one request (docs/controllers.md, Ownership guard).
const AbsentResourceVersion = "1"

// readLive reads the object with the child's name from the API server. It is
// called only after a write was refused with a conflict, because the
// label-filtered caches cannot show an unlabelled object with that name.
func (c *Child[O, AC]) readLive(ctx context.Context, namespace, name string) (obj O, found bool, err error) {
	obj, err = c.Live(ctx, namespace, name)
	switch {
	case err == nil:
		return obj, true, nil
	case apierrors.IsNotFound(err):
		return obj, false, nil
	}
	return obj, false, fmt.Errorf("reading %s %s/%s: %w", c.Kind, namespace, name, err)
}

// Converge writes desired unless the fields ogx-controller owns in the
// existing object already equal it (docs/controllers.md, No-op skip and drift,
// Ownership guard). A name found taken is read live directly on later passes:
// a foreign object keeps failing the guard, one request per retry, not two.
func (c *Child[O, AC]) Converge(ctx context.Context, owner *ogxv1beta1.OGXServer, name string, desired AC) (events.WriteResult, error) {
	return c.ConvergeCreating(ctx, owner, name, desired, desired)
}

// ConvergeCreating is converge with another object for a create: onCreate
// is sent when the child does not exist yet, desired otherwise. It serves
// fields that only the first write may set and that ogx-controller then
// hands to another owner (the replica count of an autoscaled Deployment,
// docs/children.md).
func (c *Child[O, AC]) ConvergeCreating(ctx context.Context, owner *ogxv1beta1.OGXServer, name string, desired, onCreate AC) (events.WriteResult, error) {
	key := recentKey(owner.Namespace, name)
	_, taken := c.taken.Load(key)
	// A taken name is read live until a write to it succeeds: the cache
	// may not show the object, or show it with the digest of our create
	// that lost the race (RecentWrites.SentFor).
	if !taken {
		existing, found, err := c.known(owner.Namespace, name)
		if err != nil {
			return "", fmt.Errorf("reading %s %s/%s from cache: %w", c.Kind, owner.Namespace, name, err)
		}
		if found {
			return c.update(ctx, owner, name, existing, desired, false)
		}
	}
	preconditionRefused := false
	if !taken {
		conflict, err := c.create(ctx, owner, name, onCreate)
		switch {
		case err == nil:
			return events.Created, nil
		case conflict:
			c.taken.Store(key, true)
		case isResourceVersionOnCreateRefused(err):
			// An API server that refuses a resourceVersion on an apply
			// that creates: read first, as before create-only applies.
			preconditionRefused = true
		default:
			return "", err
		}
	}
	// The name is taken by an object the cache cannot show (unlabelled, or
	// the cache is behind): look at it and decide as for a cached one.
	live, found, err := c.readLive(ctx, owner.Namespace, name)
	if err != nil {
		return "", err
	}
	if !found {
		c.taken.Delete(key)
		if preconditionRefused {
			sent, err := DigestOf(onCreate)
			if err != nil {
				return "", err
			}
			return c.write(ctx, owner, name, onCreate, sent, events.Created)
		}
		// Deleted in between: the next pass (from its delete event, or this
		// retry) creates it.
		return "", fmt.Errorf("%s %s/%s vanished after a create conflict; retrying", c.Kind, owner.Namespace, name)
	}
	res, err := c.update(ctx, owner, name, Known[O]{Obj: live}, desired, true)
	if err == nil {
		// Ours now, and labelled: the cache shows it from here on.
		c.taken.Delete(key)
	}
	return res, err
}

// create sends the create-only apply. conflict reports that the API server
// refused it because an object with the name exists.
func (c *Child[O, AC]) create(ctx context.Context, owner *ogxv1beta1.OGXServer, name string, desired AC) (conflict bool, err error) {
	sent, err := DigestOf(desired)
	if err != nil {
		return false, err
	}
	c.SetResourceVersion(desired, AbsentResourceVersion)
	defer c.SetResourceVersion(desired, "")
	c.Recent.Creating(owner.Namespace, name, sent)
	// After a Remember, Abandon finds nothing left to end.
	defer c.Recent.Abandon(owner.Namespace, name)
	_, err = c.write(ctx, owner, name, desired, sent, events.Created)
	return apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err), err
}

// write applies desired, whose digest without a resourceVersion is sent,
// remembers what the API server returned and reports result; a refused
// apply is classified (ClassifyWriteError, which keeps the API status
// reachable through %w).
func (c *Child[O, AC]) write(ctx context.Context, owner *ogxv1beta1.OGXServer, name string, desired AC, sent Digest, result events.WriteResult) (events.WriteResult, error) {
	out, err := c.Apply(ctx, owner.Namespace, desired)
	if err != nil {
		return "", ClassifyWriteError(c.Kind, name, err)
	}
	c.Recent.Remember(out, sent)
	// A fleet start creates four children per server; logging each at the
	// default verbosity cost 1.5% of the operator's CPU (session 28's
	// profile, make bench -n 1000). A new server's creates log at -v=2;
	// updates and creates for a server already running (a deleted child
	// recreated) stay in the default log.
	logger := klog.FromContext(ctx)
	if result == events.Created && (owner.Status.Phase == "" || owner.Status.Phase.Starting()) {
		logger = logger.V(2)
	}
	logger.Info("Applied child", "kind", c.Kind, "name", name, "result", result)
	return result, nil
}

// update checks that an existing object may be written, takes it over from
// the upstream operator if needed and applies desired when what we own
// differs from it. With pinned, the apply carries the resourceVersion of
// existing as a precondition: the guard's verdict on a live read holds only
// for that version.
func (c *Child[O, AC]) update(ctx context.Context, owner *ogxv1beta1.OGXServer, name string, existing Known[O], desired AC, pinned bool) (events.WriteResult, error) {
	logger := klog.FromContext(ctx)
	if err := Guard(owner, c.Kind, existing.Obj); err != nil {
		return "", err
	}
	existing, err := c.TakeOverKnown(ctx, owner, existing)
	if err != nil {
		return "", err
	}
	owned, err := c.ownedDigest(existing)
	if err != nil {
		return "", fmt.Errorf("extracting owned fields of %s %s: %w", c.Kind, name, err)
	}
	want, err := DigestOf(desired)
	if err != nil {
		return "", err
	}
	if owned == want {
		c.Metrics.CountApplySkipped(c.Kind)
		logger.V(4).Info("Apply skipped: no change", "kind", c.Kind, "name", name)
		return events.Skipped, nil
	}
	if logger.V(4).Enabled() {
		c.logDiff(ctx, owner.Namespace, name, desired)
	}
	if pinned {
		c.SetResourceVersion(desired, existing.Obj.GetResourceVersion())
		defer c.SetResourceVersion(desired, "")
	}
	return c.write(ctx, owner, name, desired, want, events.Updated)
}

// ownedDigest is the digest of the fields ogx-controller owns in k: the
// cache's, or what our write sent, else extracted from the whole object.
func (c *Child[O, AC]) ownedDigest(k Known[O]) (Digest, error) {
	if !k.Digest.IsZero() {
		return k.Digest, nil
	}
	if !k.Sent.IsZero() {
		return k.Sent, nil
	}
	owned, err := c.Extract(k.Obj)
	if err != nil {
		return Digest{}, err
	}
	return DigestOf(owned)
}

// Remove deletes the child when it exists and is controlled by this
// OGXServer, with a UID precondition; anything else is left alone.
func (c *Child[O, AC]) Remove(ctx context.Context, owner *ogxv1beta1.OGXServer, name string) (events.WriteResult, error) {
	cached, err := c.Cached(owner.Namespace, name)
	if apierrors.IsNotFound(err) {
		return events.Absent, nil
	}
	if err != nil {
		return "", err
	}
	existing := cached.Obj
	if !metav1.IsControlledBy(existing, owner) {
		return events.Absent, nil
	}
	uid := existing.GetUID()
	err = c.Delete(ctx, owner.Namespace, name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
	switch {
	case apierrors.IsNotFound(err):
		return events.Absent, nil
	case err != nil:
		return "", ClassifyWriteError(c.Kind, name, err)
	}
	c.Recent.Observe(existing, true)
	klog.FromContext(ctx).Info("Deleted child", "kind", c.Kind, "name", name)
	return events.Deleted, nil
}

// ApplyOptions are the options of every server-side apply.
func ApplyOptions() metav1.ApplyOptions {
	return metav1.ApplyOptions{FieldManager: render.FieldManager, Force: true}
}

// Observe is the informer hook of recent: it runs for every event of the
// kind before the event enqueues any key.
func (c *Child[O, AC]) Observe(obj metav1.Object, deleted bool) { c.Recent.Observe(obj, deleted) }

// Known is a child as ogx-controller last knew it: built from the cache's
// view (with the digest of the fields it owns; see CachedChild) or from
// the answer to one of our writes or a live read (whole, digest zero).
type Known[O metav1.Object] struct {
	Obj          O
	Digest       Digest
	OwnsReplicas bool
	// Sent is, for the answer to one of our applies, the digest of what it
	// sent: the API server stores an apply's fields as sent (render writes
	// the defaults it would add), so this is what we own in Obj without
	// extracting it again while the cache is behind (4% of the operator's
	// CPU in a fleet start, docs/performance.md, Where the CPU goes). The
	// cache keeps it for the event of that object too (caches.KnowWrites):
	// a webhook's change to our fields shows at the object's next change
	// by another writer (docs/controllers.md, No-op skip and drift).
	Sent Digest
}

// Current returns the object with the child's name as ogx-controller last
// knew it: the cache, or our own newer write the cache has not delivered
// yet. The status controller reads children through it, so it never reports
// a child missing or stale that a controller has just written.
func (c *Child[O, AC]) Current(namespace, name string) (Known[O], bool) {
	k, found, _ := c.known(namespace, name)
	return k, found
}

// known is Current with the cache's errors other than NotFound. It reads
// the remembered write before the cache: Observe drops a remembered write
// only once the cache holds that version, so a write missing from Recent
// is in the cache read next, and one found there is compared with it. Read
// the other way round, the informer could deliver the write between the
// two reads and leave an older cached version, or none, standing.
func (c *Child[O, AC]) known(namespace, name string) (Known[O], bool, error) {
	written, sent, remembered := c.Recent.Lookup(namespace, name)
	cached, err := c.Cached(namespace, name)
	switch {
	case err != nil && !apierrors.IsNotFound(err):
		return Known[O]{}, false, err
	case !remembered:
		return cached, err == nil, nil
	case err == nil && !NewerRV(written.GetResourceVersion(), cached.Obj.GetResourceVersion()):
		c.Recent.Forget(namespace, name, written.GetResourceVersion())
		return cached, true, nil
	}
	return Known[O]{Obj: written, Sent: sent}, true, nil
}

// TakeOverKnown is takeOver on a known child: an object it patched is
// known whole.
func (c *Child[O, AC]) TakeOverKnown(ctx context.Context, owner *ogxv1beta1.OGXServer, k Known[O]) (Known[O], error) {
	obj, err := c.TakeOver(ctx, owner, k.Obj)
	if err != nil {
		return k, err
	}
	if any(obj) != any(k.Obj) {
		return Known[O]{Obj: obj}, nil
	}
	return k, nil
}

// SetTypedResourceVersion sets the resourceVersion of a generated apply
// configuration, or removes it with "". Every generated apply configuration
// embeds *ObjectMetaApplyConfiguration, but Go offers no generic access to
// an embedded field, and the kinds' own WithResourceVersion cannot unset it.
func SetTypedResourceVersion(ac any, rv string) {
	v := reflect.ValueOf(ac)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return
	}
	f := v.Elem().FieldByName("ObjectMetaApplyConfiguration")
	if !f.IsValid() || f.Type() != reflect.TypeFor[*metav1ac.ObjectMetaApplyConfiguration]() {
		return
	}
	if f.IsNil() {
		if rv == "" {
			return
		}
		f.Set(reflect.New(f.Type().Elem()))
	}
	meta := f.Interface().(*metav1ac.ObjectMetaApplyConfiguration)
	meta.ResourceVersion = nil
	if rv != "" {
		meta.ResourceVersion = &rv
	}
}
