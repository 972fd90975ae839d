package base

import (
	"maps"

	"k8s.io/apimachinery/pkg/types"

	"github.com/ogx-k8s/ogx-controller/pkg/controller/record"
)

// CauseLog remembers, per server and topic (say "ca-bundle"), the cause
// last logged, so that a problem every pass finds again is logged once
// rather than on every retry, and again only when it changes or comes back
// after being fixed. It keeps one cause per topic, so its size does not grow
// with the passes, and lives in the per-server record, so a deleted server's
// causes go with it (record.Store.Forget, Sweep).
type CauseLog struct {
	slot record.Slot[map[string]string]
}

// NewCauseLog keeps its causes in r.
func NewCauseLog(r *record.Store) CauseLog {
	return CauseLog{slot: record.NewSlot[map[string]string](r)}
}

// Changed records cause as the server's current cause of topic and reports
// whether it is a new one to log: not empty and not the cause recorded
// before. An empty cause means the topic has none any more, so the same
// cause coming back later is logged again.
func (l CauseLog) Changed(uid types.UID, topic, cause string) bool {
	changed := false
	l.slot.Update(uid, func(cur map[string]string, _ bool) (map[string]string, bool) {
		if cur[topic] == cause {
			return cur, len(cur) > 0
		}
		next := maps.Clone(cur)
		if next == nil {
			next = map[string]string{}
		}
		if cause == "" {
			delete(next, topic)
		} else {
			next[topic] = cause
			changed = true
		}
		return next, len(next) > 0
	})
	return changed
}
