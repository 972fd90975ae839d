package base

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ogx-k8s/ogx-controller/pkg/controller/record"
)

// OutcomeClass classifies the result of one pass of a child controller
// (docs/controllers.md, Outcomes).
type OutcomeClass string

// The outcome classes; a new one also goes into outcomeClasses.
const (
	// OutcomeOK: converged, skipped or intentionally absent.
	OutcomeOK OutcomeClass = "ok"
	// OutcomeWaiting: waiting on something outside our control (legacy pods,
	// an old incarnation's child, a ConfigMap not yet cached).
	OutcomeWaiting OutcomeClass = "waiting"
	// OutcomeUserError: the spec or a referenced object must change.
	OutcomeUserError OutcomeClass = "user-error"
	// OutcomeTransient: a retryable API or network error.
	OutcomeTransient OutcomeClass = "transient"
)

// Outcome is what a child controller last recorded for one OGXServer.
type Outcome struct {
	// Generation is the OGXServer generation the pass worked on.
	Generation int64
	Class      OutcomeClass
	// Reason is the status reason for user errors and waits (InvalidSpec,
	// ReferenceNotFound, ChildConflict, ...).
	Reason  string
	Message string
}

// WaitRequeue is how long a controller waits before looking again at
// something it cannot speed up (an old incarnation's child being collected,
// legacy pods terminating, a ConfigMap not yet in the cache).
const WaitRequeue = 5 * time.Second

// DeferredError means the pass has nothing to do until an object it
// watches appears, whose event enqueues it, or until what Join was given
// is called. Unlike a wait it is neither recorded nor requeued, and it
// keeps the key's failure history: status waits for the controller as for
// one that has not reported.
type DeferredError struct {
	Message string
	// Join, when set, has the deferring party call wake once it can go on
	// (at once if it already can); controller and server (its key) name
	// the pass, so a pass asking again is woken once. Only a deferred pass
	// pays for it.
	Join func(controller, server string, wake func())
}

func (e *DeferredError) Error() string { return e.Message }

// OutcomeBoard keeps in the per-server record each child controller's last
// outcome and the conditions it wants shown (facts: the adoption
// conditions), and reports every change to the record for status.
// A server's outcomes are a slice of 24-byte entries, not a map of
// Outcomes: about ten controllers record one each, and at N=1,000 a map
// took about 2.5 KiB per server and a slice of whole Outcomes about 0.8
// (session 27's heap profile at idle, make bench -n 1000).
type OutcomeBoard struct {
	record   *record.Store
	outcomes record.Slot[[]recordedOutcome]
	facts    record.Slot[map[string][]metav1.Condition]

	// names are the controllers that recorded an outcome, in the order
	// they first did; an entry holds its controller's index. namesMu is
	// taken last: Get holds the record's lock around it, nothing the other
	// way round.
	namesMu sync.Mutex
	names   []string
}

// recordedOutcome is one controller's outcome for a server, as stored: the
// controller and class as small indexes, and reason and message only when
// there are any (an OK outcome has neither).
type recordedOutcome struct {
	generation int64
	detail     *outcomeDetail
	controller uint8
	class      uint8
}

type outcomeDetail struct{ reason, message string }

// outcomeClasses are the classes an entry's class indexes.
var outcomeClasses = [...]OutcomeClass{OutcomeOK, OutcomeWaiting, OutcomeUserError, OutcomeTransient}

// NewOutcomeBoard returns a board keeping its values in r.
func NewOutcomeBoard(r *record.Store) *OutcomeBoard {
	return &OutcomeBoard{record: r, outcomes: record.NewSlot[[]recordedOutcome](r),
		facts: record.NewSlot[map[string][]metav1.Condition](r)}
}

// controllerIndex is the index of a controller's name, assigned on its
// first record.
func (b *OutcomeBoard) controllerIndex(controller string) uint8 {
	b.namesMu.Lock()
	defer b.namesMu.Unlock()
	if i := slices.Index(b.names, controller); i >= 0 {
		return uint8(i)
	}
	if len(b.names) > math.MaxUint8 {
		panic("base.OutcomeBoard: more than 256 controllers")
	}
	b.names = append(b.names, controller)
	return uint8(len(b.names) - 1)
}

// controllerNames returns the names entries index.
func (b *OutcomeBoard) controllerNames() []string {
	b.namesMu.Lock()
	defer b.namesMu.Unlock()
	// Names are only ever appended: the slice as it is now stays valid.
	return b.names
}

