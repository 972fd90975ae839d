package controller

import (
	"context"
	"fmt"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/events"
	"github.com/ogx-k8s/ogx-controller/pkg/metrics"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

// child is what the applier needs to know about one kind of child object:
// where to read it (the cache; live only after a create conflict), how to extract the fields
// ogx-controller owns, and how to apply and delete it.
type child[O metav1.Object, AC any] struct {
	kind       string
	apiVersion string
	// metrics counts writes and skipped applies; nil counts nothing.
	metrics *metrics.Metrics
	// takeover lists the field managers whose ownership is merged into ours
	// before the first apply (--takeover-field-managers).
	takeover []string
	// journal notes takeovers for the server's next Event; nil notes none.
	journal *events.Journal
	cached  func(namespace, name string) (known[O], error)
	// setResourceVersion sets (or, with "", clears) the resourceVersion
	// precondition of an apply configuration.
	setResourceVersion func(ac AC, rv string)
	// recent holds what our writes returned until the cache shows it; nil
	// remembers nothing.
	recent *recentWrites[O]
	// taken holds the NS/names a create-only apply found taken by an
	// object the cache cannot show.
	taken   sync.Map
	live    func(ctx context.Context, namespace, name string) (O, error)
	extract func(obj O) (AC, error)
	apply   func(ctx context.Context, namespace string, ac AC) (O, error)
	delete  func(ctx context.Context, namespace, name string, opts metav1.DeleteOptions) error
	patch   func(ctx context.Context, namespace, name string, jsonPatch []byte) (O, error)
}

// absentResourceVersion is the resourceVersion precondition of the first
// write of a child the cache does not show. No stored object has it (etcd
// numbers the first write 2), so the API server creates the object when the
// name is free and answers 409 Conflict when anything already holds it,
// labelled or not. That conflict is the only reason to read live: a new
// child costs exactly one request, and the ownership guard still sees every
// object whose name we would take.
const absentResourceVersion = "1"

// readLive reads the object with the child's name from the API server. It is
// called only after a write was refused with a conflict, because the
// label-filtered caches cannot show an unlabelled object with that name.
func (c *child[O, AC]) readLive(ctx context.Context, namespace, name string) (obj O, found bool, err error) {
	obj, err = c.live(ctx, namespace, name)
	switch {
	case err == nil:
		return obj, true, nil
	case apierrors.IsNotFound(err):
		return obj, false, nil
	}
	return obj, false, fmt.Errorf("reading %s %s/%s: %w", c.kind, namespace, name, err)
}

// converge writes desired unless the fields ogx-controller owns in the
// existing object already equal it (no request at all then). Reads come
// from the cache; a child the cache does not show is created with one
// create-only apply, and only when the API server refuses it because the
// name is taken is the object read live and put through the guard. A name
// found taken that way is read live directly on later passes (a foreign
// object keeps failing the guard; one request per retry, not two).
func (c *child[O, AC]) converge(ctx context.Context, owner *ogxv1beta1.OGXServer, name string, desired AC) (events.WriteResult, error) {
	return c.convergeCreating(ctx, owner, name, desired, desired)
}

// convergeCreating is converge with another object for a create: onCreate
// is sent when the child does not exist yet, desired otherwise. It serves
// fields that only the first write may set and that ogx-controller then
// hands to another owner (the replica count of an autoscaled Deployment,
// docs/children.md).
func (c *child[O, AC]) convergeCreating(ctx context.Context, owner *ogxv1beta1.OGXServer, name string, desired, onCreate AC) (events.WriteResult, error) {
	cached, err := c.cached(owner.Namespace, name)
	if err != nil && !apierrors.IsNotFound(err) {
		return "", fmt.Errorf("reading %s %s/%s from cache: %w", c.kind, owner.Namespace, name, err)
	}
	if existing, found := c.newer(owner.Namespace, name, cached, err == nil); found {
		return c.update(ctx, owner, name, existing, desired, false)
	}
	key := recentKey(owner.Namespace, name)
	_, taken := c.taken.Load(key)
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
			return c.createUnconditionally(ctx, owner, name, onCreate)
		}
		// Deleted in between: the next pass (from its delete event, or this
		// retry) creates it.
		return "", fmt.Errorf("%s %s/%s vanished after a create conflict; retrying", c.kind, owner.Namespace, name)
	}
	res, err := c.update(ctx, owner, name, known[O]{obj: live}, desired, true)
	if err == nil {
		// Ours now, and labelled: the cache shows it from here on.
		c.taken.Delete(key)
	}
	return res, err
}

// create sends the create-only apply. conflict reports that the API server
// refused it because an object with the name exists.
func (c *child[O, AC]) create(ctx context.Context, owner *ogxv1beta1.OGXServer, name string, desired AC) (conflict bool, err error) {
	c.setResourceVersion(desired, absentResourceVersion)
	defer c.setResourceVersion(desired, "")
	out, err := c.apply(ctx, owner.Namespace, desired)
	if err != nil {
		if apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err) {
			return true, err
		}
		if isResourceVersionOnCreateRefused(err) {
			return false, err
		}
		return false, classifyWriteError(c.kind, name, err)
	}
	c.recent.remember(out)
	klog.FromContext(ctx).Info("Applied child", "kind", c.kind, "name", name, "result", events.Created)
	return false, nil
}

