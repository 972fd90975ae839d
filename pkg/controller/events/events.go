// Package events records the Events ogx-controller reports about OGXServers,
// on a client and rate budget of their own; child writes are journaled and
// reported in one Event per status pass (docs/status.md, Events).
package events

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/record"
	"github.com/ogx-k8s/ogx-controller/pkg/metrics"
)

// WriteResult says what a write of a child did.
type WriteResult string

// The write results; Skipped and Absent are no news.
const (
	Skipped WriteResult = "skipped"
	Created WriteResult = "created"
	Updated WriteResult = "updated"
	Deleted WriteResult = "deleted"
	Absent  WriteResult = "absent"
	// TakenOver: the fields of upstream managers were merged into ours
	// (reported in the TakenOver Event).
	TakenOver WriteResult = "taken over"
)

// ReportingController identifies ogx-controller in events.k8s.io/v1 Events.
const ReportingController = "ogx.io/ogx-controller"

const (
	// maxEventNote is the API server's limit on an Event's note.
	maxEventNote = 1024
	// eventQueueSize bounds the Events waiting to be sent; past it new ones
	// are dropped (and counted) rather than blocking a controller.
	eventQueueSize = 1024
)

// Sink records events.k8s.io/v1 Events regarding OGXServers (docs/status.md,
// Events). Its own client and budget drop Events past the budget, so a
// burst never takes request budget from the children; a Warning dropped
// that way is owed (owed.go) and sent by a later status pass while its cause
// lasts. No series: client-go's series machinery would PATCH counts minutes
// later, a write of an idle controller.
type Sink struct {
	queue    chan *eventsv1.Event
	instance string
	// active is set while send runs (only on the leader); Events emitted
	// elsewhere are dropped rather than sent late.
	active  atomic.Bool
	budget  *Budget
	journal *Journal
	metrics *metrics.Metrics
	// holding is, per OGXServer and reason, the cause of a condition that
	// holds (While), so its Event is sent once when it starts, not on every
	// pass while it lasts.
	holding record.Slot[map[string]string]
	// owed are, per OGXServer, the Warnings the budget dropped whose
	// causes may still hold.
	owed record.Slot[map[owedKey]*owedWarning]
	// wake asks for a status pass of a server that came to owe a Warning
	// (OnOwed; nil: none).
	wake func(key string)
}

// delivery is what became of an Event handed to the sink.
type delivery int

const (
	// queued: it will be sent.
	queued delivery = iota
	// notLeading: the sink is not sending (not the leader, or stopped).
	notLeading
	// overBudget: the budget was spent or the send queue full.
	overBudget
)

// hold records whether the condition of reason holds with cause and
// returns whether that is new (it did not hold, or held with another cause).
func (e *Sink) hold(uid types.UID, reason, cause string, holds bool) bool {
	news := false
	e.holding.Update(uid, func(m map[string]string, _ bool) (map[string]string, bool) {
		if !holds {
			delete(m, reason)
			return m, len(m) > 0
		}
		if prev, ok := m[reason]; ok && prev == cause {
			return m, true
		}
		if m == nil {
			m = map[string]string{}
		}
		m[reason] = cause
		news = true
		return m, true
	})
	return news
}

// NewSink returns a sink admitting Events within budget (nil: no limit)
// and keeping its per-server values in r.
func NewSink(instance string, budget *Budget, m *metrics.Metrics, r *record.Store) *Sink {
	return &Sink{queue: make(chan *eventsv1.Event, eventQueueSize), instance: instance,
		budget: budget, journal: NewJournal(r), metrics: m,
		holding: record.NewSlot[map[string]string](r), owed: record.NewSlot[map[owedKey]*owedWarning](r)}
}

// Start makes the sink accept Events at once, before any worker runs, and
// sends them from a goroutine until ctx is done. Only the leader starts it,
// so followers emit nothing.
func (e *Sink) Start(ctx context.Context, kube kubernetes.Interface) {
	e.active.Store(true)
	go e.send(ctx, kube)
}

// Lead makes the sink accept Events without sending them (Queued hands them
// out), for tests of what a pass reports.
func (e *Sink) Lead() { e.active.Store(true) }

// Queued returns the Events accepted and not sent yet (see Lead).
func (e *Sink) Queued() []*eventsv1.Event {
	var out []*eventsv1.Event
	for {
		select {
		case ev := <-e.queue:
			out = append(out, ev)
		default:
			return out
		}
	}
}

// Journal is the sink's journal of child writes, which the appliers also
// note takeovers in.
func (e *Sink) Journal() *Journal { return e.journal }

// send delivers queued Events until ctx is done, then stops accepting.
func (e *Sink) send(ctx context.Context, kube kubernetes.Interface) {
	logger := klog.FromContext(ctx)
	defer e.active.Store(false)
	for {
		select {
		case <-ctx.Done():
			return
		case ev := <-e.queue:
			sendCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
			_, err := kube.EventsV1().Events(ev.Namespace).Create(sendCtx, ev, metav1.CreateOptions{})
			cancel()
			if err != nil {
				e.metrics.CountEvent(metrics.EventFailed)
				logger.V(2).Info("Could not record event", "reason", ev.Reason, "err", err)
				continue
			}
			e.metrics.CountEvent(metrics.EventSent)
		}
	}
}

func (e *Sink) emit(s *ogxv1beta1.OGXServer, eventType, reason, action, note string) delivery {
	return e.deliver(corev1.ObjectReference{
		APIVersion: ogxv1beta1.SchemeGroupVersion.String(), Kind: "OGXServer",
		Namespace: s.Namespace, Name: s.Name, UID: s.UID, ResourceVersion: s.ResourceVersion,
	}, eventType, reason, action, note)
}