// stored is o as an entry of controller index c.
func stored(c uint8, o Outcome) recordedOutcome {
	class := slices.Index(outcomeClasses[:], o.Class)
	if class < 0 {
		panic(fmt.Sprintf("base.OutcomeBoard: unknown outcome class %q", o.Class))
	}
	r := recordedOutcome{generation: o.Generation, controller: c, class: uint8(class)}
	if o.Reason != "" || o.Message != "" {
		r.detail = &outcomeDetail{reason: o.Reason, message: o.Message}
	}
	return r
}

// outcome is the Outcome an entry holds.
func (r recordedOutcome) outcome() Outcome {
	o := Outcome{Generation: r.generation, Class: outcomeClasses[r.class]}
	if r.detail != nil {
		o.Reason, o.Message = r.detail.reason, r.detail.message
	}
	return o
}

// Record stores a controller's outcome for an OGXServer, reports the change
// and returns whether the outcome differs from the previous one.
func (b *OutcomeBoard) Record(key string, uid types.UID, controller string, o Outcome) bool {
	changed, _ := b.RecordCause(key, uid, controller, o)
	return changed
}

// RecordCause is Record that also says whether o is a user error no other
// controller reports for this server right now (same reason and message):
// one invalid spec, found by every controller, is one cause, and it gets
// one Event.
func (b *OutcomeBoard) RecordCause(key string, uid types.UID, controller string, o Outcome) (changed, newCause bool) {
	c := b.controllerIndex(controller)
	changed = true
	newCause = o.Class == OutcomeUserError
	b.outcomes.Update(uid, func(list []recordedOutcome, _ bool) ([]recordedOutcome, bool) {
		found := false
		for i := range list {
			cur := list[i].outcome()
			if list[i].controller == c {
				found = true
				if changed = cur != o; changed {
					list[i] = stored(c, o)
				}
				continue
			}
			if cur.Class == OutcomeUserError && cur.Reason == o.Reason && cur.Message == o.Message {
				newCause = false
			}
		}
		if found {
			return list, true
		}
		// Grown by exactly one: append's doubling would leave a server
		// with room for 16 outcomes where about ten are ever recorded.
		grown := make([]recordedOutcome, len(list), len(list)+1)
		copy(grown, list)
		return append(grown, stored(c, o)), true
	})
	if changed {
		b.record.Changed(key)
	}
	return changed, changed && newCause
}

// ReportsUserError reports whether any controller's last outcome for uid is
// the user error of reason with message: whether that cause still holds, so
// a Warning about it that the Event budget dropped is still owed.
func (b *OutcomeBoard) ReportsUserError(uid types.UID, reason, message string) bool {
	found := false
	b.outcomes.View(uid, func(list []recordedOutcome, _ bool) {
		for _, r := range list {
			if o := r.outcome(); o.Class == OutcomeUserError && o.Reason == reason && o.Message == message {
				found = true
				return
			}
		}
	})
	return found
}

// Get returns a copy of the outcomes recorded for uid.
func (b *OutcomeBoard) Get(uid types.UID) map[string]Outcome {
	var out map[string]Outcome
	// Read under the record's lock, as RecordCause changes entries in
	// place; the names after the entries, so every index has its name.
	b.outcomes.View(uid, func(list []recordedOutcome, _ bool) {
		names := b.controllerNames()
		out = make(map[string]Outcome, len(list))
		for _, r := range list {
			out[names[r.controller]] = r.outcome()
		}
	})
	return out
}

// SetFacts records the conditions a controller reports for an OGXServer
// (replacing its previous ones) and reports a change.
func (b *OutcomeBoard) SetFacts(key string, uid types.UID, controller string, conds []metav1.Condition) {
	changed := false
	b.facts.Update(uid, func(m map[string][]metav1.Condition, _ bool) (map[string][]metav1.Condition, bool) {
		changed = !equality.Semantic.DeepEqual(m[controller], conds)
		if len(conds) == 0 {
			// Most servers never have facts: keep no map for them.
			delete(m, controller)
			return m, len(m) > 0
		}
		if m == nil {
			m = map[string][]metav1.Condition{}
		}
		m[controller] = conds
		return m, true
	})
	if changed {
		b.record.Changed(key)
	}
}

// Facts returns every condition reported for uid.
func (b *OutcomeBoard) Facts(uid types.UID) []metav1.Condition {
	var out []metav1.Condition
	b.facts.View(uid, func(m map[string][]metav1.Condition, _ bool) {
		for _, name := range slices.Sorted(maps.Keys(m)) {
			out = append(out, m[name]...)
		}
	})
	return out
}
