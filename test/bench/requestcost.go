package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/generated/clientset/versioned"
	"github.com/ogx-k8s/ogx-controller/test/framework"
)

// The request-cost mode (-request-costs M) answers which form of a write
// costs the API server least: for each form it sends M requests with
// rawWorkers workers and reads the API server's and etcd's CPU time around
// them (docs/performance.md, What each request costs the API server). The
// Deployments are created paused with no replicas, so the controller
// manager answers each create with three status writes whatever the form
// (inside the window; an apply that changes nothing gets no answer, nor do
// the other kinds' forms); the report's requests column shows them.

// costFieldManager is the field manager of the forms' applies and patches.
const costFieldManager = "ogx-bench-cost"

// costForm is one form of write: prepare (outside the measured window)
// creates what it writes to, send is its i-th request.
type costForm struct {
	name, namespace string
	prepare         func(ctx context.Context, i int) error
	send            func(ctx context.Context, i int) error
}

// costResult is what one form cost.
type costResult struct {
	form     string
	m        int
	wall     time.Duration
	api, db  time.Duration
	requests requestStats
}

// runRequestCosts measures every form with m requests and prints the table.
func runRequestCosts(ctx context.Context, cp *framework.ControlPlane, c *benchClients, o *options) error {
	if err := cp.InstallCRDs(ctx, o.crd); err != nil {
		return fmt.Errorf("installing the CRD: %w", err)
	}
	forms, err := costForms(c)
	if err != nil {
		return err
	}
	pids := cp.PIDs()
	var results []costResult
	for _, f := range forms {
		if err := createNamespace(ctx, c.kube, f.namespace); err != nil {
			return err
		}
		if f.prepare != nil {
			if err := parallel(ctx, o.requestCosts, rawWorkers, f.prepare); err != nil {
				return fmt.Errorf("%s: preparing: %w", f.name, err)
			}
		}
		// Let the controller manager answer what prepare created.
		if err := sleep(ctx, 5*time.Second); err != nil {
			return err
		}
		w := newCPUWindow(map[string]int{framework.APIServer: pids[framework.APIServer], framework.Etcd: pids[framework.Etcd]})
		w.scrape = func() (requestStats, error) { return scrapeRequests(ctx, c.kube) }
		w.start()
		began := time.Now()
		if err := parallel(ctx, o.requestCosts, rawWorkers, f.send); err != nil {
			return fmt.Errorf("%s: %w", f.name, err)
		}
		wall := time.Since(began)
		// The controller manager's answers to the writes land in the window.
		if err := sleep(ctx, 5*time.Second); err != nil {
			return err
		}
		w.stop()
		if w.err != nil || w.reqErr != nil {
			return fmt.Errorf("%s: reading the window: %w", f.name, errors.Join(w.err, w.reqErr))
		}
		api, okAPI := w.process(framework.APIServer)
		db, okDB := w.process(framework.Etcd)
		if !okAPI || !okDB {
			return fmt.Errorf("%s: the API server's or etcd's CPU time was not read", f.name)
		}
		results = append(results, costResult{form: f.name, m: o.requestCosts, wall: wall, api: api, db: db, requests: w.requests})
		logf("request costs: %s: API server %.2f ms, etcd %.2f ms per request", f.name, msPerServer(api, o.requestCosts), msPerServer(db, o.requestCosts))
	}
	return writeReport(costReport(results, o), o.out)
}

// costReport renders the results as one markdown table.
func costReport(results []costResult, o *options) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n### ogx-controller request costs, %d requests per form (%s UTC)\n\n", o.requestCosts, time.Now().UTC().Format("2006-01-02 15:04"))
	fmt.Fprintf(&b, "- machine: %s\n- commit: %s\n- command: `go run ./test/bench %s`\n\n", machineFacts(), gitCommit(), strings.Join(o.args, " "))
	b.WriteString("| form | API server CPU ms per request | etcd CPU ms per request | requests in the window, per request sent (top 3) | wall s |\n|---|---|---|---|---|\n")
	for _, r := range results {
		var kinds []string
		for _, k := range attribute(r.requests, r.api) {
			if len(kinds) < 3 && !k.kind.longRunning() && k.count > 0 {
				kinds = append(kinds, fmt.Sprintf("%s %.2f", k.kind, k.count/float64(r.m)))
			}
		}
		fmt.Fprintf(&b, "| %s | %.2f | %.2f | %s | %.1f |\n", r.form, msPerServer(r.api, r.m), msPerServer(r.db, r.m),
			strings.Join(kinds, ", "), r.wall.Seconds())
	}
	return b.String()
}

