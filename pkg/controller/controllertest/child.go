package controllertest

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	clienttesting "k8s.io/client-go/testing"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/apply"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

// ChildMeta is the metadata of a cached child named "c": labelled for the
// child caches and for the watched ConfigMap cache.
func ChildMeta() metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: "c", Namespace: Namespace, UID: "uid-c", Labels: map[string]string{
		render.LabelManagedBy: render.ManagedByValue, ogxv1beta1.WatchLabel: "true"}}
}

// CheckChild runs every operation of one kind's child against the fakes
// and checks each one reached that kind's cache or resource.
func CheckChild[O metav1.Object, AC any](e *Env, c *apply.Child[O, AC], kind, apiVersion string, gvr schema.GroupVersionResource) {
	t := e.TB
	t.Helper()
	if c.Kind != kind || c.APIVersion != apiVersion {
		t.Errorf("kind %s %s, want %s %s", c.Kind, c.APIVersion, kind, apiVersion)
	}
	if d := cmp.Diff([]string{"ogx-operator", "manager"}, c.Takeover); d != "" {
		t.Errorf("takeover managers (-want +got):\n%s", d)
	}
	if c.Journal != e.Deps.Events.Journal() {
		t.Errorf("%s writes are not journaled in the event sink's journal", kind)
	}

	got, err := c.Cached(Namespace, "c")
	if err != nil || got.Obj.GetName() != "c" || got.Obj.GetUID() != "uid-c" {
		t.Fatalf("cached c: %v, %v", got.Obj, err)
	}
	if _, err := c.Cached(Namespace, "absent"); !apierrors.IsNotFound(err) {
		t.Errorf("cached absent: want NotFound, got %v", err)
	}
	if e.Kube.ClearActions(); len(e.Kube.Actions()) != 0 {
		t.Fatal("actions not cleared")
	}

	ctx := e.Ctx
	live, err := c.Live(ctx, Namespace, "c")
	if err != nil {
		t.Fatalf("live: %v", err)
	}
	ac, err := c.Extract(live)
	if err != nil {
		t.Fatalf("extract: %v", err)
	}
	c.SetResourceVersion(ac, "5")
	if rv := ResourceVersionOf(t, ac); rv != "5" {
		t.Errorf("resourceVersion after set = %q, want 5", rv)
	}
	c.SetResourceVersion(ac, "")
	if rv := ResourceVersionOf(t, ac); rv != "" {
		t.Errorf("resourceVersion after unset = %q, want none", rv)
	}

	answer, err := c.Apply(ctx, Namespace, ac)
	if err != nil {
		t.Errorf("apply: %v", err)
	} else if kind != "ConfigMap" {
		// The child caches know our write's answer by what the write sent
		// (caches.KnowWrites); ConfigMaps are cached whole. A later
		// version stands for the answer, so the informer's event of this
		// one does not drop it.
		later := any(answer).(runtime.Object).DeepCopyObject().(O)
		later.SetResourceVersion(later.GetResourceVersion() + "0")
		sent := apply.Digest{1}
		c.Recent.Remember(later, sent)
		view, err := e.Deps.Caches.ChildTransform()(any(later).(runtime.Object).DeepCopyObject())
		if cached, ok := view.(*apply.CachedChild); err != nil || !ok || cached.OwnedDigest != sent {
			t.Errorf("%s: the cache does not take our write's answer by the sent digest: %#v, %v", kind, view, err)
		}
	}
	if _, err := c.Patch(ctx, Namespace, "c", []byte(`[{"op":"test","path":"/metadata/name","value":"c"}]`)); err != nil {
		t.Errorf("patch: %v", err)
	}
	if err := c.Delete(ctx, Namespace, "c", metav1.DeleteOptions{}); err != nil {
		t.Errorf("delete: %v", err)
	}
	var verbs []string
	for _, a := range e.Kube.Actions() {
		if a.GetResource() != gvr || a.GetNamespace() != Namespace {
			t.Errorf("request to the wrong resource: %s", ActionString(a))
			continue
		}
		v := a.GetVerb()
		if p, ok := a.(clienttesting.PatchActionImpl); ok {
			v += " " + string(p.GetPatchType()) + " " + p.PatchOptions.FieldManager
			if p.GetPatchType() == types.ApplyPatchType && (p.PatchOptions.Force == nil || !*p.PatchOptions.Force) {
				t.Errorf("apply without force")
			}
		}
		verbs = append(verbs, v)
	}
	want := []string{"get", "patch application/apply-patch+yaml ogx-controller", "patch application/json-patch+json ogx-controller", "delete"}
	if d := cmp.Diff(want, verbs); d != "" {
		t.Errorf("requests (-want +got):\n%s", d)
	}
}

// ResourceVersionOf reads metadata.resourceVersion of an apply configuration.
func ResourceVersionOf(t testing.TB, ac any) string {
	t.Helper()
	b, err := json.Marshal(ac)
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return v.Metadata.ResourceVersion
}
