package controller

// Unit tests of legacy adoption (adoption.go): the annotation checks, the
// owner check, storage adoption on the kube fake, and the networking
// adoption and release paths.

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/caches"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/events"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/record"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/worker"
	ogxfake "github.com/ogx-k8s/ogx-controller/pkg/generated/clientset/versioned/fake"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
	"github.com/ogx-k8s/ogx-controller/pkg/resolve"
)

// annotated returns the default test server with the given annotations.
func annotated(kv ...string) *ogxv1beta1.OGXServer {
	s := sfServer(sfNamespace, sfName, sfUID)
	s.Annotations = map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		s.Annotations[kv[i]] = kv[i+1]
	}
	return s
}

const (
	adoptStorage    = ogxv1beta1.AnnotationAdoptStorage
	adoptNetworking = ogxv1beta1.AnnotationAdoptNetworking
)

func TestAdoptionAnnotationProblems(t *testing.T) {
	cases := []struct {
		name string
		s    *ogxv1beta1.OGXServer
		want []string
	}{
		{"none", annotated(adoptStorage, "legacy", adoptNetworking, "legacy"), nil},
		{"same name is worded for the condition", annotated(adoptStorage, sfName), []string{
			adoptStorage + `: value "demo" must not equal the CR name; same-name adoption causes resource conflicts`}},
		{"both annotations, storage first", annotated(adoptNetworking, "No", adoptStorage, "x_y"), []string{
			adoptStorage + `: value "x_y" is not a valid RFC 1123 DNS label`,
			adoptNetworking + `: value "No" is not a valid RFC 1123 DNS label`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if d := cmp.Diff(c.want, base.AdoptionAnnotationProblems(c.s)); d != "" {
				t.Errorf("problems (-want +got):\n%s", d)
			}
		})
	}
}

// legacyControlled is an object controlled by apiVersion/kind name uid.
func legacyControlled(apiVersion, kind, name string, uid types.UID) *corev1.PersistentVolumeClaim {
	return &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "legacy-pvc", Namespace: sfNamespace,
		OwnerReferences: []metav1.OwnerReference{{APIVersion: apiVersion, Kind: kind, Name: name, UID: uid, Controller: ptr.To(true)}}}}
}

func TestLegacyOwnerCheck(t *testing.T) {
	s := sfServer(sfNamespace, sfName, sfUID)
	noController := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "legacy-pvc",
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "x", UID: "u"}}}}
	cases := []struct {
		name     string
		obj      metav1.Object
		conflict bool
	}{
		{"no owner", &corev1.PersistentVolumeClaim{}, false},
		{"an owner that is not a controller", noController, false},
		{"this OGXServer", legacyControlled("ogx.io/v1beta1", "OGXServer", sfName, sfUID), false},
		{"the LlamaStackDistribution adopted", legacyControlled("llamastack.io/v1alpha1", base.LegacyKind, "legacy", "u-lsd"), false},
		{"another LlamaStackDistribution", legacyControlled("llamastack.io/v1alpha1", base.LegacyKind, "other", "u-lsd"), true},
		{"the same name in another group", legacyControlled("example.com/v1", base.LegacyKind, "legacy", "u-x"), true},
		{"another kind", legacyControlled("apps/v1", "Deployment", "legacy", "u-d"), true},
		{"another OGXServer", legacyControlled("ogx.io/v1beta1", "OGXServer", "other", "u-other"), true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := base.LegacyOwnerCheck(c.obj, "legacy", s)
			if !c.conflict {
				if err != nil {
					t.Fatalf("want no error, got %v", err)
				}
				return
			}
			var ue *resolve.UserError
			if !errors.As(err, &ue) || ue.Reason != ogxv1beta1.ReasonChildConflict {
				t.Fatalf("want a %s user error, got %v", ogxv1beta1.ReasonChildConflict, err)
			}
		})
	}
}

