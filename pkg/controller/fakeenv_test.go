package controller

// The harness of the tests that run the controllers together: a Manager
// on the fake clientsets of controllertest.Env (see there for what the
// fakes do and do not do). Each test drives the controllers' Sync
// functions directly and audits the requests the fakes received.

import (
	"context"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/controllertest"
	ogxfake "github.com/ogx-k8s/ogx-controller/pkg/generated/clientset/versioned/fake"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

// The default test server's names, shared with the controllers' own tests.
const (
	sfNamespace = controllertest.Namespace
	sfName      = controllertest.Name
	sfUID       = controllertest.UID
	sfOperator  = controllertest.Operator
)

var (
	gvrDeployments     = appsv1.SchemeGroupVersion.WithResource("deployments")
	gvrServices        = corev1.SchemeGroupVersion.WithResource("services")
	gvrServiceAccounts = corev1.SchemeGroupVersion.WithResource("serviceaccounts")
	gvrPVCs            = corev1.SchemeGroupVersion.WithResource("persistentvolumeclaims")
	gvrOGXServers      = ogxv1beta1.SchemeGroupVersion.WithResource("ogxservers")
)

// syncChildren runs one pass of every child controller over key.
func (e *sfEnv) syncChildren(key string) {
	e.tb.Helper()
	for _, c := range e.m.childControllers {
		if _, err := c.Sync(e.ctx, key); err != nil {
			e.tb.Fatalf("%s: %v", c.Name(), err)
		}
	}
}

// serviceDone runs the service controller's pass over the server, which a
// new server's Deployment waits for (deployment.serviceFirst), and
// clears the recorded actions.
func (e *sfEnv) serviceDone() {
	e.tb.Helper()
	if _, err := e.m.service.Sync(e.ctx, sfKey); err != nil {
		e.tb.Fatalf("service: %v", err)
	}
	e.WaitCaught()
	e.ClearActions()
}

// makeAvailable reports the Deployment name as rolled out with one
// available replica, as kube-controller-manager would, and waits until the
// caches show it.
func (e *sfEnv) makeAvailable(name string) {
	e.tb.Helper()
	dep, err := e.kube.AppsV1().Deployments(sfNamespace).Get(e.ctx, name, metav1.GetOptions{})
	if err != nil {
		e.tb.Fatal(err)
	}
	dep.Status = appsv1.DeploymentStatus{ObservedGeneration: dep.Generation, Replicas: 1, UpdatedReplicas: 1, ReadyReplicas: 1, AvailableReplicas: 1}
	if _, err := e.kube.AppsV1().Deployments(sfNamespace).UpdateStatus(e.ctx, dep, metav1.UpdateOptions{}); err != nil {
		e.tb.Fatal(err)
	}
	e.WaitCaught()
}

// sfExpectApply checks one action is an SSA of resource/name by ogx-controller with force.
func sfExpectApply(t *testing.T, a clienttesting.Action, gvr schema.GroupVersionResource, name string) {
	t.Helper()
	p, ok := a.(clienttesting.PatchActionImpl)
	if !ok || a.GetVerb() != "patch" || a.GetResource() != gvr || p.GetName() != name || a.GetNamespace() != sfNamespace ||
		p.GetPatchType() != types.ApplyPatchType || a.GetSubresource() != "" {
		t.Fatalf("want server-side apply of %s %s/%s, got %s", gvr.Resource, sfNamespace, name, controllertest.ActionString(a))
	}
	if p.PatchOptions.FieldManager != render.FieldManager || p.PatchOptions.Force == nil || !*p.PatchOptions.Force {
		t.Errorf("apply of %s %s: field manager %q force %v, want %q force true", gvr.Resource, name,
			p.PatchOptions.FieldManager, p.PatchOptions.Force, render.FieldManager)
	}
}

// syncStatus runs one status pass over the server sfKey and returns the
// server as stored afterwards.
func (e *sfEnv) syncStatus() *ogxv1beta1.OGXServer {
	e.tb.Helper()
	if _, err := e.m.status.Sync(e.ctx, sfKey); err != nil {
		e.tb.Fatal(err)
	}
	got, err := e.ogx.OgxV1beta1().OGXServers(sfNamespace).Get(e.ctx, sfName, metav1.GetOptions{})
	if err != nil {
		e.tb.Fatal(err)
	}
	return got
}

// sfEnv is a started Manager on fake clientsets.
type sfEnv struct {
	*controllertest.Env
	tb   testing.TB
	ctx  context.Context
	kube *kubefake.Clientset
	ogx  *ogxfake.Clientset
	m    *Manager
}

// sfKey is the key of the default test server.
var sfKey = controllertest.Key

// newSFEnv builds and starts a Manager; kubeObjs and servers exist before the
// informers start (so a label-filtered informer lists only labelled ones).
func newSFEnv(tb testing.TB, opts base.Options, kubeObjs []runtime.Object, servers ...*ogxv1beta1.OGXServer) *sfEnv {
	tb.Helper()
	env := controllertest.NewEnv(tb, opts, kubeObjs, servers...)
	m, err := newManager(*env.Deps)
	if err != nil {
		tb.Fatalf("newManager: %v", err)
	}
	env.Deps = &m.Deps
	tb.Cleanup(func() {
		for _, c := range m.childControllers {
			c.Queue().ShutDown()
		}
		m.status.Queue().ShutDown()
	})
	if err := m.Start(env.Ctx); err != nil {
		tb.Fatalf("Start: %v", err)
	}
	env.Settle()
	return &sfEnv{Env: env, tb: tb, ctx: env.Ctx, kube: env.Kube, ogx: env.OGX, m: m}
}
