package caches

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/ogx-k8s/ogx-controller/pkg/controller/apply"
)

// DeploymentNonStatusChanged reports whether an update of a cached
// Deployment changed more than its status: the filter of the deployment
// controller's Deployment watch (the status controller sees every update).
// Most Deployment events of a fleet start are kube-controller-manager's
// status writes (about 3.4 per server), and before this filter each started
// a deployment pass that rendered, hashed and skipped.
//
// The deployment pass reads a cached Deployment's identity, owner
// references, labels, finalizers and deletion, the digest of the fields we
// own (which covers our annotations), who manages it outside /status
// (takeover, the strategy patch), spec.replicas and the strategy type;
// never the status, the resourceVersion or annotations we do not own. A
// view kept whole (a takeover pending, an unreadable field set) counts as
// changed.
func DeploymentNonStatusChanged(old, cur any) bool {
	o, ok1 := old.(*apply.CachedChild)
	c, ok2 := cur.(*apply.CachedChild)
	if !ok1 || !ok2 || o.Whole != nil || c.Whole != nil {
		return true
	}
	ob, ok1 := o.Body.(*deploymentBody)
	cb, ok2 := c.Body.(*deploymentBody)
	if !ok1 || !ok2 {
		return true
	}
	om, cm := &o.Meta, &c.Meta
	return o.OwnedDigest != c.OwnedDigest || o.OwnsReplicas != c.OwnsReplicas ||
		!sameIdentity(om, cm) || !om.DeletionTimestamp.Equal(cm.DeletionTimestamp) ||
		!sameMainEntries(om.ManagedFields, cm.ManagedFields) ||
		!ptr.Equal(ob.replicas, cb.replicas) || ob.strategy != cb.strategy
}

// sameMainEntries reports whether a and b hold the same entries of writes
// outside /status, in the same order, by what a view keeps of them.
func sameMainEntries(a, b []metav1.ManagedFieldsEntry) bool {
	next := func(es []metav1.ManagedFieldsEntry, i int) int {
		for i < len(es) && es[i].Subresource != "" {
			i++
		}
		return i
	}
	i, j := next(a, 0), next(b, 0)
	for i < len(a) && j < len(b) {
		x, y := &a[i], &b[j]
		if x.Manager != y.Manager || x.Operation != y.Operation || x.APIVersion != y.APIVersion || x.FieldsType != y.FieldsType {
			return false
		}
		i, j = next(a, i+1), next(b, j+1)
	}
	return i == len(a) && j == len(b)
}
