package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	eventsv1 "k8s.io/api/events/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/generated/clientset/versioned"
	"github.com/ogx-k8s/ogx-controller/test/framework"
)

// TestEventsOncePerCause: a cause is reported by exactly one Event, however
// many controllers find it and however many passes run while it lasts
// (docs/status.md, Events). Each server goes through a second generation
// with the same cause, so every controller runs again; then a new server's
// first Event marks the point by which everything queued earlier was sent.
func TestEventsOncePerCause(t *testing.T) {
	ns := cp.CreateNamespace(t, "events")
	startController(t, ns)
	kube, ogx := clients(t)

	// An unknown distribution (the webhook would refuse it; a server stored
	// before a distribution was withdrawn still carries it).
	dist := newServer(ns, "dist")
	dist.Spec.Distribution.Name = ptr.To("withdrawn")
	// An adoption annotation naming the server itself: adoption is skipped,
	// the server runs.
	self := newServer(ns, "self")
	self.Annotations = map[string]string{ogxv1beta1.AnnotationAdoptNetworking: "self"}
	// A CA certificate ConfigMap that does not exist (a user error every
	// controller that resolves inputs finds).
	ref := newServer(ns, "ref")
	ref.Spec.TLS = &ogxv1beta1.OutboundTLSSpec{Trust: &ogxv1beta1.TrustSpec{
		CACertificates: []ogxv1beta1.ConfigMapKeyRef{{Name: "absent-ca", Key: "ca.crt"}}}}
	// Storage adoption from a legacy claim that does not exist (a warning
	// that holds while it lasts).
	gone := newServer(ns, "gone")
	gone.Annotations = map[string]string{ogxv1beta1.AnnotationAdoptStorage: "vanished"}
	gone.Spec.Workload = &ogxv1beta1.WorkloadSpec{Storage: &ogxv1beta1.PVCStorageSpec{}}
	for _, s := range []*ogxv1beta1.OGXServer{dist, self, ref, gone} {
		if _, err := ogx.OgxV1beta1().OGXServers(ns).Create(t.Context(), s, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	waitObserved(t, ogx, ns, "dist", 1, "Stalled", metav1.ConditionTrue)
	waitObserved(t, ogx, ns, "ref", 1, "Stalled", metav1.ConditionTrue)
	waitObserved(t, ogx, ns, "gone", 1, "StorageReady", metav1.ConditionFalse)
	waitReady(t, ogx, ns, "self", 2*time.Minute)

	// Generation 2, same causes: every controller passes again.
	for _, name := range []string{"dist", "self", "ref", "gone"} {
		updateServer(t, ogx, ns, name, func(s *ogxv1beta1.OGXServer) {
			if s.Spec.Workload == nil {
				s.Spec.Workload = &ogxv1beta1.WorkloadSpec{}
			}
			s.Spec.Workload.Replicas = ptr.To[int32](2)
		})
	}
	waitObserved(t, ogx, ns, "dist", 2, "Stalled", metav1.ConditionTrue)
	waitObserved(t, ogx, ns, "self", 2, "AdoptionConfigInvalid", metav1.ConditionTrue)
	waitObserved(t, ogx, ns, "ref", 2, "Stalled", metav1.ConditionTrue)
	waitObserved(t, ogx, ns, "gone", 2, "StorageReady", metav1.ConditionFalse)

	// A later Event: the sink sends in order, so once the new server's
	// first Event is stored, every Event of the passes above is too.
	sentinel := newServer(ns, "sentinel")
	if _, err := ogx.OgxV1beta1().OGXServers(ns).Create(t.Context(), sentinel, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// "Phase Ready; Created …" when the pods were available before the first
	// status was due, else "Phase Initializing → Ready; Created …".
	waitEvent(t, kube, ns, "sentinel", "PhaseChanged", "Ready; Created")

	for _, c := range []struct{ server, reason, note string }{
		{"dist", "UnknownDistribution", `unknown distribution "withdrawn"`},
		{"self", "AdoptionInvalid", ogxv1beta1.AnnotationAdoptNetworking + `: value "self" must not equal the CR name`},
		{"ref", "ReferenceNotFound", "absent-ca"},
		{"gone", "AdoptionSourceNotFound", "PVC vanished-pvc (ogx.io/adopt-storage) not found"},
	} {
		evs := eventsOf(t, kube, ns, c.server, c.reason)
		if len(evs) != 1 || !strings.Contains(evs[0].Note, c.note) || evs[0].Type != "Warning" {
			t.Errorf("%s: %d %s Events %v, want exactly one Warning containing %q", c.server, len(evs), c.reason, notes(evs), c.note)
		}
	}
	// The cause is reported once, with its own reason, not also as the
	// status reason.
	if evs := eventsOf(t, kube, ns, "dist", "InvalidSpec"); len(evs) != 0 {
		t.Errorf("dist: InvalidSpec Events %v besides UnknownDistribution", notes(evs))
	}
}

// waitObserved waits until the status has observed generation gen and
// condition typ has status want for it.
func waitObserved(t *testing.T, ogx versioned.Interface, ns, name string, gen int64, typ string, want metav1.ConditionStatus) {
	t.Helper()
	framework.Poll(t, time.Minute, fmt.Sprintf("OGXServer %s/%s generation %d with %s=%s", ns, name, gen, typ, want), func(ctx context.Context) (bool, error) {
		s, err := ogx.OgxV1beta1().OGXServers(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		c := apimeta.FindStatusCondition(s.Status.Conditions, typ)
		return s.Status.ObservedGeneration == gen && c != nil && c.Status == want, nil
	})
}

// waitEvent waits for an Event regarding server with reason and a note
// containing note.
func waitEvent(t *testing.T, kube kubernetes.Interface, ns, server, reason, note string) {
	t.Helper()
	var seen []string
	defer func() {
		if t.Failed() {
			t.Logf("Events of %s: %q", server, seen)
		}
	}()
	framework.Poll(t, time.Minute, fmt.Sprintf("a %s Event of %s containing %q", reason, server, note), func(ctx context.Context) (bool, error) {
		list, err := kube.EventsV1().Events(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		seen = seen[:0]
		for _, e := range list.Items {
			if e.Regarding.Name != server {
				continue
			}
			if e.Reason == reason && strings.Contains(e.Note, note) {
				return true, nil
			}
			seen = append(seen, e.Reason+": "+e.Note)
		}
		return false, nil
	})
}

// eventsOf lists the Events regarding server with reason.
func eventsOf(t *testing.T, kube kubernetes.Interface, ns, server, reason string) []eventsv1.Event {
	t.Helper()
	list, err := kube.EventsV1().Events(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []eventsv1.Event
	for _, e := range list.Items {
		if e.Regarding.Name == server && e.Reason == reason {
			out = append(out, e)
		}
	}
	return out
}

func notes(evs []eventsv1.Event) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = e.Note
	}
	return out
}
