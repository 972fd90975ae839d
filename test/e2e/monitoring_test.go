package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/utils/ptr"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
	"github.com/ogx-k8s/ogx-controller/test/framework"
)

var (
	monServiceMonitors = schema.GroupVersionResource{Group: "monitoring.coreos.com", Version: "v1", Resource: "servicemonitors"}
	monPrometheusRules = schema.GroupVersionResource{Group: "monitoring.coreos.com", Version: "v1", Resource: "prometheusrules"}
	monCRDNames        = []string{"servicemonitors.monitoring.coreos.com", "prometheusrules.monitoring.coreos.com"}
)

// monDiscoveryInterval bounds how long this test gives the controller to
// notice a change of the monitoring API. Its --discovery-interval is an
// hour, so only the watch on the CRDs can make it in time.
const monDiscoveryInterval = 2 * time.Second

// TestMonitoring proves that without the monitoring CRDs nothing is written
// and the OGXServer is Ready; once they are installed (after start) the
// ServiceMonitor and PrometheusRule appear within a few discovery intervals;
// each ServiceMonitor selects only its own Service; monitoring.enabled=false
// deletes both; a converged controller writes nothing; removing the CRDs again
// reports no error.
//
// The CRDs are cluster-scoped and shared by the package, so they are
// installed only here and deleted when the test ends (other tests then see
// the API "not served" again).
func TestMonitoring(t *testing.T) {
	ns := cp.CreateNamespace(t, "monitoring")
	kube, ogx := clients(t)
	dyn := dynamic.NewForConfigOrDie(quietConfig())
	ctx := t.Context()
	if served(t) {
		t.Fatal("monitoring.coreos.com/v1 is served before the test installed it (left over from another test?)")
	}
	ctrl := startController(t, ns, func(o *base.Options) { o.DiscoveryInterval = time.Hour })

	// 1. Not served: no write to the monitoring group, Ready, no error.
	if _, err := ogx.OgxV1beta1().OGXServers(ns).Create(ctx, newServer(ns, "mon-a"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitReady(t, ogx, ns, "mon-a", 3*time.Minute)
	observe(2 * monDiscoveryInterval)
	a := waitReady(t, ogx, ns, "mon-a", time.Minute)
	assertNoErrorConditions(t, a)
	if w := monitoringWrites(ctrl); len(w) > 0 {
		t.Fatalf("writes to monitoring.coreos.com without the API: %v", w)
	}

	// 2. The API appears: both objects within a few discovery intervals.
	t.Cleanup(func() { deleteMonitoringCRDs(t) })
	installed := time.Now()
	if err := cp.InstallCRDs(ctx, filepath.Join(root, "test", "e2e", "testdata", "monitoring-crds.yaml")); err != nil {
		t.Fatalf("installing the monitoring CRDs: %v", err)
	}
	sm := waitMonitoringObject(t, dyn, monServiceMonitors, ns, "mon-a-service-monitor")
	pr := waitMonitoringObject(t, dyn, monPrometheusRules, ns, "mon-a-prometheus-rules")
	t.Logf("ServiceMonitor and PrometheusRule present %s after the CRDs were installed (discovery interval %s)",
		time.Since(installed).Round(100*time.Millisecond), monDiscoveryInterval)
	a = waitReady(t, ogx, ns, "mon-a", time.Minute)
	assertNoErrorConditions(t, a)
	in := &render.Inputs{MonitoringServed: true}
	assertRendered(t, sm, render.ServiceMonitor(a, in, false))
	assertRendered(t, pr, render.PrometheusRule(a, in))

	// 3. Two OGXServers in one namespace: each ServiceMonitor selects
	// exactly its own Service.
	if _, err := ogx.OgxV1beta1().OGXServers(ns).Create(ctx, newServer(ns, "mon-b"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitReady(t, ogx, ns, "mon-b", 3*time.Minute)
	waitMonitoringObject(t, dyn, monServiceMonitors, ns, "mon-b-service-monitor")
	waitMonitoringObject(t, dyn, monPrometheusRules, ns, "mon-b-prometheus-rules")
	svcs, err := kube.CoreV1().Services(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"mon-a", "mon-b"} {
		obj, err := dyn.Resource(monServiceMonitors).Namespace(ns).Get(ctx, n+"-service-monitor", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ml, _, err := unstructured.NestedStringMap(obj.Object, "spec", "selector", "matchLabels")
		if err != nil || len(ml) == 0 {
			t.Fatalf("%s has no matchLabels (%v)", obj.GetName(), err)
		}
		sel := labels.SelectorFromSet(ml)
		var matched []string
		for _, svc := range svcs.Items {
			if sel.Matches(labels.Set(svc.Labels)) {
				matched = append(matched, svc.Name)
			}
		}
		if d := cmp.Diff([]string{n + "-service"}, matched); d != "" {
			t.Errorf("ServiceMonitor %s selects (-want +got):\n%s", obj.GetName(), d)
		}
	}

	// 4. Converged: no writes over several discovery intervals.
	settleWrites(t, ctrl)
	before, _ := ctrl.writes.snapshot()
	observe(5 * monDiscoveryInterval)
	if after, log := ctrl.writes.snapshot(); after != before {
		t.Errorf("idle controller sent %d writes: %v", after-before, log[before:])
	}

	// 5. monitoring.enabled=false deletes both objects of that OGXServer
	// only.
	updateServer(t, ogx, ns, "mon-a", func(s *ogxv1beta1.OGXServer) {
		s.Spec.Monitoring = &ogxv1beta1.MonitoringSpec{Enabled: ptr.To(false)}
	})
	for _, o := range []struct {
		gvr  schema.GroupVersionResource
		name string
	}{{monServiceMonitors, "mon-a-service-monitor"}, {monPrometheusRules, "mon-a-prometheus-rules"}} {
		waitGone(t, 30*time.Second, o.name, func(ctx context.Context) error {
			_, err := dyn.Resource(o.gvr).Namespace(ns).Get(ctx, o.name, metav1.GetOptions{})
			return err
		})
	}
	assertNoErrorConditions(t, waitReady(t, ogx, ns, "mon-a", time.Minute))
	for _, o := range []struct {
		gvr  schema.GroupVersionResource
		name string
	}{{monServiceMonitors, "mon-b-service-monitor"}, {monPrometheusRules, "mon-b-prometheus-rules"}} {
		if _, err := dyn.Resource(o.gvr).Namespace(ns).Get(ctx, o.name, metav1.GetOptions{}); err != nil {
			t.Errorf("%s of the other OGXServer: %v", o.name, err)
		}
	}
	settleWrites(t, ctrl)
	before, _ = ctrl.writes.snapshot()
	observe(3 * monDiscoveryInterval)
	if after, log := ctrl.writes.snapshot(); after != before {
		t.Errorf("idle controller sent %d writes after monitoring was disabled: %v", after-before, log[before:])
	}

	// 6. The CRDs go away while the controller runs (which deletes mon-b's
	// objects and refuses their re-creation while the CRDs terminate): no
	// error is reported, nothing is written once discovery has noticed.
	deleteMonitoringCRDs(t)
	observe(2 * monDiscoveryInterval)
	for _, n := range []string{"mon-a", "mon-b"} {
		assertNoErrorConditions(t, waitReady(t, ogx, ns, n, time.Minute))
	}
	settleWrites(t, ctrl)
	before, _ = ctrl.writes.snapshot()
	observe(3 * monDiscoveryInterval)
	if after, log := ctrl.writes.snapshot(); after != before {
		t.Errorf("idle controller sent %d writes after the CRDs were removed: %v", after-before, log[before:])
	}
}

// served reports whether discovery lists monitoring.coreos.com/v1.
func served(t *testing.T) bool {
	t.Helper()
	_, err := cp.Client().Discovery().ServerResourcesForGroupVersion("monitoring.coreos.com/v1")
	return err == nil
}

// monitoringWrites lists the controller's writes to the monitoring group.
func monitoringWrites(r *running) []string {
	_, log := r.writes.snapshot()
	var out []string
	for _, l := range log {
		if strings.Contains(l, "/apis/monitoring.coreos.com/") {
			out = append(out, l)
		}
	}
	return out
}

// assertNoErrorConditions fails when the OGXServer reports Stalled or
// Reconciling (an error or pending work).
func assertNoErrorConditions(t *testing.T, s *ogxv1beta1.OGXServer) {
	t.Helper()
	for _, typ := range []string{"Stalled", "Reconciling"} {
		if c := apimeta.FindStatusCondition(s.Status.Conditions, typ); c != nil && c.Status == metav1.ConditionTrue {
			t.Errorf("OGXServer %s: %s=True (%s: %s)", s.Name, typ, c.Reason, c.Message)
		}
	}
}

// waitMonitoringObject waits for a monitoring object to exist.
func waitMonitoringObject(t *testing.T, dyn dynamic.Interface, gvr schema.GroupVersionResource, ns, name string) *unstructured.Unstructured {
	t.Helper()
	var got *unstructured.Unstructured
	framework.Poll(t, 15*monDiscoveryInterval, fmt.Sprintf("%s %s/%s", gvr.Resource, ns, name), func(ctx context.Context) (bool, error) {
		obj, err := dyn.Resource(gvr).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		got = obj
		return true, nil
	})
	return got
}

// assertRendered compares the stored object's labels, owner references and
// spec with the rendered one.
func assertRendered(t *testing.T, got, want *unstructured.Unstructured) {
	t.Helper()
	if d := cmp.Diff(want.GetLabels(), got.GetLabels()); d != "" {
		t.Errorf("%s labels (-want +got):\n%s", want.GetName(), d)
	}
	if d := cmp.Diff(want.GetOwnerReferences(), got.GetOwnerReferences()); d != "" {
		t.Errorf("%s ownerReferences (-want +got):\n%s", want.GetName(), d)
	}
	if d := cmp.Diff(want.Object["spec"], got.Object["spec"]); d != "" {
		t.Errorf("%s spec (-want +got):\n%s", want.GetName(), d)
	}
}

// deleteMonitoringCRDs removes the stand-in CRDs and waits until discovery
// no longer serves the group version, so later tests start without it.
func deleteMonitoringCRDs(t *testing.T) {
	t.Helper()
	client, err := apiextensionsclient.NewForConfig(quietConfig())
	if err != nil {
		t.Errorf("apiextensions client: %v", err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	crds := client.ApiextensionsV1().CustomResourceDefinitions()
	for _, n := range monCRDNames {
		if err := crds.Delete(ctx, n, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("deleting CRD %s: %v", n, err)
		}
	}
	err = wait.PollUntilContextCancel(ctx, 250*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		for _, n := range monCRDNames {
			if _, err := crds.Get(ctx, n, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				return false, nil
			}
		}
		return !served(t), nil
	})
	if err != nil {
		t.Errorf("the monitoring CRDs were not removed: %v", err)
	}
}
