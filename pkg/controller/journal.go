package controller

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/types"

	"github.com/ogx-k8s/ogx-controller/pkg/controller/record"
)

// maxJournalEntries bounds what one server's journal keeps between flushes;
// later writes are only counted.
const maxJournalEntries = 16

// writeJournal keeps, per OGXServer, the child writes not yet reported in an
// Event.
type writeJournal struct {
	record.Slot[*journalEntries]
	// record is told of a server with a new entry, so its status pass
	// (which flushes) follows.
	record *record.Store
}

// journalEntries are one server's unreported writes, in order.
type journalEntries struct {
	lines   []journalLine
	omitted int
}

type journalLine struct {
	result writeResult
	kind   string
	name   string
}

func newWriteJournal(r *record.Store) *writeJournal {
	return &writeJournal{Slot: record.NewSlot[*journalEntries](r), record: r}
}

// add notes a write of server key's child; skipped and absent results are
// no news.
func (j *writeJournal) add(key string, uid types.UID, kind, name string, r writeResult) {
	if j == nil || (r != writeCreated && r != writeUpdated && r != writeDeleted && r != writeTakenOver) {
		return
	}
	j.Update(uid, func(e *journalEntries, _ bool) (*journalEntries, bool) {
		if e == nil {
			e = &journalEntries{}
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

// take returns and clears a server's entries.
func (j *writeJournal) take(uid types.UID) journalEntries {
	if j == nil {
		return journalEntries{}
	}
	var taken journalEntries
	j.Update(uid, func(e *journalEntries, _ bool) (*journalEntries, bool) {
		if e != nil {
			taken = *e
		}
		return nil, false
	})
	return taken
}

func (e journalEntries) empty() bool { return len(e.lines) == 0 && e.omitted == 0 }

// summary is the reason, action and note of an Event reporting the writes:
// "Created ServiceAccount s-sa, Deployment s; updated Service s-service".
// The reason and action are those of the first write's verb.
func (e journalEntries) summary() (reason, action, note string) {
	if e.empty() {
		return "", "", ""
	}
	verbs := map[writeResult]string{writeCreated: "created", writeUpdated: "updated", writeDeleted: "deleted",
		writeTakenOver: "took over"}
	var groups []string
	var order []writeResult
	byVerb := map[writeResult][]string{}
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
	case writeCreated:
		return "Created", "Create", note
	case writeDeleted:
		return "Deleted", "Delete", note
	case writeTakenOver:
		return EventTakenOver, "Reconcile", note
	}
	return "Updated", "Update", note
}