func TestServiceSelectorPatch(t *testing.T) {
	s := sfServer(sfNamespace, sfName, sfUID)
	ours := render.SelectorLabels(sfName)
	with := func(extra map[string]string) map[string]string {
		out := map[string]string{}
		for k, v := range ours {
			out[k] = v
		}
		for k, v := range extra {
			out[k] = v
		}
		return out
	}
	cases := []struct {
		name    string
		current map[string]string
		want    map[string]any
	}{
		{"already ours", with(nil), nil},
		{"empty", nil, map[string]any{render.LabelApp: render.AppValue, render.LabelInstance: sfName}},
		{"the legacy instance", with(map[string]string{render.LabelInstance: "legacy"}),
			map[string]any{render.LabelApp: render.AppValue, render.LabelInstance: sfName}},
		{"extra keys removed", with(map[string]string{"app.kubernetes.io/name": "llama-stack"}),
			map[string]any{render.LabelApp: render.AppValue, render.LabelInstance: sfName, "app.kubernetes.io/name": nil}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if d := cmp.Diff(c.want, serviceSelectorPatch(s, c.current)); d != "" {
				t.Errorf("selector patch (-want +got):\n%s", d)
			}
		})
	}
}

// activeSink is an event sink that queues Events (as on the leader).
func activeSink() *events.Sink {
	e := events.NewSink("test", 0, 0, nil, record.New())
	e.Lead()
	return e
}

// drainEvents returns the queued Events as "Type Reason: note".
func drainEvents(e *events.Sink) []string {
	var out []string
	for _, ev := range e.Queued() {
		out = append(out, ev.Type+" "+ev.Reason+": "+ev.Note)
	}
	return out
}

