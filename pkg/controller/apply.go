package controller

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/klog/v2"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/render"
	"github.com/ogx-k8s/ogx-controller/pkg/metrics"
)

// waitRequeue is how long a controller waits before looking again at
// something it cannot speed up (an old incarnation's child being collected,
// legacy pods terminating, a ConfigMap not yet in the cache).
const waitRequeue = 5 * time.Second

// WaitingError means the pass cannot proceed yet and should look again
// shortly; it is not a failure. Reason defaults to Progressing.
type WaitingError struct{ Reason, Message string }

func (e *WaitingError) Error() string { return e.Message }

// child is what the applier needs to know about one kind of child object:
// where to read it (cache first, then a live GET), how to extract the fields
// ogx-controller owns, and how to apply and delete it.
type child[O metav1.Object, AC any] struct {
	kind       string
	apiVersion string
	// metrics counts writes and skipped applies; nil counts nothing.
	metrics *metrics.Metrics
	// takeover lists the field managers whose ownership is merged into ours
	// before the first apply (--takeover-field-managers).
	takeover []string
	cached   func(namespace, name string) (O, error)
	live     func(ctx context.Context, namespace, name string) (O, error)
	extract  func(obj O) (AC, error)
	apply    func(ctx context.Context, namespace string, ac AC) (O, error)
	delete   func(ctx context.Context, namespace, name string, opts metav1.DeleteOptions) error
	patch    func(ctx context.Context, namespace, name string, jsonPatch []byte) (O, error)
}

// writeResult says what converge did.
type writeResult string

const (
	writeSkipped writeResult = "skipped"
	writeCreated writeResult = "created"
	writeUpdated writeResult = "updated"
	writeDeleted writeResult = "deleted"
	writeAbsent  writeResult = "absent"
)

// lookup finds the existing object with the child's name: the cache first,
// then one live GET, because the label-filtered caches cannot show an
// unlabelled object that happens to have the child's name. found is false
// when neither has it.
func (c *child[O, AC]) lookup(ctx context.Context, namespace, name string) (obj O, found bool, err error) {
	obj, err = c.cached(namespace, name)
	if err == nil {
		return obj, true, nil
	}
	if !apierrors.IsNotFound(err) {
		return obj, false, fmt.Errorf("reading %s %s/%s from cache: %w", c.kind, namespace, name, err)
	}
	obj, err = c.live(ctx, namespace, name)
	switch {
	case err == nil:
		return obj, true, nil
	case apierrors.IsNotFound(err):
		return obj, false, nil
	}
	return obj, false, fmt.Errorf("reading %s %s/%s: %w", c.kind, namespace, name, err)
}

// guard applies the ownership rules to an existing object with the child's
// name (controller spec §3.4.3): nil means ogx-controller may write it.
func guard(owner *ogxv1beta1.OGXServer, kind string, obj metav1.Object) error {
	ref := metav1.GetControllerOfNoCopy(obj)
	switch {
	case ref != nil && ref.UID == owner.UID:
		return nil
	case ref == nil && obj.GetLabels()[render.LabelManagedBy] == render.ManagedByValue:
		// An orphan with our label, e.g. a Deployment whose owner reference
		// the upstream operator stripped: adopt it.
		return nil
	case ref != nil && ref.Kind == "OGXServer" && ref.Name == owner.Name && isOGXGroup(ref.APIVersion):
		return &WaitingError{Message: fmt.Sprintf(
			"waiting for garbage collection of %s %s owned by a previous OGXServer", kind, obj.GetName())}
	}
	return NewUserError(ReasonChildConflict, "%s %s exists and is not managed by this OGXServer", kind, obj.GetName())
}

func isOGXGroup(apiVersion string) bool {
	gv, err := schema.ParseGroupVersion(apiVersion)
	return err == nil && gv.Group == ogxv1beta1.GroupName
}

