package controller

import (
	"maps"
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// OutcomeClass classifies the result of one pass of a child controller
// (docs/controllers.md, Outcomes).
type OutcomeClass string

// The outcome classes.
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

// waitRequeue is how long a controller waits before looking again at
// something it cannot speed up (an old incarnation's child being collected,
// legacy pods terminating, a ConfigMap not yet in the cache).
const waitRequeue = 5 * time.Second

// WaitingError means the pass cannot proceed yet and should look again
// shortly; it is not a failure. Reason defaults to Progressing.
type WaitingError struct{ Reason, Message string }

func (e *WaitingError) Error() string { return e.Message }

// deferredError means the pass has nothing to do until an object it
// watches appears, whose event enqueues it. Unlike a wait it is neither
// recorded nor requeued: the controller has not had its pass yet, and the
// status controller waits for it as for any controller that has not
// reported.
type deferredError struct{ message string }

func (e *deferredError) Error() string { return e.message }

// OutcomeBoard is the per-process record of every child controller's last
// outcome per OGXServer UID, read by the status controller. A changed record
// calls onChange so the status controller re-evaluates that key.
//
// A server's outcomes are a short slice, not a map: about ten controllers
// record one each, a scan of ten entries costs nothing, and at fleet size a
// map per server would be several times the memory.
type OutcomeBoard struct {
	mu       sync.Mutex
	outcomes map[types.UID][]recordedOutcome
	// facts are conditions a controller wants shown in status (the
	// adoption conditions), per UID and controller.
	facts    map[types.UID]map[string][]metav1.Condition
	onChange func(key string)
}

// recordedOutcome is one controller's outcome for a server.
type recordedOutcome struct {
	controller string
	Outcome
}

// NewOutcomeBoard returns an empty board; onChange may be nil.
func NewOutcomeBoard(onChange func(key string)) *OutcomeBoard {
	return &OutcomeBoard{outcomes: map[types.UID][]recordedOutcome{}, facts: map[types.UID]map[string][]metav1.Condition{}, onChange: onChange}
}

// SetOnChange sets the change callback; it is wired after the status
// controller exists.
func (b *OutcomeBoard) SetOnChange(f func(key string)) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.onChange = f
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
	b.mu.Lock()
	list := b.outcomes[uid]
	changed = true
	found := false
	newCause = o.Class == OutcomeUserError
	for i := range list {
		if list[i].controller == controller {
			changed, found = list[i].Outcome != o, true
			list[i].Outcome = o
			continue
		}
		if r := list[i].Outcome; r.Class == OutcomeUserError && r.Reason == o.Reason && r.Message == o.Message {
			newCause = false
		}
	}
	if !found {
		// Grown by exactly one: append's doubling would leave a server
		// with room for 16 outcomes where about ten are ever recorded.
		grown := make([]recordedOutcome, len(list), len(list)+1)
		copy(grown, list)
		b.outcomes[uid] = append(grown, recordedOutcome{controller: controller, Outcome: o})
	}
	notify := b.onChange
	b.mu.Unlock()
	if changed && notify != nil {
		notify(key)
	}
	return changed, changed && newCause
}

// Outcome returns one controller's outcome for uid, if it has recorded one.
func (b *OutcomeBoard) Outcome(uid types.UID, controller string) (Outcome, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, r := range b.outcomes[uid] {
		if r.controller == controller {
			return r.Outcome, true
		}
	}
	return Outcome{}, false
}

// Get returns a copy of the outcomes recorded for uid.
func (b *OutcomeBoard) Get(uid types.UID) map[string]Outcome {
	b.mu.Lock()
	defer b.mu.Unlock()
	list := b.outcomes[uid]
	out := make(map[string]Outcome, len(list))
	for _, r := range list {
		out[r.controller] = r.Outcome
	}
	return out
}

// SetFacts records the conditions a controller reports for an OGXServer
// (replacing its previous ones) and reports a change.
func (b *OutcomeBoard) SetFacts(key string, uid types.UID, controller string, conds []metav1.Condition) {
	b.mu.Lock()
	m := b.facts[uid]
	changed := !equality.Semantic.DeepEqual(m[controller], conds)
	switch {
	case len(conds) == 0:
		// Most servers never have facts: keep no map for them.
		delete(m, controller)
		if len(m) == 0 {
			delete(b.facts, uid)
		}
	case m == nil:
		b.facts[uid] = map[string][]metav1.Condition{controller: conds}
	default:
		m[controller] = conds
	}
	notify := b.onChange
	b.mu.Unlock()
	if changed && notify != nil {
		notify(key)
	}
}

// Facts returns every condition reported for uid.
func (b *OutcomeBoard) Facts(uid types.UID) []metav1.Condition {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []metav1.Condition
	for _, name := range slices.Sorted(maps.Keys(b.facts[uid])) {
		out = append(out, b.facts[uid][name]...)
	}
	return out
}

// Forget drops every outcome and fact of uid (the OGXServer is gone).
func (b *OutcomeBoard) Forget(uid types.UID) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.outcomes, uid)
	delete(b.facts, uid)
}

// retain drops the outcomes and facts of servers that are not live (see
// Manager.sweep) and returns how many map entries it dropped.
func (b *OutcomeBoard) retain(live func(types.UID) bool) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return retainLive(b.outcomes, live) + retainLive(b.facts, live)
}