// writeSummary describes the writes on a fake: "verb resource name", and
// the patch bodies by resource.
func writeSummary(t *testing.T, actions []clienttesting.Action) ([]string, map[string]map[string]any) {
	t.Helper()
	var verbs []string
	bodies := map[string]map[string]any{}
	for _, a := range sfWrites(actions) {
		verbs = append(verbs, sfActionString(a))
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

// adoptedAtOf takes the adopted-at annotation out of a patch body and
// checks it is an RFC 3339 time.
func adoptedAtOf(t *testing.T, body map[string]any) {
	t.Helper()
	md, _ := body["metadata"].(map[string]any)
	ann, _ := md["annotations"].(map[string]any)
	v, _ := ann[render.AnnotationAdoptedAt].(string)
	if _, err := time.Parse(time.RFC3339, v); err != nil {
		t.Errorf("adopted-at %q: %v", v, err)
	}
	delete(ann, render.AnnotationAdoptedAt)
}

func TestStorageAdoption(t *testing.T) {
	lsdRef := metav1.OwnerReference{APIVersion: "llamastack.io/v1alpha1", Kind: base.LegacyKind, Name: "legacy", UID: "u-lsd", Controller: ptr.To(true)}
	keptRef := metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "keep", UID: "u-keep"}
	pvc := func(labels map[string]string, refs ...metav1.OwnerReference) *corev1.PersistentVolumeClaim {
		return &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "legacy-pvc", Namespace: sfNamespace,
			ResourceVersion: "11", Labels: labels, OwnerReferences: refs}}
	}
	legacyDeployment := func(replicas int32) *appsv1.Deployment {
		return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "legacy", Namespace: sfNamespace, ResourceVersion: "21"},
			Spec: appsv1.DeploymentSpec{Replicas: ptr.To(replicas)}}
	}
	legacyPod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "legacy-0", Namespace: sfNamespace,
		Labels: map[string]string{render.LabelInstance: "legacy"}}}
	otherPod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "other-0", Namespace: sfNamespace,
		Labels: map[string]string{render.LabelInstance: "other"}}}
	adoptedCond := []metav1.Condition{{Type: ogxv1beta1.ConditionStorageAdopted, Status: metav1.ConditionTrue, Reason: ogxv1beta1.ReasonStorageAdopted,
		Message: "PVC legacy-pvc adopted"}}
	pvcPatch := map[string]any{"metadata": map[string]any{
		"resourceVersion": "11",
		"ownerReferences": []any{map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "name": "keep", "uid": "u-keep"}},
		"labels": map[string]any{render.LabelAdoptedFrom: "legacy", render.LabelInstance: sfName,
			render.LabelManagedBy: render.ManagedByValue},
		"annotations": map[string]any{},
	}}
	const waitMsg = "waiting for 1 legacy pods of legacy to terminate"

	cases := []struct {
		name    string
		objs    []runtime.Object
		conds   []metav1.Condition
		waiting bool
		user    string
		writes  []string
		bodies  map[string]map[string]any
		events  []string
	}{
		{
			name:   "the PVC does not exist",
			conds:  []metav1.Condition{{Type: ogxv1beta1.ConditionStorageReady, Status: metav1.ConditionFalse, Reason: "StorageFailed", Message: "PVC legacy-pvc (ogx.io/adopt-storage) not found"}},
			events: []string{"Warning AdoptionSourceNotFound: PVC legacy-pvc (ogx.io/adopt-storage) not found"},
		},
		{
			name:  "already adopted: nothing is written",
			objs:  []runtime.Object{pvc(map[string]string{render.LabelAdoptedFrom: "legacy"}), legacyDeployment(1), legacyPod},
			conds: adoptedCond,
		},
		{
			name: "someone else controls the PVC",
			objs: []runtime.Object{pvc(nil, metav1.OwnerReference{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "db", UID: "u-db", Controller: ptr.To(true)})},
			user: ogxv1beta1.ReasonChildConflict,
		},
		{
			name:    "legacy pods run: scale down and wait",
			objs:    []runtime.Object{pvc(nil, lsdRef), legacyDeployment(1), legacyPod, otherPod},
			conds:   []metav1.Condition{{Type: ogxv1beta1.ConditionStorageAdopted, Status: metav1.ConditionFalse, Reason: ogxv1beta1.ReasonAdoptionInProgress, Message: waitMsg}},
			waiting: true,
			writes:  []string{`patch deployments team-a/legacy (application/merge-patch+json, manager "ogx-controller")`},
			bodies:  map[string]map[string]any{"deployments": {"metadata": map[string]any{"resourceVersion": "21"}, "spec": map[string]any{"replicas": float64(0)}}},
			events: []string{"Normal LegacyScaledDown: Scaled legacy Deployment legacy to 0 replicas",
				"Normal AdoptionWaiting: " + waitMsg},
		},
		{
			name:   "scaled down and no pods: the PVC is adopted",
			objs:   []runtime.Object{pvc(nil, lsdRef, keptRef), legacyDeployment(0), otherPod},
			conds:  adoptedCond,
			writes: []string{`patch persistentvolumeclaims team-a/legacy-pvc (application/merge-patch+json, manager "ogx-controller")`},
			bodies: map[string]map[string]any{"persistentvolumeclaims": pvcPatch},
			events: []string{"Normal StorageAdopted: PVC legacy-pvc adopted"},
		},
		{
			name:   "no legacy Deployment: the PVC is adopted",
			objs:   []runtime.Object{pvc(nil, keptRef)},
			conds:  adoptedCond,
			writes: []string{`patch persistentvolumeclaims team-a/legacy-pvc (application/merge-patch+json, manager "ogx-controller")`},
			bodies: map[string]map[string]any{"persistentvolumeclaims": pvcPatch},
			events: []string{"Normal StorageAdopted: PVC legacy-pvc adopted"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			kube := kubefake.NewClientset(c.objs...)
			events := activeSink()
			pc := &PVCController{kube: kube, events: events}
			s := annotated(adoptStorage, "legacy")
			conds, err := pc.storageAdoption(context.Background(), s, "legacy")
			var we *worker.WaitingError
			var ue *resolve.UserError
			switch {
			case c.waiting:
				if !errors.As(err, &we) || we.Reason != ogxv1beta1.ReasonAdoptionInProgress || we.Message != waitMsg {
					t.Errorf("want waiting for legacy pods, got %v", err)
				}
			case c.user != "":
				if !errors.As(err, &ue) || ue.Reason != c.user {
					t.Errorf("want a %s user error, got %v", c.user, err)
				}
			case err != nil:
				t.Errorf("unexpected error %v", err)
			}
			if d := cmp.Diff(c.conds, conds, cmpopts.EquateEmpty()); d != "" {
				t.Errorf("conditions (-want +got):\n%s", d)
			}
			writes, bodies := writeSummary(t, kube.Actions())
			if b := bodies["persistentvolumeclaims"]; b != nil {
				adoptedAtOf(t, b)
			}
			if d := cmp.Diff(c.writes, writes); d != "" {
				t.Errorf("writes (-want +got):\n%s", d)
			}
			if d := cmp.Diff(c.bodies, bodies, cmpopts.EquateEmpty()); d != "" {
				t.Errorf("patch bodies (-want +got):\n%s", d)
			}
			if d := cmp.Diff(c.events, drainEvents(events)); d != "" {
				t.Errorf("events (-want +got):\n%s", d)
			}
		})
	}
}