// EmitFor queues an Event regarding any object and reports whether it did:
// it drops the Event when the sink is not sending (not the leader yet), the
// budget is spent or the queue is full. Such an Event is not owed: only
// Warnings regarding an OGXServer are (Warn, While).
func (e *Sink) EmitFor(regarding corev1.ObjectReference, eventType, reason, action, note string) bool {
	return e.deliver(regarding, eventType, reason, action, note) == queued
}

// deliver queues an Event and says what became of it.
func (e *Sink) deliver(regarding corev1.ObjectReference, eventType, reason, action, note string) delivery {
	if !e.active.Load() {
		return notLeading
	}
	if !e.budget.allow() {
		e.metrics.CountEvent(metrics.EventDroppedRate)
		e.metrics.CountEventDropped(eventType, reason)
		klog.Background().V(2).Info("Event budget spent, dropping event", "type", eventType, "reason", reason, "regarding", regarding.Namespace+"/"+regarding.Name)
		return overBudget
	}
	now := time.Now()
	ev := &eventsv1.Event{
		ObjectMeta:          metav1.ObjectMeta{Name: fmt.Sprintf("%s.%x", regarding.Name, now.UnixNano()), Namespace: regarding.Namespace},
		EventTime:           metav1.NewMicroTime(now),
		ReportingController: ReportingController,
		ReportingInstance:   e.instance,
		Action:              action,
		Reason:              reason,
		Type:                eventType,
		Note:                TruncateUTF8(note, maxEventNote),
		Regarding:           regarding,
	}
	select {
	case e.queue <- ev:
		return queued
	default:
		e.metrics.CountEvent(metrics.EventDroppedQueue)
		e.metrics.CountEventDropped(eventType, reason)
		klog.Background().V(2).Info("Event queue full, dropping event", "type", eventType, "reason", reason, "regarding", regarding.Namespace+"/"+regarding.Name)
		return overBudget
	}
}

// Written notes a child write (Created/Updated/Deleted) in the server's
// journal; the status controller's next flush reports it.
func (e *Sink) Written(s *ogxv1beta1.OGXServer, kind, name string, r WriteResult) {
	e.journal.Add(s.Namespace+"/"+s.Name, s.UID, kind, name, r)
}

// Flush records at most one Event for a status pass: the phase transition
// (except a new server's first phase, which is no news, unless it is Ready)
// together with the child writes journaled since the last flush. While a
// server is Pending or Initializing its writes wait for the transition that
// ends that phase, so a new server's whole start is one Event.
func (e *Sink) Flush(s *ogxv1beta1.OGXServer, oldPhase, newPhase ogxv1beta1.Phase) {
	phaseChanged := oldPhase != newPhase && (oldPhase != "" || newPhase == ogxv1beta1.PhaseReady)
	if !phaseChanged && newPhase.Starting() {
		return
	}
	writes := e.journal.Take(s.UID)
	if !phaseChanged && writes.Empty() {
		return
	}
	reason, action, note := writes.Summary()
	if phaseChanged {
		reason, action = ogxv1beta1.EventPhaseChanged, "Reconcile"
		phase := fmt.Sprintf("Phase %s → %s", oldPhase, newPhase)
		if oldPhase == "" {
			// Ready as the first status (status.Controller.firstStatusWait).
			phase = fmt.Sprintf("Phase %s", newPhase)
		}
		if note != "" {
			phase += "; " + note
		}
		note = phase
	}
	e.emit(s, corev1.EventTypeNormal, reason, action, note)
}

// WarnWhile sends a Warning when a condition starts to hold (or holds with
// a new note) and nothing while it keeps holding; holds false ends it, so
// it is reported again if it comes back.
func (e *Sink) WarnWhile(s *ogxv1beta1.OGXServer, reason, note string, holds bool) {
	e.While(s, corev1.EventTypeWarning, reason, note, note, holds)
}

// While sends an Event when a condition starts to hold or its cause
// changes, and nothing while the same cause holds; the note may change
// (a count) without a new Event. holds false ends the condition.
func (e *Sink) While(s *ogxv1beta1.OGXServer, eventType, reason, cause, note string, holds bool) {
	if !e.hold(s.UID, reason, cause, holds) {
		return
	}
	if eventType == corev1.EventTypeWarning {
		// A Warning the budget drops stays held and is owed while the
		// condition holds with this cause.
		uid := s.UID
		persists := func() bool { return e.holds(uid, reason, cause) }
		if e.warn(s, reason, cause, note, persists) != notLeading {
			return
		}
	} else if e.emit(s, eventType, reason, "Reconcile", note) == queued {
		return
	}
	// Not sent: the next pass of the caller tries again instead of the
	// Event being lost while the cause holds.
	e.hold(s.UID, reason, "", false)
}

// holds reports whether the condition of reason holds with cause (While).
func (e *Sink) holds(uid types.UID, reason, cause string) bool {
	held := false
	e.holding.View(uid, func(m map[string]string, _ bool) {
		prev, ok := m[reason]
		held = ok && prev == cause
	})
	return held
}

// Warn records a Warning regarding an OGXServer. When the budget drops it,
// it is owed, keyed by its reason and note (its cause), and a later status
// pass sends it while persists reports that the cause still holds (nil:
// not owed, lost when dropped).
func (e *Sink) Warn(s *ogxv1beta1.OGXServer, reason, note string, persists func() bool) {
	e.warn(s, reason, note, note, persists)
}

// Normal records a Normal event regarding an OGXServer.
func (e *Sink) Normal(s *ogxv1beta1.OGXServer, reason, note string) {
	e.emit(s, corev1.EventTypeNormal, reason, "Reconcile", note)
}

// TruncateUTF8 cuts s to at most n bytes without splitting a character: the
// limits on Event notes, condition and probe messages are in bytes.
func TruncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
