package controller

import (
	"fmt"
	"testing"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/render"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	kubefake "k8s.io/client-go/kubernetes/fake"
)

// TestHeldWarningOncePerTransition: a warning whose condition holds is sent
// when it starts and when its note changes, not again while it holds; once
// it stops holding it is sent again if it comes back.
func TestHeldWarningOncePerTransition(t *testing.T) {
	h := &heldWarnings{notes: map[types.UID]map[string]string{}}
	steps := []struct {
		note  string
		holds bool
		want  bool
	}{
		{"no certificates", true, true},
		{"no certificates", true, false},
		{"no certificates", true, false},
		{"other note", true, true},
		{"", false, false},
		{"no certificates", true, true},
	}
	for i, s := range steps {
		if got := h.update("u", "EmptyCABundle", s.note, s.holds); got != s.want {
			t.Errorf("step %d (%q, holds %v): send = %v, want %v", i, s.note, s.holds, got, s.want)
		}
	}
	if !h.update("u", "AdoptionSourceNotFound", "PVC x not found", true) {
		t.Errorf("another reason of the same server is its own warning")
	}
	h.forget("u")
	if len(h.notes) != 0 {
		t.Errorf("forget left %v", h.notes)
	}
}

// TestHeldWarningNotSentIsRetried: a warning the sink could not send (not
// leading yet, budget spent) is not marked held, so a later pass sends it.
func TestHeldWarningNotSentIsRetried(t *testing.T) {
	e := newEventSink("test", 0, 0, nil)
	s := &ogxv1beta1.OGXServer{ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "ns", UID: "u"}}
	e.warnWhile(s, "EmptyCABundle", "no certificates", true)
	if len(e.queue) != 0 || len(e.holding.notes) != 0 {
		t.Fatalf("inactive sink: %d queued, held %v", len(e.queue), e.holding.notes)
	}
	e.active.Store(true)
	e.warnWhile(s, "EmptyCABundle", "no certificates", true)
	e.warnWhile(s, "EmptyCABundle", "no certificates", true)
	if len(e.queue) != 1 {
		t.Errorf("%d Events queued, want 1", len(e.queue))
	}
}

// TestInvalidImageOverridesReportedByNewLeader: bad image overrides present
// before this replica leads (the informer saw them while the sink did not
// send) are reported when it starts leading.
func TestInvalidImageOverridesReportedByNewLeader(t *testing.T) {
	// Labelled, so the leader's ensureOperatorConfigMap leaves it alone and
	// no update event reports it again.
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: render.OperatorConfigMapName, Namespace: sfOperator,
		Labels: map[string]string{ogxv1beta1.WatchLabel: "true"}},
		Data: map[string]string{render.ImageOverridesKey: "starter: 'Not An Image!'"}}
	events := kubefake.NewClientset()
	e := newSFEnv(t, Options{EventsClient: events, EventQPS: 100, EventBurst: 100}, []runtime.Object{cm})
	go e.m.Run(e.ctx)
	sfEventually(t, "an InvalidImageOverrides Event", func() (bool, string) {
		list, err := events.EventsV1().Events(sfOperator).List(e.ctx, metav1.ListOptions{})
		if err != nil {
			return false, err.Error()
		}
		for _, ev := range list.Items {
			if ev.Reason == "InvalidImageOverrides" && ev.Regarding.Name == render.OperatorConfigMapName {
				return true, ""
			}
		}
		return false, fmt.Sprintf("%d Events, none InvalidImageOverrides", len(list.Items))
	})
}
