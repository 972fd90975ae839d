package monitoring

// The monitoring controller (docs/children.md, ServiceMonitor and
// PrometheusRule; docs/controllers.md, Optional APIs) on a fake dynamic client
// whose field-managed object tracker uses the same OpenAPI document the
// controller extracts owned fields with, so applies record managedFields as an
// API server would.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apimachinery/pkg/watch"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/structured-merge-diff/v6/typed"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/apply"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/caches"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/controllertest"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/worker"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
	"github.com/ogx-k8s/ogx-controller/pkg/resolve"
)

// monTestOpenAPI is an OpenAPI v3 document of monitoring.coreos.com/v1 as an
// API server publishes it for structural CRDs: spec preserves unknown
// fields, except PrometheusRule spec.groups, a list-map keyed by name (as in
// the prometheus-operator CRDs).
const monTestOpenAPI = `{
  "openapi": "3.0.0",
  "components": {"schemas": {
    "com.coreos.monitoring.v1.ServiceMonitor": {
      "type": "object",
      "x-kubernetes-group-version-kind": [{"group": "monitoring.coreos.com", "version": "v1", "kind": "ServiceMonitor"}],
      "properties": {
        "apiVersion": {"type": "string"},
        "kind": {"type": "string"},
        "metadata": {"allOf": [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}]},
        "spec": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}
      }
    },
    "com.coreos.monitoring.v1.ServiceMonitorList": {
      "type": "object",
      "x-kubernetes-group-version-kind": [{"group": "monitoring.coreos.com", "version": "v1", "kind": "ServiceMonitorList"}],
      "properties": {
        "apiVersion": {"type": "string"},
        "kind": {"type": "string"},
        "items": {"type": "array", "items": {"allOf": [{"$ref": "#/components/schemas/com.coreos.monitoring.v1.ServiceMonitor"}]}}
      }
    },
    "com.coreos.monitoring.v1.PrometheusRule": {
      "type": "object",
      "x-kubernetes-group-version-kind": [{"group": "monitoring.coreos.com", "version": "v1", "kind": "PrometheusRule"}],
      "properties": {
        "apiVersion": {"type": "string"},
        "kind": {"type": "string"},
        "metadata": {"allOf": [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}]},
        "spec": {
          "type": "object",
          "properties": {
            "groups": {
              "type": "array",
              "x-kubernetes-list-type": "map",
              "x-kubernetes-list-map-keys": ["name"],
              "items": {
                "type": "object",
                "required": ["name"],
                "properties": {"name": {"type": "string"}},
                "x-kubernetes-preserve-unknown-fields": true
              }
            }
          },
          "x-kubernetes-preserve-unknown-fields": true
        }
      }
    },
    "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta": {
      "type": "object",
      "properties": {
        "name": {"type": "string"},
        "namespace": {"type": "string"},
        "uid": {"type": "string"},
        "resourceVersion": {"type": "string"},
        "generation": {"type": "integer", "format": "int64"},
        "creationTimestamp": {"type": "string"},
        "labels": {"type": "object", "additionalProperties": {"type": "string", "default": ""}},
        "annotations": {"type": "object", "additionalProperties": {"type": "string", "default": ""}},
        "ownerReferences": {
          "type": "array",
          "x-kubernetes-list-type": "map",
          "x-kubernetes-list-map-keys": ["uid"],
          "x-kubernetes-patch-merge-key": "uid",
          "x-kubernetes-patch-strategy": "merge",
          "items": {"allOf": [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference"}]}
        },
        "managedFields": {
          "type": "array",
          "items": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}
        }
      }
    },
    "io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference": {
      "type": "object",
      "required": ["apiVersion", "kind", "name", "uid"],
      "properties": {
        "apiVersion": {"type": "string"},
        "kind": {"type": "string"},
        "name": {"type": "string"},
        "uid": {"type": "string"},
        "controller": {"type": "boolean"},
        "blockOwnerDeletion": {"type": "boolean"}
      },
      "x-kubernetes-map-type": "atomic"
    }
  }}
}`

var (
	monSMKind = schema.GroupVersionKind{Group: "monitoring.coreos.com", Version: "v1", Kind: "ServiceMonitor"}
	monPRKind = schema.GroupVersionKind{Group: "monitoring.coreos.com", Version: "v1", Kind: "PrometheusRule"}
)

