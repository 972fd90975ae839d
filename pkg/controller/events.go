package controller

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

// ReportingController identifies ogx-controller in events.k8s.io/v1 Events.
const ReportingController = "ogx.io/ogx-controller"

// maxEventNote is the API server's limit on an Event's note.
const maxEventNote = 1024

// eventQueueSize bounds the Events waiting to be sent; past it new ones are
// dropped (and logged) rather than blocking a controller.
const eventQueueSize = 1024

// eventSink records events.k8s.io/v1 Events regarding OGXServers.
//
// It creates one Event per call and never aggregates them into series:
// ogx-controller only emits an Event for an actual write or transition, so
// there is no spam to fold, and client-go's series machinery would otherwise
// PATCH series counts minutes later, breaking the rule that an idle
// controller writes nothing.
type eventSink struct {
	queue    chan *eventsv1.Event
	instance string
	// active is set while run sends Events (only on the leader); Events
	// emitted elsewhere are dropped rather than sent late.
	active *atomic.Bool
}

func newEventSink(instance string) eventSink {
	return eventSink{queue: make(chan *eventsv1.Event, eventQueueSize), instance: instance, active: &atomic.Bool{}}
}

// run sends queued Events until ctx is done. Only the leader runs it, so
// followers emit nothing.
func (e eventSink) run(ctx context.Context, kube kubernetes.Interface) {
	logger := klog.FromContext(ctx)
	e.active.Store(true)
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
				logger.V(2).Info("Could not record event", "reason", ev.Reason, "err", err)
			}
		}
	}
}

func (e eventSink) emit(s *ogxv1beta1.OGXServer, eventType, reason, action, note string) {
	e.emitFor(corev1.ObjectReference{
		APIVersion: ogxv1beta1.SchemeGroupVersion.String(), Kind: "OGXServer",
		Namespace: s.Namespace, Name: s.Name, UID: s.UID, ResourceVersion: s.ResourceVersion,
	}, eventType, reason, action, note)
}

// emitFor queues an Event regarding any object.
func (e eventSink) emitFor(regarding corev1.ObjectReference, eventType, reason, action, note string) {
	if e.queue == nil || !e.active.Load() {
		return
	}
	now := time.Now()
	ev := &eventsv1.Event{
		ObjectMeta: metav1.ObjectMeta{
			Name:      fmt.Sprintf("%s.%x", regarding.Name, now.UnixNano()),
			Namespace: regarding.Namespace,
		},
		EventTime:           metav1.NewMicroTime(now),
		ReportingController: ReportingController,
		ReportingInstance:   e.instance,
		Action:              action,
		Reason:              reason,
		Type:                eventType,
		Note:                truncateNote(note),
		Regarding:           regarding,
	}
	select {
	case e.queue <- ev:
	default:
		klog.Background().V(2).Info("Event queue full, dropping event", "reason", reason, "regarding", regarding.Namespace+"/"+regarding.Name)
	}
}

// written records Created/Updated/Deleted for a child write.
func (e eventSink) written(s *ogxv1beta1.OGXServer, kind, name string, r writeResult) {
	switch r {
	case writeCreated:
		e.emit(s, corev1.EventTypeNormal, "Created", "Create", "Created "+kind+" "+name)
	case writeUpdated:
		e.emit(s, corev1.EventTypeNormal, "Updated", "Update", "Updated "+kind+" "+name)
	case writeDeleted:
		e.emit(s, corev1.EventTypeNormal, "Deleted", "Delete", "Deleted "+kind+" "+name)
	}
}

// warn records a Warning regarding an OGXServer.
func (e eventSink) warn(s *ogxv1beta1.OGXServer, reason, note string) {
	e.emit(s, corev1.EventTypeWarning, reason, "Reconcile", note)
}

// normal records a Normal event regarding an OGXServer.
func (e eventSink) normal(s *ogxv1beta1.OGXServer, reason, note string) {
	e.emit(s, corev1.EventTypeNormal, reason, "Reconcile", note)
}

// truncateNote cuts a note to the API limit on a UTF-8 boundary.
func truncateNote(s string) string {
	if len(s) <= maxEventNote {
		return s
	}
	cut := maxEventNote
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}
