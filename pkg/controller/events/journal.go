package events

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/types"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/record"
)

// maxJournalEntries bounds what one server's journal keeps between flushes;
// later writes are only counted.
const maxJournalEntries = 16

// Journal keeps, per OGXServer, the child writes not yet reported in an
// Event.
type Journal struct {
	record.Slot[*Entries]
	// record is told of a server with a new entry, so its status pass
	// (which flushes) follows.
	record *record.Store
}

// Entries are one server's unreported writes, in order.
type Entries struct {
	lines   []journalLine
	omitted int
}

type journalLine struct {
	result WriteResult
	kind   string
	name   string
}

// NewJournal returns an empty journal kept in r.
func NewJournal(r *record.Store) *Journal {
	return &Journal{Slot: record.NewSlot[*Entries](r), record: r}
}

// Add notes a write of server key's child; skipped and absent results are
// no news.
func (j *Journal) Add(key string, uid types.UID, kind, name string, r WriteResult) {
	if j == nil || (r != Created && r != Updated && r != Deleted && r != TakenOver) {
		return
	}
	j.Update(uid, func(e *Entries, _ bool) (*Entries, bool) {
		if e == nil {
			e = &Entries{}
		}
		if len(e.lines) >= maxJournalEntries {
			e.omitted++
		} else {
			e.lines = append(e.lines, journalLine{result: r, kind: kind, name: name})
		}
		return e, true
	})
	j.record.Changed(key)
}

// Take returns and clears a server's entries.
func (j *Journal) Take(uid types.UID) Entries {
	if j == nil {
		return Entries{}
	}
	var taken Entries
	j.Update(uid, func(e *Entries, _ bool) (*Entries, bool) {
		if e != nil {
			taken = *e
		}
		return nil, false
	})
	return taken
}

// Empty reports whether there is nothing to report.
func (e Entries) Empty() bool { return len(e.lines) == 0 && e.omitted == 0 }

// Summary is the reason, action and note of an Event reporting the writes:
// "Created ServiceAccount s-sa, Deployment s; updated Service s-service".
// The reason and action are those of the first write's verb.
func (e Entries) Summary() (reason, action, note string) {
	if e.Empty() {
		return "", "", ""
	}
	verbs := map[WriteResult]string{Created: "created", Updated: "updated", Deleted: "deleted",
		TakenOver: "took over"}
	var groups []string
	var order []WriteResult
	byVerb := map[WriteResult][]string{}
	for _, l := range e.lines {
		if _, ok := byVerb[l.result]; !ok {
			order = append(order, l.result)
		}
		// Two updates of one child between flushes are one piece of news.
		if what := l.kind + " " + l.name; !slices.Contains(byVerb[l.result], what) {
			byVerb[l.result] = append(byVerb[l.result], what)
		}
	}
	for _, r := range order {
		groups = append(groups, verbs[r]+" "+strings.Join(byVerb[r], ", "))
	}
	note = strings.Join(groups, "; ")
	if e.omitted > 0 {
		note += fmt.Sprintf("; %d more writes", e.omitted)
	}
	note = strings.ToUpper(note[:1]) + note[1:]
	switch e.lines[0].result {
	case Created:
		return ogxv1beta1.EventCreated, "Create", note
	case Deleted:
		return ogxv1beta1.EventDeleted, "Delete", note
	case TakenOver:
		return ogxv1beta1.EventTakenOver, "Reconcile", note
	}
	return ogxv1beta1.EventUpdated, "Update", note
}