// monEnv is a monitoring controller on a started controllertest.Env and a
// fake dynamic client.
type monEnv struct {
	*controllertest.Env
	dyn      *dynamicfake.FakeDynamicClient
	trackers map[schema.GroupVersionResource]clienttesting.ObjectTracker
	c        *Controller
	loads    int
	mu       sync.Mutex
}

func monSchemas(tb testing.TB) map[string]*spec.Schema {
	tb.Helper()
	var d struct {
		Components struct {
			Schemas map[string]*spec.Schema `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal([]byte(monTestOpenAPI), &d); err != nil {
		tb.Fatal(err)
	}
	return d.Components.Schemas
}

// newMonFake builds a fake dynamic client whose trackers implement
// server-side apply with the document's types. Each kind has a tracker of
// its own: a scheme maps a Go type to one kind, so a scheme registering
// Unstructured for both would convert one kind's objects into the other's.
func newMonFake(tb testing.TB, objs ...runtime.Object) (*dynamicfake.FakeDynamicClient, map[schema.GroupVersionResource]clienttesting.ObjectTracker) {
	tb.Helper()
	tc, err := managedfields.NewTypeConverter(monSchemas(tb), false)
	if err != nil {
		tb.Fatal(err)
	}
	all := runtime.NewScheme()
	trackers := map[schema.GroupVersionResource]clienttesting.ObjectTracker{}
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(all, map[schema.GroupVersionResource]string{
		serviceMonitorsGVR: "ServiceMonitorList", prometheusRulesGVR: "PrometheusRuleList",
	})
	for gvr, gvk := range map[schema.GroupVersionResource]schema.GroupVersionKind{serviceMonitorsGVR: monSMKind, prometheusRulesGVR: monPRKind} {
		scheme := runtime.NewScheme()
		for _, sc := range []*runtime.Scheme{scheme, all} {
			sc.AddKnownTypeWithName(gvk, &unstructured.Unstructured{})
			sc.AddKnownTypeWithName(gvk.GroupVersion().WithKind(gvk.Kind+"List"), &unstructured.UnstructuredList{})
		}
		tracker := clienttesting.NewFieldManagedObjectTracker(scheme, serializer.NewCodecFactory(scheme).UniversalDecoder(), tc)
		for _, o := range objs {
			if o.GetObjectKind().GroupVersionKind() == gvk {
				if err := tracker.Add(o); err != nil {
					tb.Fatal(err)
				}
			}
		}
		trackers[gvr] = tracker
		dyn.PrependReactor("*", gvr.Resource, clienttesting.ObjectReaction(tracker))
		dyn.PrependReactor("patch", gvr.Resource, controllertest.ApplyPreconditions(tracker))
		dyn.PrependWatchReactor(gvr.Resource, func(a clienttesting.Action) (bool, watch.Interface, error) {
			w, err := tracker.Watch(a.GetResource(), a.GetNamespace())
			return true, w, err
		})
	}
	return dyn, trackers
}

// newMonEnv starts the informers and caches of a controllertest.Env with servers and the
// monitoring objects objs; served sets the discovery result and starts the
// monitoring informers.
func newMonEnv(tb testing.TB, served bool, kubeObjs []runtime.Object, objs []runtime.Object, servers ...*ogxv1beta1.OGXServer) *monEnv {
	tb.Helper()
	e := &monEnv{Env: controllertest.NewEnv(tb, base.Options{}, kubeObjs, servers...)}
	e.Start()
	e.dyn, e.trackers = newMonFake(tb, objs...)
	load := func(context.Context) (map[schema.GroupVersionKind]*typed.ParseableType, error) {
		e.mu.Lock()
		e.loads++
		e.mu.Unlock()
		return parseOpenAPITypes([]byte(monTestOpenAPI))
	}
	e.c = newMonitoringControllerFor(e.Deps, e.dyn, load)
	tb.Cleanup(func() { e.c.Queue().ShutDown() })
	e.setServed(served)
	return e
}

func (e *monEnv) setServed(served bool) {
	e.TB.Helper()
	e.Deps.Resolver.APIs.Monitoring.Store(served)
	e.c.SetAPIServed(e.Ctx, served)
	if served {
		controllertest.Eventually(e.TB, "monitoring informers to sync", func() (bool, string) { return e.c.caches.synced(), "" })
	}
	e.waitMonCaught()
}

// pass runs one monitoring pass for s.
func (e *monEnv) pass(s *ogxv1beta1.OGXServer) (worker.Result, error) {
	e.TB.Helper()
	return e.c.Sync(e.Ctx, caches.Key(s.Namespace, s.Name))
}

// writes returns (and clears) the write actions of the dynamic fake.
func (e *monEnv) writes() []clienttesting.Action {
	w := controllertest.Writes(e.dyn.Actions())
	e.dyn.ClearActions()
	return w
}

// stored reads an object from the fake's tracker.
func (e *monEnv) stored(gvr schema.GroupVersionResource, ns, name string) (*unstructured.Unstructured, error) {
	obj, err := e.trackers[gvr].Get(gvr, ns, name)
	if err != nil {
		return nil, err
	}
	return obj.(*unstructured.Unstructured), nil
}

// waitMonCaught waits until the monitoring informers (if running) hold what
// the tracker stores.
func (e *monEnv) waitMonCaught() {
	e.TB.Helper()
	controllertest.Eventually(e.TB, "monitoring caches to catch up", func() (bool, string) {
		if !e.c.caches.synced() {
			return true, ""
		}
		for _, gvr := range monitoringGVRs {
			kind := monSMKind
			if gvr == prometheusRulesGVR {
				kind = monPRKind
			}
			list, err := e.trackers[gvr].List(gvr, kind, metav1.NamespaceAll)
			if err != nil {
				return false, err.Error()
			}
			items := list.(*unstructured.UnstructuredList).Items
			n := 0
			for i := range items {
				it := &items[i]
				if it.GetLabels()[render.LabelManagedBy] != render.ManagedByValue {
					continue
				}
				n++
				got, err := e.c.caches.get(gvr, it.GetNamespace(), it.GetName())
				if err != nil {
					return false, err.Error()
				}
				if !equality.Semantic.DeepEqual(got.Object, it.Object) {
					return false, fmt.Sprintf("%s %s stale", gvr.Resource, it.GetName())
				}
			}
			e.c.caches.mu.RLock()
			cached := 0
			for _, l := range e.c.caches.run.listers[gvr] {
				objs, _ := l.List(labels.Everything())
				cached += len(objs)
			}
			e.c.caches.mu.RUnlock()
			if cached != n {
				return false, fmt.Sprintf("%s: %d cached, %d stored", gvr.Resource, cached, n)
			}
		}
		return true, ""
	})
}

func monDescribe(actions []clienttesting.Action) []string {
	var out []string
	for _, a := range actions {
		out = append(out, controllertest.ActionString(a))
	}
	return out
}

func TestMonitoringNotServedWritesNothing(t *testing.T) {
	s := controllertest.Server(controllertest.Namespace, controllertest.Name, controllertest.UID)
	e := newMonEnv(t, false, nil, nil, s)
	if _, err := e.pass(s); err != nil {
		t.Fatalf("pass: %v", err)
	}
	if o, _ := e.Outcome(s, "monitoring"); o.Class != base.OutcomeOK {
		t.Errorf("outcome %+v, want ok", o)
	}
	if a := e.dyn.Actions(); len(a) != 0 {
		t.Errorf("requests without the monitoring API: %v", monDescribe(a))
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.loads != 0 {
		t.Errorf("schema loaded %d times without the monitoring API", e.loads)
	}
}

func TestMonitoringCreateThenIdle(t *testing.T) {
	s := controllertest.Server(controllertest.Namespace, controllertest.Name, controllertest.UID)
	e := newMonEnv(t, true, nil, nil, s)
	if _, err := e.pass(s); err != nil {
		t.Fatalf("pass: %v", err)
	}
	want := []string{
		`patch servicemonitors team-a/demo-service-monitor (application/apply-patch+yaml, manager "ogx-controller")`,
		`patch prometheusrules team-a/demo-prometheus-rules (application/apply-patch+yaml, manager "ogx-controller")`,
	}
	if d := cmp.Diff(want, monDescribe(e.writes())); d != "" {
		t.Fatalf("writes (-want +got):\n%s", d)
	}
	in := &render.Inputs{MonitoringServed: true}
	for _, w := range []*unstructured.Unstructured{render.ServiceMonitor(s, in, false), render.PrometheusRule(s, in)} {
		gvr := serviceMonitorsGVR
		if w.GetKind() == render.KindPrometheusRule {
			gvr = prometheusRulesGVR
		}
		got, err := e.stored(gvr, controllertest.Namespace, w.GetName())
		if err != nil {
			t.Fatalf("%s not created: %v", w.GetName(), err)
		}
		if d := cmp.Diff(w.Object["spec"], got.Object["spec"]); d != "" {
			t.Errorf("%s spec (-want +got):\n%s", w.GetName(), d)
		}
		if d := cmp.Diff(w.GetLabels(), got.GetLabels()); d != "" {
			t.Errorf("%s labels (-want +got):\n%s", w.GetName(), d)
		}
		if len(got.GetManagedFields()) == 0 {
			t.Errorf("%s has no managedFields: the fake does not record ownership", w.GetName())
		}
	}
	if o, _ := e.Outcome(s, "monitoring"); o.Class != base.OutcomeOK {
		t.Errorf("outcome %+v, want ok", o)
	}

	// Converged: the next passes send nothing.
	e.waitMonCaught()
	for range 2 {
		if _, err := e.pass(s); err != nil {
			t.Fatalf("pass: %v", err)
		}
		if w := e.writes(); len(w) != 0 {
			t.Fatalf("idle pass wrote: %v", monDescribe(w))
		}
	}
	e.mu.Lock()
	loads := e.loads
	e.mu.Unlock()
	if loads != 1 {
		t.Errorf("schema loaded %d times, want once", loads)
	}
}

// Content another manager adds (a rule group of its own, a label) is not
// ours: the no-op check ignores it and no apply is sent. A deduced
// (schemaless) type would extract the whole atomic spec.groups list and
// apply forever.
func TestMonitoringForeignFieldsIgnored(t *testing.T) {
	s := controllertest.Server(controllertest.Namespace, controllertest.Name, controllertest.UID)
	e := newMonEnv(t, true, nil, nil, s)
	if _, err := e.pass(s); err != nil {
		t.Fatal(err)
	}
	foreign := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": render.MonitoringAPIVersion, "kind": render.KindPrometheusRule,
		"metadata": map[string]any{"name": render.PrometheusRuleName(controllertest.Name), "namespace": controllertest.Namespace,
			"labels": map[string]any{"team": "sre"}},
		"spec": map[string]any{"groups": []any{map[string]any{"name": "sre.rules", "rules": []any{
			map[string]any{"record": "x", "expr": "vector(1)"},
		}}}},
	}}
	if _, err := e.dyn.Resource(prometheusRulesGVR).Namespace(controllertest.Namespace).Apply(e.Ctx, foreign.GetName(), foreign,
		metav1.ApplyOptions{FieldManager: "sre"}); err != nil {
		t.Fatal(err)
	}
	got, _ := e.stored(prometheusRulesGVR, controllertest.Namespace, foreign.GetName())
	if groups, _, _ := unstructured.NestedSlice(got.Object, "spec", "groups"); len(groups) != 2 {
		t.Fatalf("the fake did not merge the foreign group (list-map): %v", groups)
	}
	e.waitMonCaught()
	e.writes()
	if _, err := e.pass(s); err != nil {
		t.Fatal(err)
	}
	if w := e.writes(); len(w) != 0 {
		t.Errorf("foreign fields drew writes: %v", monDescribe(w))
	}
}

// A hand edit of an owned field moves its ownership away; the next pass
// applies again and restores it (drift correction).
func TestMonitoringDriftReverted(t *testing.T) {
	s := controllertest.Server(controllertest.Namespace, controllertest.Name, controllertest.UID)
	e := newMonEnv(t, true, nil, nil, s)
	if _, err := e.pass(s); err != nil {
		t.Fatal(err)
	}
	edit := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": render.MonitoringAPIVersion, "kind": render.KindServiceMonitor,
		"metadata": map[string]any{"name": render.ServiceMonitorName(controllertest.Name), "namespace": controllertest.Namespace},
		"spec":     map[string]any{"endpoints": []any{map[string]any{"path": "/other", "interval": "5s"}}},
	}}
	if _, err := e.dyn.Resource(serviceMonitorsGVR).Namespace(controllertest.Namespace).Apply(e.Ctx, edit.GetName(), edit,
		metav1.ApplyOptions{FieldManager: "kubectl", Force: true}); err != nil {
		t.Fatal(err)
	}
	e.waitMonCaught()
	e.writes()
	if _, err := e.pass(s); err != nil {
		t.Fatal(err)
	}
	want := []string{`patch servicemonitors team-a/demo-service-monitor (application/apply-patch+yaml, manager "ogx-controller")`}
	if d := cmp.Diff(want, monDescribe(e.writes())); d != "" {
		t.Fatalf("writes (-want +got):\n%s", d)
	}
	got, _ := e.stored(serviceMonitorsGVR, controllertest.Namespace, edit.GetName())
	eps, _, _ := unstructured.NestedSlice(got.Object, "spec", "endpoints")
	if len(eps) != 1 || eps[0].(map[string]any)["path"] != "/metrics" {
		t.Errorf("endpoints not restored: %v", eps)
	}
}

func TestMonitoringDisabledDeletesOwned(t *testing.T) {
	s := controllertest.Server(controllertest.Namespace, controllertest.Name, controllertest.UID)
	e := newMonEnv(t, true, nil, nil, s)
	if _, err := e.pass(s); err != nil {
		t.Fatal(err)
	}
	e.waitMonCaught()
	e.writes()
	off := s.DeepCopy()
	off.Spec.Monitoring = &ogxv1beta1.MonitoringSpec{Enabled: ptr.To(false)}
	off.Generation++
	e.UpdateServer(off)
	if _, err := e.pass(off); err != nil {
		t.Fatal(err)
	}
	w := e.writes()
	want := []string{"delete servicemonitors team-a/demo-service-monitor", "delete prometheusrules team-a/demo-prometheus-rules"}
	if d := cmp.Diff(want, monDescribe(w)); d != "" {
		t.Fatalf("writes (-want +got):\n%s", d)
	}
	for _, a := range w {
		opts := a.(clienttesting.DeleteActionImpl).DeleteOptions
		if opts.Preconditions == nil || opts.Preconditions.UID == nil {
			t.Errorf("%s without a UID precondition", controllertest.ActionString(a))
		}
	}
	for _, gvr := range monitoringGVRs {
		kind := monSMKind
		if gvr == prometheusRulesGVR {
			kind = monPRKind
		}
		if list, _ := e.trackers[gvr].List(gvr, kind, controllertest.Namespace); list != nil {
			if n := len(list.(*unstructured.UnstructuredList).Items); n != 0 {
				t.Errorf("%d %s left", n, gvr.Resource)
			}
		}
	}
	// Nothing left: the next pass sends nothing.
	e.waitMonCaught()
	if _, err := e.pass(off); err != nil {
		t.Fatal(err)
	}
	if w := e.writes(); len(w) != 0 {
		t.Errorf("idle pass wrote: %v", monDescribe(w))
	}
}

func monObject(kind, name string, lbls map[string]string, owners []metav1.OwnerReference) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": render.MonitoringAPIVersion, "kind": kind,
		"metadata": map[string]any{"name": name, "namespace": controllertest.Namespace},
		"spec":     map[string]any{},
	}}
	u.SetLabels(lbls)
	u.SetOwnerReferences(owners)
	u.SetUID(types.UID("uid-" + name))
	return u
}

// The ownership guard (docs/controllers.md, Ownership guard) for the
// unstructured kinds.
func TestMonitoringGuard(t *testing.T) {
	smName := render.ServiceMonitorName(controllertest.Name)
	cases := []struct {
		name     string
		existing *unstructured.Unstructured
		want     base.Outcome
	}{
		{"unlabelled without owner (not cached: live GET)", monObject(render.KindServiceMonitor, smName, nil, nil),
			controllertest.Conflict(render.KindServiceMonitor, smName)},
		{"labelled, controlled by someone else", monObject(render.KindServiceMonitor, smName, controllertest.ManagedLabels(),
			controllertest.OwnerRefs("apps/v1", "Deployment", "x", "uid-x")), controllertest.Conflict(render.KindServiceMonitor, smName)},
		{"labelled, controlled by an older OGXServer of the same name", monObject(render.KindServiceMonitor, smName,
			controllertest.ManagedLabels(), controllertest.OwnerRefs(controllertest.GroupVersion, "OGXServer", controllertest.Name, "uid-old")), controllertest.WaitingForGC(render.KindServiceMonitor, smName)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := controllertest.Server(controllertest.Namespace, controllertest.Name, controllertest.UID)
			e := newMonEnv(t, true, nil, []runtime.Object{tc.existing}, s)
			_, _ = e.pass(s)
			o, _ := e.Outcome(s, "monitoring")
			tc.want.Generation = s.Generation
			if d := cmp.Diff(tc.want, o); d != "" {
				t.Errorf("outcome (-want +got):\n%s", d)
			}
			for _, a := range controllertest.WithoutCreateOnly(e.writes()) {
				if strings.Contains(controllertest.ActionString(a), smName) {
					t.Errorf("the guarded object was written: %s", controllertest.ActionString(a))
				}
			}
			// Disabling monitoring never deletes what is not ours.
			off := s.DeepCopy()
			off.Spec.Monitoring = &ogxv1beta1.MonitoringSpec{Enabled: ptr.To(false)}
			off.Generation++
			e.UpdateServer(off)
			if _, err := e.pass(off); err != nil {
				t.Fatal(err)
			}
			if w := e.writes(); len(w) != 0 {
				t.Errorf("writes with monitoring off: %v", monDescribe(w))
			}
		})
	}
}

// An orphan with our label (the upstream operator's object) is adopted, and
// the fields of the upstream managers are taken over first
// (docs/controllers.md, Takeover).
func TestMonitoringTakeover(t *testing.T) {
	s := controllertest.Server(controllertest.Namespace, controllertest.Name, controllertest.UID)
	e := newMonEnv(t, true, nil, nil, s)
	// The upstream operator's object, as stored by an API server (the fake
	// stamps no resourceVersion, which the takeover patch tests).
	old := monObject(render.KindPrometheusRule, render.PrometheusRuleName(controllertest.Name), controllertest.ManagedLabels(), nil)
	old.SetResourceVersion("7")
	old.Object["spec"] = map[string]any{"groups": []any{map[string]any{"name": "legacy.rules", "rules": []any{}}}}
	old.SetManagedFields([]metav1.ManagedFieldsEntry{{
		Manager: "ogx-operator", Operation: metav1.ManagedFieldsOperationApply, APIVersion: render.MonitoringAPIVersion,
		FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:labels":{"f:app.kubernetes.io/managed-by":{}}},` +
			`"f:spec":{"f:groups":{"k:{\"name\":\"legacy.rules\"}":{".":{},"f:name":{},"f:rules":{}}}}}`)},
	}})
	if err := e.trackers[prometheusRulesGVR].Add(old); err != nil {
		t.Fatal(err)
	}
	e.waitMonCaught()
	e.writes()
	if _, err := e.pass(s); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`patch servicemonitors team-a/demo-service-monitor (application/apply-patch+yaml, manager "ogx-controller")`,
		`patch prometheusrules team-a/demo-prometheus-rules (application/json-patch+json, manager "ogx-controller")`,
		`patch prometheusrules team-a/demo-prometheus-rules (application/apply-patch+yaml, manager "ogx-controller")`,
	}
	if d := cmp.Diff(want, monDescribe(e.writes())); d != "" {
		t.Fatalf("writes (-want +got):\n%s", d)
	}
	got, _ := e.stored(prometheusRulesGVR, controllertest.Namespace, old.GetName())
	groups, _, _ := unstructured.NestedSlice(got.Object, "spec", "groups")
	if len(groups) != 1 || groups[0].(map[string]any)["name"] != "telemetry.rules" {
		t.Errorf("the upstream group survived the takeover: %v", groups)
	}
	for _, mf := range got.GetManagedFields() {
		if mf.Manager == "ogx-operator" {
			t.Errorf("ogx-operator still owns fields: %+v", mf)
		}
	}
	if refs := got.GetOwnerReferences(); len(refs) != 1 || refs[0].UID != controllertest.UID {
		t.Errorf("owner references %v, want this OGXServer", refs)
	}
}

