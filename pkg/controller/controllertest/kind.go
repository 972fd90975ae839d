package controllertest

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clienttesting "k8s.io/client-go/testing"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/apply"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
)

// CheckKind checks a child kind a controller package declares for itself
// (base.Kind): registered on an Env whose fakes hold obj (named "c", with
// ChildMeta), the cache holds it as a view, its applier reaches that
// kind's cache and the resource gvr (CheckChild), and the manager is given
// its event source.
func CheckKind[O apply.ChildObject, AC any](tb testing.TB, k base.Kind[O, AC], obj runtime.Object, gvr schema.GroupVersionResource) {
	tb.Helper()
	e := NewEnv(tb, base.Options{}, []runtime.Object{obj})
	child := base.RegisterKind(e.Deps, k)
	e.Start()
	if got, err := child.Cached(Namespace, "c"); err != nil || got.Digest.IsZero() {
		tb.Errorf("%s c is cached whole, not as a view with a digest (err %v)", k.Kind, err)
	}
	CheckChild(e, child, k.Kind, k.APIVersion, gvr)
	if len(e.Deps.Owned) != 1 || e.Deps.Owned[0].Kind != k.Kind || e.Deps.Owned[0].Observe == nil {
		tb.Errorf("registered sources %+v, want one of kind %s with the applier's hook", e.Deps.Owned, k.Kind)
	}
	if inf := e.Deps.Caches.For(Namespace).ChildInformer(k.Kind); inf == nil || !inf.HasSynced() {
		tb.Errorf("the %s informer was not started with the caches", k.Kind)
	}
}

// CheckOptional drives the controller newController builds for an
// optional child named name of resource gvr: a pass over wanted applies
// the child, and once the server's spec is unwanted's a pass deletes it.
func CheckOptional(tb testing.TB, newController func(*base.Deps) *base.Controller,
	wanted, unwanted *ogxv1beta1.OGXServer, gvr schema.GroupVersionResource, name string) {
	tb.Helper()
	e := NewEnv(tb, base.Options{}, nil, wanted)
	c := newController(e.Deps)
	e.Start()
	pass := func(want ...string) {
		tb.Helper()
		if _, err := c.Sync(e.Ctx, Key); err != nil {
			tb.Fatalf("pass: %v", err)
		}
		var got []string
		for _, a := range e.KubeWrites() {
			if a.GetResource() == gvr {
				got = append(got, a.GetVerb()+" "+actionName(a))
			}
		}
		if d := cmp.Diff(want, got); d != "" {
			tb.Errorf("%s writes (-want +got):\n%s", gvr.Resource, d)
		}
		e.WaitCaught()
	}
	pass("patch " + name)
	unwanted = unwanted.DeepCopy()
	unwanted.Generation = wanted.Generation + 1
	e.UpdateServer(unwanted)
	e.ClearActions()
	pass("delete " + name)
}

// actionName is the name a patch or delete action is for.
func actionName(a clienttesting.Action) string {
	switch x := a.(type) {
	case clienttesting.PatchActionImpl:
		return x.GetName()
	case clienttesting.DeleteActionImpl:
		return x.GetName()
	}
	return ""
}
