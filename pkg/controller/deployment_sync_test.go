package controller

// Sync tests of the deployment controller on fake clientsets (fakeenv_test.go).

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	"k8s.io/utils/ptr"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/render"
)

func TestSyncFakeDeploymentAppliesThenSkips(t *testing.T) {
	for _, tc := range []struct {
		name string
		muts []func(*ogxv1beta1.OGXServerSpec)
	}{
		{name: "defaults"},
		{name: "storage and replicas", muts: []func(*ogxv1beta1.OGXServerSpec){sfWithStorage("20Gi"), func(s *ogxv1beta1.OGXServerSpec) {
			s.Workload.Replicas = ptr.To[int32](3)
		}}},
		{name: "custom image and port", muts: []func(*ogxv1beta1.OGXServerSpec){func(s *ogxv1beta1.OGXServerSpec) {
			s.Distribution = ogxv1beta1.DistributionSpec{Image: ptr.To("quay.io/example/ogx:1.2.3")}
			s.Network = &ogxv1beta1.NetworkSpec{Port: 9000}
		}}},
		{name: "autoscaling", muts: []func(*ogxv1beta1.OGXServerSpec){func(s *ogxv1beta1.OGXServerSpec) {
			s.Workload = &ogxv1beta1.WorkloadSpec{Autoscaling: &ogxv1beta1.AutoscalingSpec{MaxReplicas: 4}}
		}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := sfServer(sfNamespace, sfName, sfUID, tc.muts...)
			e := newSFEnv(t, Options{}, nil, s)
			ctx := e.ctx

			if _, err := e.m.deployment.syncKey(ctx, sfKey); err != nil {
				t.Fatalf("first sync: %v", err)
			}
			w := e.kubeWrites()
			if len(w) != 2 {
				t.Fatalf("first sync: want 2 writes (ServiceAccount, Deployment), got%s", sfDescribe(w))
			}
			sfExpectApply(t, w[0], gvrServiceAccounts, sfName+"-sa")
			sfExpectApply(t, w[1], gvrDeployments, sfName)
			if o, _ := e.outcome(s, "deployment"); o != (Outcome{Generation: 1, Class: OutcomeOK}) {
				t.Errorf("outcome after first sync = %+v, want ok for generation 1", o)
			}

			// What was applied is what render produces, and ogx-controller owns it.
			in := e.renderInputs(s)
			wantDep, err := render.Deployment(s, &in)
			if err != nil {
				t.Fatal(err)
			}
			dep, err := e.kube.AppsV1().Deployments(sfNamespace).Get(ctx, sfName, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			gotDep, err := appsv1ac.ExtractDeployment(dep, render.FieldManager)
			if err != nil {
				t.Fatal(err)
			}
			if !equality.Semantic.DeepEqual(gotDep, wantDep) {
				t.Errorf("stored Deployment differs from render (-want +got):\n%s", cmp.Diff(wantDep, gotDep))
			}
			sa, err := e.kube.CoreV1().ServiceAccounts(sfNamespace).Get(ctx, sfName+"-sa", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if ref := metav1.GetControllerOf(sa); ref == nil || ref.UID != sfUID || ref.Kind != "OGXServer" {
				t.Errorf("ServiceAccount controller ref = %+v, want this OGXServer", ref)
			}

			e.waitCaught()
			e.clearActions()
			for i := range 2 {
				if _, err := e.m.deployment.syncKey(ctx, sfKey); err != nil {
					t.Fatalf("steady sync %d: %v", i, err)
				}
				if w := e.kubeWrites(); len(w) != 0 {
					t.Fatalf("steady sync %d sent writes:%s", i, sfDescribe(w))
				}
			}
		})
	}
}

func TestSyncFakeDeploymentDriftIsReapplied(t *testing.T) {
	s := sfServer(sfNamespace, sfName, sfUID)
	e := newSFEnv(t, Options{}, nil, s)
	if _, err := e.m.deployment.syncKey(e.ctx, sfKey); err != nil {
		t.Fatal(err)
	}
	e.waitCaught()
	e.clearActions()

	// A hand edit of an owned field moves ownership; the next pass re-applies.
	dep, err := e.kube.AppsV1().Deployments(sfNamespace).Get(e.ctx, sfName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dep.Spec.Replicas = ptr.To[int32](5)
	if _, err := e.kube.AppsV1().Deployments(sfNamespace).Update(e.ctx, dep, metav1.UpdateOptions{FieldManager: "kubectl-edit"}); err != nil {
		t.Fatal(err)
	}
	e.waitCaught()
	e.clearActions()
	if _, err := e.m.deployment.syncKey(e.ctx, sfKey); err != nil {
		t.Fatal(err)
	}
	w := e.kubeWrites()
	if len(w) != 1 {
		t.Fatalf("after drift: want one Deployment apply, got%s", sfDescribe(w))
	}
	sfExpectApply(t, w[0], gvrDeployments, sfName)
	dep, err = e.kube.AppsV1().Deployments(sfNamespace).Get(e.ctx, sfName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := ptr.Deref(dep.Spec.Replicas, -1); got != 1 {
		t.Errorf("replicas after re-apply = %d, want 1", got)
	}
}
