package apply

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"

	"k8s.io/klog/v2"
)

// logDiff logs, at -v=4, how the fields ogx-controller owns in the stored
// object differ from what it is about to apply. The caches keep only a
// digest of those fields, so this reads the object live: one GET per write,
// and only at this verbosity, which is for debugging.
func (c *Child[O, AC]) logDiff(ctx context.Context, namespace, name string, desired AC) {
	logger := klog.FromContext(ctx)
	live, found, err := c.readLive(ctx, namespace, name)
	if err != nil || !found {
		logger.V(4).Info("Apply diff unavailable", "kind", c.Kind, "name", name, "found", found, "err", err)
		return
	}
	owned, err := c.Extract(live)
	if err != nil {
		logger.V(4).Info("Apply diff unavailable", "kind", c.Kind, "name", name, "err", err)
		return
	}
	logger.V(4).Info("Apply diff (-stored +desired)", "kind", c.Kind, "name", name, "diff", jsonDiff(owned, desired))
}

// jsonDiff compares two apply configurations as the JSON they are sent as:
// one line per leaf that differs, "-path: stored" and "+path: desired",
// sorted by path. Paths join map keys with "." and list indexes with
// "[i]", so a key that itself holds "." or "[" can read like a nested path;
// for a debug log that is fine. It is ours rather than a diff library's,
// whose reflection on methods would bloat the binary (docs/performance.md,
// Memory).
func jsonDiff(a, b any) string {
	from, to := jsonLeaves(a), jsonLeaves(b)
	union := maps.Clone(from)
	maps.Copy(union, to)
	var out strings.Builder
	for _, p := range slices.Sorted(maps.Keys(union)) {
		x, inFrom := from[p]
		y, inTo := to[p]
		if inFrom && inTo && x == y {
			continue
		}
		if inFrom {
			out.WriteString("-" + p + ": " + x + "\n")
		}
		if inTo {
			out.WriteString("+" + p + ": " + y + "\n")
		}
	}
	return out.String()
}

// jsonLeaves maps the path of every leaf of v's JSON form (a scalar, an
// empty object or an empty list) to the leaf's JSON text. A value that does
// not encode is one leaf at the root holding the error.
func jsonLeaves(v any) map[string]string {
	leaves := map[string]string{}
	var tree any
	raw, err := json.Marshal(v)
	if err == nil {
		err = json.Unmarshal(raw, &tree)
	}
	if err != nil {
		leaves["."] = "<" + err.Error() + ">"
		return leaves
	}
	var walk func(path string, n any)
	walk = func(path string, n any) {
		switch n := n.(type) {
		case map[string]any:
			if len(n) == 0 {
				leaves[path] = "{}"
			}
			for k, child := range n {
				walk(path+"."+k, child)
			}
		case []any:
			if len(n) == 0 {
				leaves[path] = "[]"
			}
			for i, child := range n {
				walk(path+"["+strconv.Itoa(i)+"]", child)
			}
		default:
			text, _ := json.Marshal(n)
			leaves[path] = string(text)
		}
	}
	walk("", tree)
	if root, ok := leaves[""]; ok {
		delete(leaves, "")
		leaves["."] = root
	}
	return leaves
}