// With server TLS on the API port, the scrape verifies against ca.crt when
// the watched TLS Secret has one.
func TestMonitoringServerCA(t *testing.T) {
	tls := func(sp *ogxv1beta1.OGXServerSpec) {
		sp.Network = &ogxv1beta1.NetworkSpec{TLS: &ogxv1beta1.ServerTLSSpec{SecretName: "demo-tls"}}
		sp.Monitoring = &ogxv1beta1.MonitoringSpec{MetricsPort: ptr.To[int32](8321)}
	}
	for _, withCA := range []bool{false, true} {
		t.Run(fmt.Sprintf("ca.crt=%v", withCA), func(t *testing.T) {
			sec := &corev1.Secret{
				ObjectMeta: metav1.ObjectMeta{Name: "demo-tls", Namespace: controllertest.Namespace, Labels: map[string]string{ogxv1beta1.WatchLabel: "true"}},
				Data:       map[string][]byte{"tls.crt": []byte("c"), "tls.key": []byte("k")},
			}
			if withCA {
				sec.Data["ca.crt"] = []byte("ca")
			}
			s := controllertest.Server(controllertest.Namespace, controllertest.Name, controllertest.UID, tls)
			e := newMonEnv(t, true, []runtime.Object{sec}, nil, s)
			if _, err := e.pass(s); err != nil {
				t.Fatal(err)
			}
			got, err := e.stored(serviceMonitorsGVR, controllertest.Namespace, render.ServiceMonitorName(controllertest.Name))
			if err != nil {
				t.Fatal(err)
			}
			eps, _, _ := unstructured.NestedSlice(got.Object, "spec", "endpoints")
			tlsConfig := eps[0].(map[string]any)["tlsConfig"].(map[string]any)
			if _, verified := tlsConfig["ca"]; verified != withCA {
				t.Errorf("tlsConfig %v with ca.crt=%v", tlsConfig, withCA)
			}
		})
	}
}

