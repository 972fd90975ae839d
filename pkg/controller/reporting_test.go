package controller

import (
	"fmt"
	"strings"
	"testing"

	"github.com/go-logr/logr/funcr"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/controllertest"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

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
	e := newSFEnv(t, base.Options{EventsClient: events, EventQPS: 100, EventBurst: 100}, []runtime.Object{cm})
	go e.m.Run(e.ctx)
	controllertest.Eventually(t, "an InvalidImageOverrides Event", func() (bool, string) {
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

// TestCauseEventsOncePerCause: each cause the spec names an Event for
// (docs/status.md, Events) gets exactly one, with its own reason, however
// many controllers find it and however often they retry.
func TestCauseEventsOncePerCause(t *testing.T) {
	withAnnotation := func(s *ogxv1beta1.OGXServer, k, v string) *ogxv1beta1.OGXServer {
		s.Annotations = map[string]string{k: v}
		return s
	}
	legacyPods := func(n int) []runtime.Object {
		objs := []runtime.Object{&corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "legacy-pvc", Namespace: sfNamespace,
			Labels: map[string]string{"app": "llama-stack", render.LabelInstance: "legacy"}}}}
		for i := range n {
			objs = append(objs, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("legacy-%d", i), Namespace: sfNamespace,
				Labels: map[string]string{render.LabelInstance: "legacy"}}})
		}
		return objs
	}
	for _, tc := range []struct {
		name   string
		server *ogxv1beta1.OGXServer
		objs   []runtime.Object
		// between runs between the passes (nil: nothing).
		between func(e *sfEnv)
		want    []string
	}{{
		name: "unknown distribution",
		server: controllertest.Server(sfNamespace, sfName, sfUID, func(sp *ogxv1beta1.OGXServerSpec) {
			sp.Distribution.Name = ptr.To("no-such")
		}),
		want: []string{`Warning UnknownDistribution: spec.distribution.name: Invalid value: "no-such": unknown distribution "no-such"; available distributions: ` +
			strings.Join(ogxv1beta1.DistributionNames(), ", ")},
	}, {
		name: "unknown distribution among other errors",
		server: controllertest.Server(sfNamespace, sfName, sfUID, func(sp *ogxv1beta1.OGXServerSpec) {
			sp.Distribution.Name = ptr.To("no-such")
			sp.Storage = &ogxv1beta1.StateStorageSpec{KV: &ogxv1beta1.KVStorageSpec{Type: "redis"}}
		}),
		want: []string{"Warning InvalidSpec: "},
	}, {
		name:   "adoption annotation naming the server itself",
		server: withAnnotation(controllertest.Server(sfNamespace, sfName, sfUID), ogxv1beta1.AnnotationAdoptNetworking, sfName),
		want: []string{fmt.Sprintf(`Warning AdoptionInvalid: %s: value %q must not equal the CR name; same-name adoption causes resource conflicts`,
			ogxv1beta1.AnnotationAdoptNetworking, sfName)},
	}, {
		name:   "waiting for legacy pods, their count changing",
		server: withAnnotation(controllertest.Server(sfNamespace, sfName, sfUID, controllertest.WithStorage("")), ogxv1beta1.AnnotationAdoptStorage, "legacy"),
		objs:   legacyPods(2),
		between: func(e *sfEnv) {
			if err := e.kube.CoreV1().Pods(sfNamespace).Delete(e.ctx, "legacy-1", metav1.DeleteOptions{}); err != nil {
				e.tb.Fatal(err)
			}
		},
		want: []string{"Normal AdoptionWaiting: waiting for 2 legacy pods of legacy to terminate"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			e := newSFEnv(t, base.Options{EventQPS: 1000, EventBurst: 1000}, tc.objs, tc.server)
			e.m.Events.Lead()
			var got []string
			for pass := range 2 {
				if pass == 1 && tc.between != nil {
					tc.between(e)
				}
				for _, c := range e.m.childControllers {
					_, _ = c.Sync(e.ctx, sfKey)
				}
				got = append(got, controllertest.DrainEvents(e.Deps.Events)...)
			}
			// Messages of several errors are long; compare the reason and
			// the start of the note.
			for i := range got {
				if i < len(tc.want) && strings.HasPrefix(got[i], tc.want[i]) {
					got[i] = tc.want[i]
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Events (-want +got):\n%s", diff)
			}
		})
	}
}

// TestUnknownImageOverridesReported: an image-overrides entry naming no
// distribution is named in the InvalidImageOverrides Event and logged once,
// however often the ConfigMap is checked (each content change and each
// start of leading), and again after it was fixed and comes back.
func TestUnknownImageOverridesReported(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: render.OperatorConfigMapName, Namespace: sfOperator,
		Labels: map[string]string{ogxv1beta1.WatchLabel: "true"}},
		Data: map[string]string{render.ImageOverridesKey: "startr: quay.io/example/starter:1"}}
	events := kubefake.NewClientset()
	e := newSFEnv(t, base.Options{EventsClient: events, EventQPS: 100, EventBurst: 100}, []runtime.Object{cm})
	go e.m.Run(e.ctx)
	controllertest.Eventually(t, "an InvalidImageOverrides Event naming startr", func() (bool, string) {
		list, err := events.EventsV1().Events(sfOperator).List(e.ctx, metav1.ListOptions{})
		if err != nil {
			return false, err.Error()
		}
		for _, ev := range list.Items {
			if ev.Reason == "InvalidImageOverrides" && strings.Contains(ev.Note, "image-overrides[startr]") {
				return true, ""
			}
		}
		return false, fmt.Sprintf("%d Events, none InvalidImageOverrides naming startr", len(list.Items))
	})

	var logged []string
	ctx := klog.NewContext(e.ctx, funcr.New(func(_, args string) { logged = append(logged, args) }, funcr.Options{}))
	m := &Manager{Deps: e.m.Deps}
	fixed := cm.DeepCopy()
	fixed.Data = nil
	for _, c := range []*corev1.ConfigMap{cm, cm, cm, fixed, fixed, cm} {
		m.checkImageOverrides(ctx, c)
	}
	if len(logged) != 2 || !strings.Contains(logged[0], "startr") {
		t.Errorf("logged %q; want the unknown name once, and once more after the fix was undone", logged)
	}
}
