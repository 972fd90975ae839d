package controller

import (
	"context"
	"encoding/json"

	"k8s.io/klog/v2"

	"github.com/google/go-cmp/cmp"
)

// logDiff logs, at -v=4, how the fields ogx-controller owns in the stored
// object differ from what it is about to apply. The caches keep only a
// digest of those fields, so this reads the object live: one GET per write,
// and only at this verbosity, which is for debugging.
func (c *child[O, AC]) logDiff(ctx context.Context, namespace, name string, desired AC) {
	logger := klog.FromContext(ctx)
	live, found, err := c.readLive(ctx, namespace, name)
	if err != nil || !found {
		logger.V(4).Info("Apply diff unavailable", "kind", c.kind, "name", name, "found", found, "err", err)
		return
	}
	owned, err := c.extract(live)
	if err != nil {
		logger.V(4).Info("Apply diff unavailable", "kind", c.kind, "name", name, "err", err)
		return
	}
	logger.V(4).Info("Apply diff (-stored +desired)", "kind", c.kind, "name", name, "diff", jsonDiff(owned, desired))
}

// jsonDiff compares two apply configurations as the JSON they are sent as
// (their Go values hold quantities, which cmp cannot walk).
func jsonDiff(a, b any) string {
	asMap := func(v any) any {
		var m any
		if raw, err := json.Marshal(v); err == nil {
			_ = json.Unmarshal(raw, &m)
		}
		return m
	}
	return cmp.Diff(asMap(a), asMap(b))
}