// costClients send the forms' requests: kube and ogx as JSON, proto as
// ogx-controller's built-in clients do.
type costClients struct {
	kube, proto kubernetes.Interface
	ogx         versioned.Interface
}

func costApplyOptions() metav1.PatchOptions {
	return metav1.PatchOptions{FieldManager: costFieldManager, Force: ptr.To(true)}
}

func costCreateOptions() metav1.CreateOptions {
	return metav1.CreateOptions{FieldManager: costFieldManager}
}

func costName(i int) string { return fmt.Sprintf("c%05d", i) }

// costForms are the forms measured: a Deployment's first write as a create
// (protobuf, as ogx-controller's built-in clients send, and JSON) and as
// the create-only apply ogx-controller sends, an apply that changes
// nothing, a ServiceAccount's create and apply, an OGXServer's status as
// an apply and as a merge patch, and an Event.
func costForms(c *benchClients) ([]costForm, error) {
	proto := rest.CopyConfig(c.cfg)
	proto.ContentType = runtime.ContentTypeProtobuf
	proto.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
	protoKube, err := kubernetes.NewForConfig(proto)
	if err != nil {
		return nil, fmt.Errorf("protobuf client: %w", err)
	}
	cc := costClients{kube: c.kube, proto: protoKube, ogx: c.ogx}
	return slices.Concat(deploymentForms(cc), serviceAccountForms(cc), statusForms(cc), []costForm{
		{name: "create Event (events.k8s.io/v1, protobuf)", namespace: "cost-events", send: func(ctx context.Context, i int) error {
			_, err := cc.proto.EventsV1().Events("cost-events").Create(ctx, event("cost-events", costName(i)), metav1.CreateOptions{})
			return err
		}},
	}), nil
}

// costDeployment is the raw phase's Deployment, paused with no replicas.
func costDeployment(ns string, i int) *appsv1.Deployment {
	d := rawDeployment(costName(i))
	d.Namespace = ns
	d.Spec.Replicas = ptr.To[int32](0)
	d.Spec.Paused = true
	return d
}

func deploymentForms(cc costClients) []costForm {
	create := func(client kubernetes.Interface, ns string) func(ctx context.Context, i int) error {
		return func(ctx context.Context, i int) error {
			_, err := client.AppsV1().Deployments(ns).Create(ctx, costDeployment(ns, i), costCreateOptions())
			return err
		}
	}
	// apply is ogx-controller's create-only apply with creating, whose
	// resourceVersion "1" no stored object has; a plain apply without.
	apply := func(ns string, creating bool) func(ctx context.Context, i int) error {
		return func(ctx context.Context, i int) error {
			d := costDeployment(ns, i)
			if creating {
				d.ResourceVersion = "1"
			}
			body, err := applyBody(d, "apps/v1", "Deployment")
			if err != nil {
				return err
			}
			_, err = cc.kube.AppsV1().Deployments(ns).Patch(ctx, costName(i), types.ApplyPatchType, body, costApplyOptions())
			return err
		}
	}
	return []costForm{
		{name: "create Deployment (protobuf)", namespace: "cost-create-proto", send: create(cc.proto, "cost-create-proto")},
		{name: "create Deployment (JSON)", namespace: "cost-create-json", send: create(cc.kube, "cost-create-json")},
		{name: "apply Deployment, creating it", namespace: "cost-apply", send: apply("cost-apply", true)},
		{name: "apply Deployment, changing nothing", namespace: "cost-apply-again",
			prepare: apply("cost-apply-again", true), send: apply("cost-apply-again", false)},
	}
}

func serviceAccountForms(cc costClients) []costForm {
	sa := func(ns string, i int) *corev1.ServiceAccount {
		s := rawServiceAccount(costName(i))
		s.Namespace = ns
		return s
	}
	return []costForm{
		{name: "create ServiceAccount (protobuf)", namespace: "cost-sa-create", send: func(ctx context.Context, i int) error {
			_, err := cc.proto.CoreV1().ServiceAccounts("cost-sa-create").Create(ctx, sa("cost-sa-create", i), costCreateOptions())
			return err
		}},
		{name: "apply ServiceAccount, creating it", namespace: "cost-sa-apply", send: func(ctx context.Context, i int) error {
			obj := sa("cost-sa-apply", i)
			obj.ResourceVersion = "1" // create-only, as ogx-controller's first write
			body, err := applyBody(obj, "v1", "ServiceAccount")
			if err != nil {
				return err
			}
			_, err = cc.kube.CoreV1().ServiceAccounts("cost-sa-apply").Patch(ctx, obj.Name, types.ApplyPatchType, body, costApplyOptions())
			return err
		}},
	}
}