// createUnconditionally applies desired without a precondition, after a
// live read found no object with the name.
func (c *child[O, AC]) createUnconditionally(ctx context.Context, owner *ogxv1beta1.OGXServer, name string, desired AC) (events.WriteResult, error) {
	out, err := c.apply(ctx, owner.Namespace, desired)
	if err != nil {
		return "", classifyWriteError(c.kind, name, err)
	}
	c.recent.remember(out)
	klog.FromContext(ctx).Info("Applied child", "kind", c.kind, "name", name, "result", events.Created)
	return events.Created, nil
}

// update checks that an existing object may be written, takes it over from
// the upstream operator if needed and applies desired when what we own
// differs from it. With pinned, the apply carries the resourceVersion of
// existing as a precondition: the guard's verdict on a live read holds only
// for that version.
func (c *child[O, AC]) update(ctx context.Context, owner *ogxv1beta1.OGXServer, name string, existing known[O], desired AC, pinned bool) (events.WriteResult, error) {
	logger := klog.FromContext(ctx)
	if err := guard(owner, c.kind, existing.obj); err != nil {
		return "", err
	}
	existing, err := c.takeOverKnown(ctx, owner, existing)
	if err != nil {
		return "", err
	}
	owned, err := c.ownedDigest(existing)
	if err != nil {
		return "", fmt.Errorf("extracting owned fields of %s %s: %w", c.kind, name, err)
	}
	want, err := digestOf(desired)
	if err != nil {
		return "", err
	}
	if owned == want {
		c.metrics.CountApplySkipped(c.kind)
		logger.V(4).Info("Apply skipped: no change", "kind", c.kind, "name", name)
		return events.Skipped, nil
	}
	if logger.V(4).Enabled() {
		c.logDiff(ctx, owner.Namespace, name, desired)
	}
	if pinned {
		c.setResourceVersion(desired, existing.obj.GetResourceVersion())
		defer c.setResourceVersion(desired, "")
	}
	out, err := c.apply(ctx, owner.Namespace, desired)
	if err != nil {
		return "", classifyWriteError(c.kind, name, err)
	}
	c.recent.remember(out)
	logger.Info("Applied child", "kind", c.kind, "name", name, "result", events.Updated)
	return events.Updated, nil
}

// ownedDigest is the digest of the fields ogx-controller owns in k: the
// cache's, else extracted from the whole object.
func (c *child[O, AC]) ownedDigest(k known[O]) (string, error) {
	if k.digest != "" {
		return k.digest, nil
	}
	owned, err := c.extract(k.obj)
	if err != nil {
		return "", err
	}
	return digestOf(owned)
}

// remove deletes the child when it exists and is controlled by this
// OGXServer, with a UID precondition; anything else is left alone.
func (c *child[O, AC]) remove(ctx context.Context, owner *ogxv1beta1.OGXServer, name string) (events.WriteResult, error) {
	cached, err := c.cached(owner.Namespace, name)
	if apierrors.IsNotFound(err) {
		return events.Absent, nil
	}
	if err != nil {
		return "", err
	}
	existing := cached.obj
	ref := metav1.GetControllerOfNoCopy(existing)
	if ref == nil || ref.UID != owner.UID {
		return events.Absent, nil
	}
	uid := existing.GetUID()
	err = c.delete(ctx, owner.Namespace, name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
	switch {
	case apierrors.IsNotFound(err):
		return events.Absent, nil
	case err != nil:
		return "", classifyWriteError(c.kind, name, err)
	}
	c.recent.observe(existing, true)
	klog.FromContext(ctx).Info("Deleted child", "kind", c.kind, "name", name)
	return events.Deleted, nil
}

// applyOptions are the options of every server-side apply.
func applyOptions() metav1.ApplyOptions {
	return metav1.ApplyOptions{FieldManager: render.FieldManager, Force: true}
}

// observe is the informer hook of recent: it runs for every event of the
// kind before the event enqueues any key.
func (c *child[O, AC]) observe(obj metav1.Object, deleted bool) { c.recent.observe(obj, deleted) }

// known is a child as ogx-controller last knew it: from the cache
// (trimmed, with the digest of the fields it owns; see cachedChild) or from
// the answer to one of our writes or a live read (whole, digest empty).
type known[O metav1.Object] struct {
	obj          O
	digest       string
	ownsReplicas bool
}

// current returns the object with the child's name as ogx-controller last
// knew it: the cache, or our own newer write the cache has not delivered
// yet. The status controller reads children through it, so it never reports
// a child missing or stale that a controller has just written.
func (c *child[O, AC]) current(namespace, name string) (known[O], bool) {
	cached, err := c.cached(namespace, name)
	return c.newer(namespace, name, cached, err == nil)
}

// newer returns our own write of the child when it is newer than cached
// (found false: the cache does not hold it), else cached.
func (c *child[O, AC]) newer(namespace, name string, cached known[O], found bool) (known[O], bool) {
	obj, ok := c.recent.newer(namespace, name, cached.obj, found)
	switch {
	case !ok:
		return known[O]{}, false
	case found && obj.GetResourceVersion() == cached.obj.GetResourceVersion():
		return cached, true
	}
	return known[O]{obj: obj}, true
}

// takeOverKnown is takeOver on a known child: an object it patched is
// known whole.
func (c *child[O, AC]) takeOverKnown(ctx context.Context, owner *ogxv1beta1.OGXServer, k known[O]) (known[O], error) {
	obj, err := c.takeOver(ctx, owner, k.obj)
	if err != nil {
		return k, err
	}
	if any(obj) != any(k.obj) {
		return known[O]{obj: obj}, nil
	}
	return k, nil
}