// converge applies desired unless the fields ogx-controller owns in the
// existing object already equal it (no request at all then), after checking
// that the object may be written.
func (c *child[O, AC]) converge(ctx context.Context, owner *ogxv1beta1.OGXServer, name string, desired AC) (writeResult, error) {
	logger := klog.FromContext(ctx)
	existing, found, err := c.lookup(ctx, owner.Namespace, name)
	if err != nil {
		return "", err
	}
	result := writeCreated
	if found {
		if err := guard(owner, c.kind, existing); err != nil {
			return "", err
		}
		if existing, err = c.takeOver(ctx, existing); err != nil {
			return "", err
		}
		owned, err := c.extract(existing)
		if err != nil {
			return "", fmt.Errorf("extracting owned fields of %s %s: %w", c.kind, name, err)
		}
		if equality.Semantic.DeepEqual(owned, desired) {
			c.metrics.CountApplySkipped(c.kind)
			logger.V(4).Info("Apply skipped: no change", "kind", c.kind, "name", name)
			return writeSkipped, nil
		}
		result = writeUpdated
	}
	c.metrics.CountWrite(c.kind, metrics.VerbApply)
	if _, err := c.apply(ctx, owner.Namespace, desired); err != nil {
		return "", classifyWriteError(c.kind, name, err)
	}
	logger.Info("Applied child", "kind", c.kind, "name", name, "result", result)
	return result, nil
}

// takeOver merges the field ownership of the upstream operator's managers
// into ours, once per object: afterwards no listed manager owns anything, so
// later passes find nothing to do here.
func (c *child[O, AC]) takeOver(ctx context.Context, obj O) (O, error) {
	if len(c.takeover) == 0 || c.patch == nil {
		return obj, nil
	}
	patch, err := takeoverPatch(obj, c.apiVersion, c.takeover, "", time.Now())
	if err != nil || patch == nil {
		return obj, err
	}
	c.metrics.CountWrite(c.kind, metrics.VerbPatch)
	out, err := c.patch(ctx, obj.GetNamespace(), obj.GetName(), patch)
	if err != nil {
		return obj, classifyWriteError(c.kind, obj.GetName(), err)
	}
	klog.FromContext(ctx).Info("Took over field ownership from the upstream operator", "kind", c.kind, "name", obj.GetName())
	return out, nil
}

// remove deletes the child when it exists and is controlled by this
// OGXServer, with a UID precondition; anything else is left alone.
func (c *child[O, AC]) remove(ctx context.Context, owner *ogxv1beta1.OGXServer, name string) (writeResult, error) {
	existing, err := c.cached(owner.Namespace, name)
	if apierrors.IsNotFound(err) {
		return writeAbsent, nil
	}
	if err != nil {
		return "", err
	}
	ref := metav1.GetControllerOfNoCopy(existing)
	if ref == nil || ref.UID != owner.UID {
		return writeAbsent, nil
	}
	uid := existing.GetUID()
	c.metrics.CountWrite(c.kind, metrics.VerbDelete)
	err = c.delete(ctx, owner.Namespace, name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
	switch {
	case apierrors.IsNotFound(err):
		return writeAbsent, nil
	case err != nil:
		return "", classifyWriteError(c.kind, name, err)
	}
	klog.FromContext(ctx).Info("Deleted child", "kind", c.kind, "name", name)
	return writeDeleted, nil
}

// classifyWriteError turns a rejected write into a user error (a 4xx other
// than 409 and 429: retrying the same request cannot succeed) or leaves it
// transient.
func classifyWriteError(kind, name string, err error) error {
	if status, ok := err.(apierrors.APIStatus); ok {
		code := status.Status().Code
		if code >= 400 && code < 500 && code != 409 && code != 429 {
			return &UserError{Reason: ReasonApplyFailed, Err: fmt.Errorf("%s/%s: %w", kind, name, err)}
		}
	}
	return fmt.Errorf("writing %s %s: %w", kind, name, err)
}

// applyOptions are the options of every server-side apply.
func applyOptions() metav1.ApplyOptions {
	return metav1.ApplyOptions{FieldManager: render.FieldManager, Force: true}
}
