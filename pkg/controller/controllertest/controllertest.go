// Package controllertest holds what the controllers' unit tests share: a
// test server, an Events sink that queues, summaries of the writes a fake
// clientset received and caches of adopted objects filled without
// informers.
package controllertest

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/caches"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/events"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/record"
	ogxfake "github.com/ogx-k8s/ogx-controller/pkg/generated/clientset/versioned/fake"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
	"github.com/ogx-k8s/ogx-controller/pkg/resolve"
)

// The default test server and the operator's namespace.
const (
	Namespace = "team-a"
	Name      = "demo"
	UID       = types.UID("0b6a6c1e-6f2e-4c2a-9f59-5f1d8a0c7e11")
	Operator  = "ogx-system"
)

// Server returns an OGXServer of the starter distribution with the given spec mutations applied.
func Server(ns, name string, uid types.UID, muts ...func(*ogxv1beta1.OGXServerSpec)) *ogxv1beta1.OGXServer {
	s := &ogxv1beta1.OGXServer{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, UID: uid, Generation: 1},
		Spec:       ogxv1beta1.OGXServerSpec{Distribution: ogxv1beta1.DistributionSpec{Name: ptr.To("starter")}},
	}
	for _, m := range muts {
		m(&s.Spec)
	}
	return s
}

// Annotated returns the default test server with the given annotations.
func Annotated(kv ...string) *ogxv1beta1.OGXServer {
	s := Server(Namespace, Name, UID)
	s.Annotations = map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		s.Annotations[kv[i]] = kv[i+1]
	}
	return s
}

// ActiveSink is an event sink that queues Events (as on the leader).
func ActiveSink() *events.Sink {
	e := events.NewSink("test", nil, nil, record.New())
	e.Lead()
	return e
}

// DrainEvents returns the queued Events as "Type Reason: note".
func DrainEvents(e *events.Sink) []string {
	var out []string
	for _, ev := range e.Queued() {
		out = append(out, ev.Type+" "+ev.Reason+": "+ev.Note)
	}
	return out
}

// Writes returns the actions that are not reads (get, list, watch) nor dry
// runs.
func Writes(actions []clienttesting.Action) []clienttesting.Action {
	var out []clienttesting.Action
	for _, a := range actions {
		switch a.GetVerb() {
		case "get", "list", "watch":
			continue
		}
		if IsDryRun(a) {
			continue
		}
		out = append(out, a)
	}
	return out
}

// ActionString renders a fake's action for failure messages:
// verb resource[/sub] namespace/name (patch type and field manager).
func ActionString(a clienttesting.Action) string {
	res := a.GetResource().Resource
	if a.GetSubresource() != "" {
		res += "/" + a.GetSubresource()
	}
	name := ""
	switch x := a.(type) {
	case clienttesting.PatchActionImpl:
		return fmt.Sprintf("%s %s %s/%s (%s, manager %q)", a.GetVerb(), res, a.GetNamespace(), x.GetName(), x.GetPatchType(), x.PatchOptions.FieldManager)
	case clienttesting.GetActionImpl:
		name = x.GetName()
	case clienttesting.DeleteActionImpl:
		name = x.GetName()
	case clienttesting.CreateActionImpl:
		if m, err := apimeta.Accessor(x.GetObject()); err == nil {
			name = m.GetName()
		}
	case clienttesting.UpdateActionImpl:
		if m, err := apimeta.Accessor(x.GetObject()); err == nil {
			name = m.GetName()
		}
	}
	return fmt.Sprintf("%s %s %s/%s", a.GetVerb(), res, a.GetNamespace(), name)
}

// WriteSummary describes the writes on a fake: "verb resource name", and
// the patch bodies by resource.
func WriteSummary(t *testing.T, actions []clienttesting.Action) ([]string, map[string]map[string]any) {
	t.Helper()
	var verbs []string
	bodies := map[string]map[string]any{}
	for _, a := range Writes(actions) {
		verbs = append(verbs, ActionString(a))
		if p, ok := a.(clienttesting.PatchActionImpl); ok {
			var body map[string]any
			if err := json.Unmarshal(p.GetPatch(), &body); err != nil {
				t.Fatalf("patch of %s: %v", p.GetName(), err)
			}
			bodies[a.GetResource().Resource] = body
		}
	}
	return verbs, bodies
}

// AdoptedAtOf takes the adopted-at annotation out of a patch body and
// checks it is an RFC 3339 time.
func AdoptedAtOf(t *testing.T, body map[string]any) {
	t.Helper()
	md, _ := body["metadata"].(map[string]any)
	ann, _ := md["annotations"].(map[string]any)
	v, _ := ann[render.AnnotationAdoptedAt].(string)
	if _, err := time.Parse(time.RFC3339, v); err != nil {
		t.Errorf("adopted-at %q: %v", v, err)
	}
	delete(ann, render.AnnotationAdoptedAt)
}

// AdoptedCaches returns caches of Namespace whose adopted-object caches
// hold what the label-selected informers would list from objs: only those
// labelled ogx.io/adopted-from. The informers are not started; their
// indexers are filled directly.
func AdoptedCaches(t *testing.T, objs ...runtime.Object) *caches.Caches {
	t.Helper()
	c := caches.NewCaches(kubefake.NewClientset(), ogxfake.NewSimpleClientset(), []string{Namespace}, Operator, nil, nil)
	f := c.For(Namespace).AdoptedFactory
	for _, o := range objs {
		var inf cache.SharedIndexInformer
		switch o.(type) {
		case *corev1.PersistentVolumeClaim:
			inf = f.Core().V1().PersistentVolumeClaims().Informer()
		case *corev1.Service:
			inf = f.Core().V1().Services().Informer()
		case *networkingv1.Ingress:
			inf = f.Networking().V1().Ingresses().Informer()
		}
		m, err := apimeta.Accessor(o)
		if err != nil {
			t.Fatal(err)
		}
		if _, labelled := m.GetLabels()[render.LabelAdoptedFrom]; !labelled || inf == nil {
			continue
		}
		if err := inf.GetIndexer().Add(o); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// Table is a distribution table independent of the process environment.
func Table() resolve.DistributionTable {
	return resolve.NewDistributionTable(func(string) string { return "" })
}

// WithStorage asks for a PVC of size (empty: the default size).
func WithStorage(size string) func(*ogxv1beta1.OGXServerSpec) {
	return func(s *ogxv1beta1.OGXServerSpec) {
		if s.Workload == nil {
			s.Workload = &ogxv1beta1.WorkloadSpec{}
		}
		s.Workload.Storage = &ogxv1beta1.PVCStorageSpec{}
		if size != "" {
			q := resource.MustParse(size)
			s.Workload.Storage.Size = &q
		}
	}
}

// Describe renders actions for failure messages: verb resource[/sub] ns/name (patch type).
func Describe(actions []clienttesting.Action) string {
	var b strings.Builder
	for _, a := range actions {
		fmt.Fprintf(&b, "\n  %s", ActionString(a))
	}
	if b.Len() == 0 {
		return " (none)"
	}
	return b.String()
}
