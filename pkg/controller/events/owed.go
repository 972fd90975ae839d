package events

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

// OwedRetry is how long after a server first owes a Warning its status pass
// runs to send it, and how often it runs again while the budget still
// drops it: the budget refills in seconds, and nothing else may wake an idle
// server.
const OwedRetry = 10 * time.Second

// owedKey names the cause of an owed Warning within one server's record
// (the server is the Event's involved object): its reason and what tells
// causes of that reason apart (the note of Warn, the cause of While).
type owedKey struct {
	reason, cause string
}

// owedWarning is a Warning the budget dropped, kept until it is sent or its
// cause is gone.
type owedWarning struct {
	note string
	// persists reports whether the cause still holds; it is called with
	// no lock of the record held, so it may read the record.
	persists func() bool
}

// OnOwed registers wake, called with the key (namespace/name) of a server
// that has just come to owe a Warning, so that its status pass (Settle)
// runs later without other activity. The status controller registers it
// when the controllers are built; wake must not block.
func (e *Sink) OnOwed(wake func(key string)) { e.wake = wake }

// warn sends a Warning and, when the budget drops it and persists is set,
// owes it under (reason, cause); sent, it pays what was owed for that cause,
// so each cause is reported once.
func (e *Sink) warn(s *ogxv1beta1.OGXServer, reason, cause, note string, persists func() bool) delivery {
	d := e.emit(s, corev1.EventTypeWarning, reason, "Reconcile", note)
	k := owedKey{reason: reason, cause: cause}
	switch {
	case d == queued:
		e.pay(s.UID, k)
	case d == overBudget && persists != nil:
		e.owe(s, k, &owedWarning{note: note, persists: persists})
	}
	return d
}

// owe records w as owed by s and wakes its status pass when it is the first
// Warning s owes.
func (e *Sink) owe(s *ogxv1beta1.OGXServer, k owedKey, w *owedWarning) {
	first := false
	e.owed.Update(s.UID, func(m map[owedKey]*owedWarning, _ bool) (map[owedKey]*owedWarning, bool) {
		if m == nil {
			m = map[owedKey]*owedWarning{}
		}
		first = len(m) == 0
		m[k] = w
		return m, true
	})
	if first && e.wake != nil {
		e.wake(s.Namespace + "/" + s.Name)
	}
}

// pay forgets the Warning owed for k: the cause was just reported.
func (e *Sink) pay(uid types.UID, k owedKey) {
	e.owed.Update(uid, func(m map[owedKey]*owedWarning, _ bool) (map[owedKey]*owedWarning, bool) {
		delete(m, k)
		return m, len(m) > 0
	})
}

// claim forgets the Warning owed for k if it is still w, and reports
// whether it was.
func (e *Sink) claim(uid types.UID, k owedKey, w *owedWarning) bool {
	claimed := false
	e.owed.Update(uid, func(m map[owedKey]*owedWarning, ok bool) (map[owedKey]*owedWarning, bool) {
		if cur, found := m[k]; found && cur == w {
			delete(m, k)
			claimed = true
		}
		return m, len(m) > 0
	})
	return claimed
}

// oweAgain puts back a claimed debt whose retry the budget dropped, unless
// a newer one of the same cause was recorded meanwhile.
func (e *Sink) oweAgain(uid types.UID, k owedKey, w *owedWarning) {
	e.owed.Update(uid, func(m map[owedKey]*owedWarning, _ bool) (map[owedKey]*owedWarning, bool) {
		if m == nil {
			m = map[owedKey]*owedWarning{}
		}
		if _, found := m[k]; !found {
			m[k] = w
		}
		return m, true
	})
}

// Owes reports whether s owes any Warning.
func (e *Sink) Owes(uid types.UID) bool {
	_, ok := e.owed.Get(uid)
	return ok
}

// Settle sends the Warnings s owes whose causes still hold, forgets those
// whose causes are gone, and reports whether any is still owed (the budget
// dropped it again). The status pass calls it: it runs after every change
// of a server's outcomes, and OnOwed wakes it. Owing nothing, it costs one
// map lookup and writes nothing.
func (e *Sink) Settle(s *ogxv1beta1.OGXServer) bool {
	type debt struct {
		key owedKey
		w   *owedWarning
	}
	var debts []debt
	e.owed.View(s.UID, func(m map[owedKey]*owedWarning, _ bool) {
		for k, w := range m {
			debts = append(debts, debt{k, w})
		}
	})
	for _, d := range debts {
		// Claimed before it is sent, so a debt is sent by one pass only;
		// persists may read the record, so it is asked outside its lock.
		if !e.claim(s.UID, d.key, d.w) || !d.w.persists() {
			continue
		}
		if e.emit(s, corev1.EventTypeWarning, d.key.reason, "Reconcile", d.w.note) != queued {
			e.oweAgain(s.UID, d.key, d.w)
		}
	}
	return e.Owes(s.UID)
}
