package controller

import (
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

// ReportingController identifies ogx-controller in events.k8s.io/v1 Events.
const ReportingController = "ogx.io/ogx-controller"

// maxEventNote is the API server's limit on an Event's note.
const maxEventNote = 1024

// eventSink records Events regarding OGXServers. Only actual writes and
// transitions produce events; a skipped apply produces none.
type eventSink struct {
	recorder events.EventRecorder
}

// object returns the OGXServer with its kind set: cached objects carry no
// TypeMeta, and the recorder needs it for the reference.
func eventObject(s *ogxv1beta1.OGXServer) runtime.Object {
	o := s.DeepCopy()
	o.APIVersion, o.Kind = ogxv1beta1.SchemeGroupVersion.String(), "OGXServer"
	return o
}

func (e eventSink) emit(regarding runtime.Object, eventType, reason, action, note string) {
	if e.recorder == nil {
		return
	}
	e.recorder.Eventf(regarding, nil, eventType, reason, action, "%s", truncateNote(note))
}

// written records Created/Updated/Deleted for a child write.
func (e eventSink) written(s *ogxv1beta1.OGXServer, kind, name string, r writeResult) {
	switch r {
	case writeCreated:
		e.emit(eventObject(s), corev1.EventTypeNormal, "Created", "Create", "Created "+kind+" "+name)
	case writeUpdated:
		e.emit(eventObject(s), corev1.EventTypeNormal, "Updated", "Update", "Updated "+kind+" "+name)
	case writeDeleted:
		e.emit(eventObject(s), corev1.EventTypeNormal, "Deleted", "Delete", "Deleted "+kind+" "+name)
	}
}

// warn records a Warning regarding an OGXServer.
func (e eventSink) warn(s *ogxv1beta1.OGXServer, reason, note string) {
	e.emit(eventObject(s), corev1.EventTypeWarning, reason, "Reconcile", note)
}

// normal records a Normal event regarding an OGXServer.
func (e eventSink) normal(s *ogxv1beta1.OGXServer, reason, note string) {
	e.emit(eventObject(s), corev1.EventTypeNormal, reason, "Reconcile", note)
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