func statusForms(cc costClients) []costForm {
	create := func(ns string) func(ctx context.Context, i int) error {
		return func(ctx context.Context, i int) error {
			s := &ogxv1beta1.OGXServer{ObjectMeta: metav1.ObjectMeta{Name: costName(i), Namespace: ns}, Spec: serverSpec(nil)}
			_, err := cc.ogx.OgxV1beta1().OGXServers(ns).Create(ctx, s, metav1.CreateOptions{})
			return err
		}
	}
	return []costForm{
		{name: "apply OGXServer status", namespace: "cost-status-apply", prepare: create("cost-status-apply"),
			send: func(ctx context.Context, i int) error {
				body, err := json.Marshal(map[string]any{"apiVersion": "ogx.io/v1beta1", "kind": "OGXServer",
					"metadata": map[string]any{"name": costName(i), "namespace": "cost-status-apply"}, "status": readyStatus(costName(i))})
				if err != nil {
					return err
				}
				_, err = cc.ogx.OgxV1beta1().OGXServers("cost-status-apply").Patch(ctx, costName(i), types.ApplyPatchType, body, costApplyOptions(), "status")
				return err
			}},
		{name: "merge-patch OGXServer status", namespace: "cost-status-merge", prepare: create("cost-status-merge"),
			send: func(ctx context.Context, i int) error {
				body, err := json.Marshal(map[string]any{"status": readyStatus(costName(i))})
				if err != nil {
					return err
				}
				_, err = cc.ogx.OgxV1beta1().OGXServers("cost-status-merge").Patch(ctx, costName(i), types.MergePatchType, body,
					metav1.PatchOptions{FieldManager: costFieldManager}, "status")
				return err
			}},
	}
}

// applyBody is obj as the body of a server-side apply: with its type,
// without status or null values, as an apply configuration encodes.
func applyBody(obj runtime.Object, apiVersion, kind string) ([]byte, error) {
	b, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	m["apiVersion"], m["kind"] = apiVersion, kind
	delete(m, "status")
	dropNulls(m)
	return json.Marshal(m)
}

// dropNulls removes the null values (creationTimestamp of a typed object's
// metadata) from a decoded JSON object, as apply configurations leave them
// out.
func dropNulls(m map[string]any) {
	for k, v := range m {
		switch v := v.(type) {
		case nil:
			delete(m, k)
		case map[string]any:
			dropNulls(v)
		case []any:
			for _, e := range v {
				if em, ok := e.(map[string]any); ok {
					dropNulls(em)
				}
			}
		}
	}
}

// readyStatus is shaped like the status ogx-controller writes for a Ready
// starter server.
func readyStatus(name string) ogxv1beta1.OGXServerStatus {
	now := metav1.NewTime(time.Now().Truncate(time.Second))
	cond := func(t, reason string) metav1.Condition {
		return metav1.Condition{Type: t, Status: metav1.ConditionTrue, Reason: reason, Message: t + " is " + reason,
			ObservedGeneration: 1, LastTransitionTime: now}
	}
	return ogxv1beta1.OGXServerStatus{
		ObservedGeneration: 1, Phase: ogxv1beta1.PhaseReady, AvailableReplicas: 1, Replicas: 1,
		Version:    ogxv1beta1.VersionInfo{OperatorVersion: "v1.0.0", LastUpdated: now},
		Selector:   "app=ogx,app.kubernetes.io/instance=" + name,
		ServiceURL: "http://" + name + "-service.cost.svc.cluster.local:8321",
		Conditions: []metav1.Condition{cond("Ready", "AllComponentsReady"), cond("DeploymentReady", "MinimumReplicasAvailable"),
			cond("ServiceReady", "ServiceCreated"), cond("ConfigReady", "ConfigResolved"), cond("StorageReady", "NotRequested"),
			cond("NetworkPolicyReady", "Applied")},
	}
}

// event is an Event like the ones ogx-controller sends about a server.
func event(ns, name string) *eventsv1.Event {
	return &eventsv1.Event{
		ObjectMeta:          metav1.ObjectMeta{Name: name + ".cost", Namespace: ns},
		EventTime:           metav1.NewMicroTime(time.Now()),
		ReportingController: "ogx.io/ogx-controller", ReportingInstance: "ogx-controller-" + fmt.Sprint(os.Getpid()),
		Action: "Converge", Reason: "Created", Type: corev1.EventTypeNormal,
		Regarding: corev1.ObjectReference{APIVersion: "ogx.io/v1beta1", Kind: "OGXServer", Namespace: ns, Name: name},
		Note:      "Created Deployment " + name + ", Service " + name + "-service and ServiceAccount " + name + "-sa",
	}
}