func TestIngressAdoption(t *testing.T) {
	lsdRef := metav1.OwnerReference{APIVersion: "llamastack.io/v1alpha1", Kind: base.LegacyKind, Name: "legacy", UID: "u-lsd", Controller: ptr.To(true)}
	keptRef := metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "keep", UID: "u-keep"}
	ourRef := base.OwnerRefOf(sfServer(sfNamespace, sfName, sfUID))
	ingress := func(name string, labels map[string]string, refs ...metav1.OwnerReference) *networkingv1.Ingress {
		return &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: sfNamespace, UID: types.UID("uid-" + name),
			ResourceVersion: "31", Labels: labels, OwnerReferences: refs}}
	}
	adoptedLabel := map[string]string{render.LabelAdoptedFrom: "legacy"}
	adopted := []metav1.Condition{{Type: ogxv1beta1.ConditionNetworkingAdopted, Status: metav1.ConditionTrue, Reason: ogxv1beta1.ReasonNetworkingAdopted,
		Message: "Networking adopted from legacy"}}
	const patchLegacy = `patch ingresses team-a/legacy-ingress (application/merge-patch+json, manager "ogx-controller")`

	// Releasing after the annotation is removed: TestNetworkingRelease.
	cases := []struct {
		name string
		// annotation is the adopt-networking value.
		annotation string
		objs       []runtime.Object
		user       string
		facts      []metav1.Condition
		writes     []string
		body       map[string]any
		events     []string
	}{
		{name: "the legacy Ingress does not exist", annotation: "legacy"},
		{
			name:       "the legacy Ingress is taken over",
			annotation: "legacy",
			objs:       []runtime.Object{ingress("legacy-ingress", map[string]string{"team": "x"}, lsdRef, keptRef)},
			facts:      adopted,
			writes:     []string{patchLegacy},
			body: map[string]any{"metadata": map[string]any{
				"resourceVersion": "31",
				"ownerReferences": []any{
					map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "name": "keep", "uid": "u-keep"},
					map[string]any{"apiVersion": "ogx.io/v1beta1", "kind": "OGXServer", "name": sfName, "uid": string(sfUID),
						"controller": true, "blockOwnerDeletion": true}},
				"labels":      map[string]any{render.LabelAdoptedFrom: "legacy", render.LabelManagedBy: render.ManagedByValue},
				"annotations": map[string]any{},
			}},
			events: []string{"Normal NetworkingAdopted: Networking adopted from legacy (Ingress legacy-ingress)"},
		},
		{
			name:       "already adopted: nothing is written",
			annotation: "legacy",
			objs:       []runtime.Object{ingress("legacy-ingress", adoptedLabel, ourRef)},
			facts:      adopted,
		},
		{
			name:       "someone else controls the legacy Ingress",
			annotation: "legacy",
			objs:       []runtime.Object{ingress("legacy-ingress", nil, metav1.OwnerReference{APIVersion: "v1", Kind: "Service", Name: "x", UID: "u-x", Controller: ptr.To(true)})},
			user:       ogxv1beta1.ReasonChildConflict,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			kube := kubefake.NewClientset(c.objs...)
			d := &base.Deps{Kube: kube, Board: base.NewOutcomeBoard(record.New()), Events: activeSink()}
			s := annotated(adoptNetworking, c.annotation)
			err := ingressAdoption(d)(context.Background(), s)
			var ue *resolve.UserError
			switch {
			case c.user != "":
				if !errors.As(err, &ue) || ue.Reason != c.user {
					t.Errorf("want a %s user error, got %v", c.user, err)
				}
			case err != nil:
				t.Errorf("unexpected error %v", err)
			}
			if d := cmp.Diff(c.facts, d.Board.Facts(sfUID), cmpopts.EquateEmpty()); d != "" {
				t.Errorf("facts (-want +got):\n%s", d)
			}
			writes, bodies := writeSummary(t, kube.Actions())
			if d := cmp.Diff(c.writes, writes); d != "" {
				t.Errorf("writes (-want +got):\n%s", d)
			}
			if b := bodies["ingresses"]; b != nil {
				adoptedAtOf(t, b)
			}
			if d := cmp.Diff(c.body, bodies["ingresses"], cmpopts.EquateEmpty()); d != "" {
				t.Errorf("patch body (-want +got):\n%s", d)
			}
			if d := cmp.Diff(c.events, drainEvents(d.Events)); d != "" {
				t.Errorf("events (-want +got):\n%s", d)
			}
		})
	}
}

