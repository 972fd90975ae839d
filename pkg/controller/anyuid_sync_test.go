package controller

// The --server-any-uid switch (base.Options.ServerAnyUID) on fake
// clientsets: the RoleBinding kind exists, is cached and written only with
// it, and without it the pods must run as non-root.

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/controllertest"
)

func TestSyncFakeAnyUIDSwitch(t *testing.T) {
	for _, tc := range []struct {
		name              string
		anyUID, openShift bool
		// wantWrites are the resources written by the first pass, in order.
		wantWrites     []string
		wantKind       bool
		wantRunAsNonRo *bool
	}{
		{name: "off, on OpenShift: no RoleBinding, non-root pods", openShift: true,
			wantWrites: []string{"serviceaccounts", "deployments"}, wantRunAsNonRo: new(true)},
		{name: "on, on OpenShift: the anyuid RoleBinding, the image's user", anyUID: true, openShift: true,
			wantWrites: []string{"serviceaccounts", "rolebindings", "deployments"}, wantKind: true},
		{name: "on, elsewhere: no RoleBinding, the image's user", anyUID: true,
			wantWrites: []string{"serviceaccounts", "deployments"}, wantKind: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := controllertest.Server(sfNamespace, sfName, sfUID)
			e := newSFEnv(t, base.Options{ServerAnyUID: tc.anyUID}, nil, s)
			e.m.Deps.Resolver.APIs.OpenShift.Store(tc.openShift)
			registered := false
			for _, k := range e.m.Deps.Owned {
				registered = registered || k.Kind == "RoleBinding"
			}
			if registered != tc.wantKind {
				t.Errorf("RoleBinding kind registered = %v, want %v", registered, tc.wantKind)
			}
			e.serviceDone()
			if _, err := e.m.deployment.Sync(e.ctx, sfKey); err != nil {
				t.Fatalf("sync: %v", err)
			}
			var got []string
			for _, w := range e.KubeWrites() {
				got = append(got, w.GetResource().Resource)
			}
			if d := cmp.Diff(tc.wantWrites, got); d != "" {
				t.Errorf("writes (-want +got):\n%s", d)
			}
			if tc.wantKind && tc.openShift {
				rb, err := e.kube.RbacV1().RoleBindings(sfNamespace).Get(e.ctx, sfName+"-rb", metav1.GetOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if rb.RoleRef.Name != "system:openshift:scc:anyuid" || len(rb.Subjects) != 1 || rb.Subjects[0].Name != sfName+"-sa" {
					t.Errorf("RoleBinding = %+v %+v", rb.RoleRef, rb.Subjects)
				}
			}
			dep, err := e.kube.AppsV1().Deployments(sfNamespace).Get(e.ctx, sfName, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.wantRunAsNonRo, dep.Spec.Template.Spec.SecurityContext.RunAsNonRoot); d != "" {
				t.Errorf("pod runAsNonRoot (-want +got):\n%s", d)
			}
		})
	}
}