// Turning the API off stops the informers; passes record ok and write
// nothing; turning it on again builds new informers that see the objects.
func TestMonitoringAPIFlips(t *testing.T) {
	s := controllertest.Server(controllertest.Namespace, controllertest.Name, controllertest.UID)
	e := newMonEnv(t, true, nil, nil, s)
	if _, err := e.pass(s); err != nil {
		t.Fatal(err)
	}
	e.waitMonCaught()
	e.setServed(false)
	if e.c.caches.synced() {
		t.Fatal("informers still running")
	}
	e.writes()
	if _, err := e.pass(s); err != nil {
		t.Fatalf("pass: %v", err)
	}
	if o, _ := e.Outcome(s, "monitoring"); o.Class != base.OutcomeOK {
		t.Errorf("outcome %+v, want ok", o)
	}
	if w := e.writes(); len(w) != 0 {
		t.Errorf("writes while not served: %v", monDescribe(w))
	}
	e.setServed(true)
	e.writes()
	if _, err := e.pass(s); err != nil {
		t.Fatal(err)
	}
	if w := e.writes(); len(w) != 0 {
		t.Errorf("writes after the API came back (objects unchanged): %v", monDescribe(w))
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.loads != 2 {
		t.Errorf("schema loaded %d times, want once per start (2)", e.loads)
	}
}

// Informer events of owned objects reach registered handlers, also after a
// restart of the informers.
func TestMonitoringEventHandlers(t *testing.T) {
	s := controllertest.Server(controllertest.Namespace, controllertest.Name, controllertest.UID)
	e := newMonEnv(t, false, nil, nil, s)
	var mu sync.Mutex
	got := map[string]int{}
	e.c.AddEventHandler(caches.Handler(caches.ByOwner, nil, func(k string) { mu.Lock(); got[k]++; mu.Unlock() }))
	e.setServed(true)
	if _, err := e.pass(s); err != nil {
		t.Fatal(err)
	}
	key := caches.Key(controllertest.Namespace, controllertest.Name)
	controllertest.Eventually(t, "owner events", func() (bool, string) {
		mu.Lock()
		defer mu.Unlock()
		return got[key] >= 2, fmt.Sprint(got)
	})
	e.setServed(false)
	mu.Lock()
	got = map[string]int{}
	mu.Unlock()
	e.setServed(true)
	// The new informers list both objects again.
	controllertest.Eventually(t, "owner events after a restart", func() (bool, string) {
		mu.Lock()
		defer mu.Unlock()
		return got[key] >= 2, fmt.Sprint(got)
	})
}

func TestParseOpenAPITypes(t *testing.T) {
	types, err := parseOpenAPITypes([]byte(monTestOpenAPI))
	if err != nil {
		t.Fatal(err)
	}
	for _, gvk := range []schema.GroupVersionKind{monSMKind, monPRKind} {
		if types[gvk] == nil {
			t.Errorf("no type for %s", gvk)
		}
	}
	if _, err := parseOpenAPITypes([]byte("{")); err == nil {
		t.Error("a broken document parsed")
	}
}

// The dynamic client shares the clientset's HTTP client and host (including
// a path prefix), and the schema loader reads the group version's OpenAPI v3
// document.
func TestMonitoringClientsFromClientset(t *testing.T) {
	var mu sync.Mutex
	var paths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.Method+" "+r.URL.Path)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Path == "/prefix/openapi/v3":
			fmt.Fprint(w, `{"paths": {"apis/monitoring.coreos.com/v1": {"serverRelativeURL": "/prefix/openapi/v3/apis/monitoring.coreos.com/v1?hash=X"}}}`)
		case r.URL.Path == "/prefix/openapi/v3/apis/monitoring.coreos.com/v1":
			fmt.Fprint(w, monTestOpenAPI)
		case strings.HasSuffix(r.URL.Path, "/servicemonitors/x"):
			fmt.Fprint(w, `{"apiVersion": "monitoring.coreos.com/v1", "kind": "ServiceMonitor", "metadata": {"name": "x", "namespace": "ns"}}`)
		default:
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "NotFound", "code": 404}`)
		}
	}))
	defer srv.Close()
	var wrapped int
	cfg := &rest.Config{Host: srv.URL + "/prefix", WrapTransport: func(rt http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(r *http.Request) (*http.Response, error) {
			mu.Lock()
			wrapped++
			mu.Unlock()
			return rt.RoundTrip(r)
		})
	}}
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := base.DynamicClientFor(kube)
	if err != nil || dyn == nil {
		t.Fatalf("dynamicClientFor: %v, %v", dyn, err)
	}
	obj, err := dyn.Resource(serviceMonitorsGVR).Namespace("ns").Get(context.Background(), "x", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get: %v", err)
	}
	if obj.GetName() != "x" {
		t.Errorf("got %v", obj.Object)
	}
	_, err = dyn.Resource(serviceMonitorsGVR).Namespace("ns").Apply(context.Background(), "y",
		render.ServiceMonitor(controllertest.Server("ns", "y", "u"), nil, false), apply.ApplyOptions())
	if err == nil || apierrors.IsNotFound(kindGone(err)) || resolve.IsUserError(apply.ClassifyWriteError("ServiceMonitor", "y", kindGone(err))) {
		t.Errorf("a 404 answer to an apply must become a transient error, got %v", kindGone(err))
	}
	types, err := openAPIV3Loader(kube)(context.Background())
	if err != nil {
		t.Fatalf("loading the schema: %v", err)
	}
	if types[monSMKind] == nil || types[monPRKind] == nil {
		t.Errorf("loaded types lack the kinds: %v", types)
	}
	mu.Lock()
	defer mu.Unlock()
	if want := "GET /prefix/apis/monitoring.coreos.com/v1/namespaces/ns/servicemonitors/x"; paths[0] != want {
		t.Errorf("first request %q, want %q", paths[0], want)
	}
	if wrapped != len(paths) {
		t.Errorf("%d of %d requests went through the clientset's transport", wrapped, len(paths))
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// Deleting the CRDs deletes our objects; the passes their delete events
// start meet refused creates (Forbidden while the CRD terminates, then
// NotFound) before the next discovery notices. That is "not served", not a
// user error: the outcome stays ok and the pass looks again shortly.
func TestMonitoringCRDGoingAway(t *testing.T) {
	for _, refusal := range []error{
		apierrors.NewForbidden(serviceMonitorsGVR.GroupResource(), "demo-service-monitor",
			fmt.Errorf("create not allowed while custom resource definition is terminating")),
		apierrors.NewNotFound(serviceMonitorsGVR.GroupResource(), "demo-service-monitor"),
	} {
		t.Run(string(apierrors.ReasonForError(refusal)), func(t *testing.T) {
			s := controllertest.Server(controllertest.Namespace, controllertest.Name, controllertest.UID)
			e := newMonEnv(t, true, nil, nil, s)
			e.dyn.PrependReactor("patch", "servicemonitors", func(clienttesting.Action) (bool, runtime.Object, error) {
				return true, nil, refusal
			})
			res, err := e.pass(s)
			if err != nil {
				t.Fatalf("pass: %v", err)
			}
			if res.RequeueAfter != base.WaitRequeue {
				t.Errorf("RequeueAfter %s, want %s", res.RequeueAfter, base.WaitRequeue)
			}
			if o, _ := e.Outcome(s, "monitoring"); o.Class != base.OutcomeOK {
				t.Errorf("outcome %+v, want ok", o)
			}
		})
	}
	// Any other rejection stays a user error.
	s := controllertest.Server(controllertest.Namespace, controllertest.Name, controllertest.UID)
	e := newMonEnv(t, true, nil, nil, s)
	e.dyn.PrependReactor("patch", "servicemonitors", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(serviceMonitorsGVR.GroupResource(), "demo-service-monitor", fmt.Errorf("denied by policy"))
	})
	if _, err := e.pass(s); !resolve.IsUserError(err) {
		t.Errorf("pass error %v, want a user error", err)
	}
	if o, _ := e.Outcome(s, "monitoring"); o.Class != base.OutcomeUserError || o.Reason != ogxv1beta1.ReasonApplyFailed {
		t.Errorf("outcome %+v, want ApplyFailed", o)
	}
}