// adoptedCaches returns caches of sfNamespace whose adopted-object caches
// hold what the label-selected informers would list from objs: only those
// labelled ogx.io/adopted-from. The informers are not started; their
// indexers are filled directly.
func adoptedCaches(t *testing.T, objs ...runtime.Object) *caches.Caches {
	t.Helper()
	c := caches.NewCaches(kubefake.NewClientset(), ogxfake.NewSimpleClientset(), []string{sfNamespace}, sfOperator, nil, nil)
	f := c.For(sfNamespace).AdoptedFactory
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

// TestNetworkingRelease: with adopt-networking absent, the service and
// ingress controllers release what the adopted-object cache shows this
// server controls, whatever status shows; status is never read for it.
func TestNetworkingRelease(t *testing.T) {
	ourRef := base.OwnerRefOf(sfServer(sfNamespace, sfName, sfUID))
	theirRef := metav1.OwnerReference{APIVersion: "ogx.io/v1beta1", Kind: "OGXServer", Name: "other", UID: "u-other", Controller: ptr.To(true)}
	adoptedLabel := map[string]string{render.LabelAdoptedFrom: "legacy"}
	removed := []metav1.Condition{{Type: ogxv1beta1.ConditionNetworkingAdopted, Status: metav1.ConditionFalse, Reason: ogxv1beta1.ReasonAdoptionAnnotationRemoved,
		Message: "Adoption annotation removed"}}
	kinds := []struct {
		kind, resource string
		obj            func(name string, labels map[string]string, refs ...metav1.OwnerReference) runtime.Object
		run            func(*base.Deps, *ogxv1beta1.OGXServer) error
	}{
		{"Service", "services", func(name string, labels map[string]string, refs ...metav1.OwnerReference) runtime.Object {
			return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: sfNamespace, UID: types.UID("uid-" + name),
				Labels: labels, OwnerReferences: refs}}
		}, func(d *base.Deps, s *ogxv1beta1.OGXServer) error {
			c := &ServiceController{kube: d.Kube, caches: d.Caches, events: d.Events,
				Controller: base.NewController("service", d, nil)}
			return c.adoptNetworking(context.Background(), s)
		}},
		{"Ingress", "ingresses", func(name string, labels map[string]string, refs ...metav1.OwnerReference) runtime.Object {
			return &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: sfNamespace, UID: types.UID("uid-" + name),
				Labels: labels, OwnerReferences: refs}}
		}, func(d *base.Deps, s *ogxv1beta1.OGXServer) error { return ingressAdoption(d)(context.Background(), s) }},
	}
	for _, k := range kinds {
		legacy := k.obj("legacy-"+strings.ToLower(k.kind), adoptedLabel, ourRef)
		theirs := k.obj("theirs-"+strings.ToLower(k.kind), adoptedLabel, theirRef)
		own := k.obj(sfName+"-"+strings.ToLower(k.kind), nil, ourRef)
		deleteLegacy := "delete " + k.resource + " team-a/legacy-" + strings.ToLower(k.kind)
		released := "Normal NetworkingReleased: Released adopted " + k.kind
		cases := []struct {
			name string
			// shown is the NetworkingAdopted status the server shows, if any.
			shown metav1.ConditionStatus
			// api is what the API server holds; the cache holds cached.
			api, cached []runtime.Object
			facts       []metav1.Condition
			writes      []string
			events      []string
		}{
			{name: "adopted and shown: ours are released", shown: metav1.ConditionTrue,
				api: []runtime.Object{legacy, theirs, own}, cached: []runtime.Object{legacy, theirs, own},
				facts: removed, writes: []string{deleteLegacy}, events: []string{released}},
			{name: "adopted, status lacks the condition: still released",
				api: []runtime.Object{legacy, own}, cached: []runtime.Object{legacy, own},
				facts: removed, writes: []string{deleteLegacy}, events: []string{released}},
			{name: "status claims adoption, nothing adopted is cached: no release", shown: metav1.ConditionTrue,
				api: []runtime.Object{theirs, own}, cached: []runtime.Object{theirs, own}},
			{name: "a pass before the cache saw the deletion: no second Event",
				api: []runtime.Object{own}, cached: []runtime.Object{legacy, own},
				facts: removed, writes: []string{deleteLegacy}},
			{name: "released earlier: nothing written", shown: metav1.ConditionFalse,
				api: []runtime.Object{own}, cached: []runtime.Object{own}},
		}
		for _, c := range cases {
			t.Run(k.kind+"/"+c.name, func(t *testing.T) {
				kube := kubefake.NewClientset(c.api...)
				d := &base.Deps{Kube: kube, Caches: adoptedCaches(t, c.cached...), Board: base.NewOutcomeBoard(record.New()), Events: activeSink()}
				s := annotated()
				if c.shown != "" {
					s.Status.Conditions = []metav1.Condition{{Type: ogxv1beta1.ConditionNetworkingAdopted, Status: c.shown}}
				}
				if err := k.run(d, s); err != nil {
					t.Fatalf("unexpected error %v", err)
				}
				if d := cmp.Diff(c.facts, d.Board.Facts(sfUID), cmpopts.EquateEmpty()); d != "" {
					t.Errorf("facts (-want +got):\n%s", d)
				}
				writes, _ := writeSummary(t, kube.Actions())
				if d := cmp.Diff(c.writes, writes); d != "" {
					t.Errorf("writes (-want +got):\n%s", d)
				}
				for _, a := range kube.Actions() {
					if a.GetVerb() == "list" || a.GetVerb() == "get" {
						t.Errorf("live read %s %s: the release reads the cache", a.GetVerb(), a.GetResource().Resource)
					}
					if del, ok := a.(clienttesting.DeleteActionImpl); ok {
						if p := del.DeleteOptions.Preconditions; p == nil || p.UID == nil || *p.UID != types.UID("uid-"+del.GetName()) {
							t.Errorf("delete of %s without its UID precondition: %+v", del.GetName(), p)
						}
					}
				}
				if d := cmp.Diff(c.events, drainEvents(d.Events)); d != "" {
					t.Errorf("events (-want +got):\n%s", d)
				}
			})
		}
	}
}

// TestAdoptLegacyServiceSelector: a Service adoption also points the
// selector at our pods, even when the Service is already ours, and keeps an
// earlier adopted-at.
func TestAdoptLegacyServiceSelector(t *testing.T) {
	s := annotated(adoptNetworking, "legacy")
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "legacy-service", ResourceVersion: "41",
		Labels:          map[string]string{render.LabelAdoptedFrom: "legacy"},
		Annotations:     map[string]string{render.AnnotationAdoptedAt: "2026-01-01T00:00:00Z"},
		OwnerReferences: []metav1.OwnerReference{base.OwnerRefOf(s)}}}
	var sent []byte
	changed, err := base.AdoptLegacy(context.Background(), s, "legacy", svc, serviceSelectorPatch(s, map[string]string{"app": "llama"}),
		func(_ context.Context, name string, data []byte) error {
			if name != svc.Name {
				t.Errorf("patched %s, want %s", name, svc.Name)
			}
			sent = data
			return nil
		})
	if err != nil || !changed {
		t.Fatalf("changed %v err %v, want a change", changed, err)
	}
	var body map[string]any
	if err := json.Unmarshal(sent, &body); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"metadata": map[string]any{"resourceVersion": "41",
			"ownerReferences": []any{map[string]any{"apiVersion": "ogx.io/v1beta1", "kind": "OGXServer", "name": sfName,
				"uid": string(sfUID), "controller": true, "blockOwnerDeletion": true}},
			"labels": map[string]any{render.LabelAdoptedFrom: "legacy", render.LabelManagedBy: render.ManagedByValue}},
		"spec": map[string]any{"selector": map[string]any{render.LabelApp: render.AppValue, render.LabelInstance: sfName}},
	}
	if d := cmp.Diff(want, body); d != "" {
		t.Errorf("patch (-want +got):\n%s", d)
	}
}
