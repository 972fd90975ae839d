package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kubefake "k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	ogxfake "github.com/ogx-k8s/ogx-controller/pkg/generated/clientset/versioned/fake"
)

// statusNow is the time every golden status is printed at.
var statusNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func ago(d time.Duration) metav1.Time { return metav1.NewTime(statusNow.Add(-d)) }

// readyServer is a Ready server with storage and external access, as the
// controller leaves it.
func readyServer() *ogxv1beta1.OGXServer {
	starter := "starter"
	return &ogxv1beta1.OGXServer{
		ObjectMeta: metav1.ObjectMeta{Name: "llama", Namespace: "team-a", UID: "uid-1", Generation: 3, CreationTimestamp: ago(2 * time.Hour)},
		Spec: ogxv1beta1.OGXServerSpec{
			Distribution: ogxv1beta1.DistributionSpec{Name: &starter},
			Workload:     &ogxv1beta1.WorkloadSpec{Storage: &ogxv1beta1.PVCStorageSpec{}},
			Network:      &ogxv1beta1.NetworkSpec{ExternalAccess: &ogxv1beta1.ExternalAccessSpec{Enabled: true}},
		},
		Status: ogxv1beta1.OGXServerStatus{
			ObservedGeneration: 3,
			Phase:              ogxv1beta1.PhaseReady,
			Conditions: []metav1.Condition{
				{Type: "DeploymentReady", Status: metav1.ConditionTrue, Reason: "DeploymentReady", Message: "Deployment is ready", ObservedGeneration: 3, LastTransitionTime: ago(90 * time.Minute)},
				// Written for the previous generation, without a message.
				{Type: "ServiceReady", Status: metav1.ConditionTrue, Reason: "ServiceReady", ObservedGeneration: 2, LastTransitionTime: ago(2 * time.Hour)},
				{Type: "HealthCheck", Status: metav1.ConditionUnknown, Reason: "HealthCheckDisabled", Message: "The server probe is disabled", ObservedGeneration: 3, LastTransitionTime: ago(2 * time.Hour)},
				{Type: "Ready", Status: metav1.ConditionTrue, Reason: "Available", Message: "1/1 replicas\navailable", ObservedGeneration: 3, LastTransitionTime: ago(90 * time.Minute)},
			},
			ServiceURL:           "http://llama-service.team-a.svc.cluster.local:8321",
			Version:              ogxv1beta1.VersionInfo{OperatorVersion: "v0.1.0", ServerVersion: "0.3.1"},
			DistributionConfig:   ogxv1beta1.DistributionConfig{ActiveDistribution: "starter"},
			ResolvedDistribution: &ogxv1beta1.ResolvedDistribution{Image: "docker.io/llamastack/distribution-starter@sha256:0123", ConfigSource: "builtin"},
		},
	}
}

// statusObjects are the children and Events of readyServer: the Service
// and ServiceAccount exist, the PVC the Deployment mounts is an adopted
// one, the Ingress is missing.
func statusObjects() []runtime.Object {
	ns := "team-a"
	meta := func(name string) metav1.ObjectMeta { return metav1.ObjectMeta{Name: name, Namespace: ns} }
	regarding := corev1.ObjectReference{Kind: "OGXServer", Namespace: ns, Name: "llama", UID: "uid-1"}
	return []runtime.Object{
		&appsv1.Deployment{
			ObjectMeta: meta("llama"),
			Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](2), Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				Volumes: []corev1.Volume{{Name: "ogx-storage", VolumeSource: corev1.VolumeSource{
					PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "legacy-pvc"}}}},
			}}},
			Status: appsv1.DeploymentStatus{ReadyReplicas: 1},
		},
		&corev1.Service{ObjectMeta: meta("llama-service")},
		&corev1.ServiceAccount{ObjectMeta: meta("llama-sa")},
		&corev1.PersistentVolumeClaim{ObjectMeta: meta("legacy-pvc")},
		&networkingv1.NetworkPolicy{ObjectMeta: meta("llama-network-policy")},
		// As the controller records them (events.k8s.io), read through core/v1.
		&corev1.Event{ObjectMeta: meta("llama.2"), InvolvedObject: regarding, Type: "Normal", Reason: "PhaseChanged",
			Message: "Ready; Created Deployment llama", ReportingController: "ogx.io/ogx-controller", EventTime: metav1.NewMicroTime(statusNow.Add(-90 * time.Minute))},
		&corev1.Event{ObjectMeta: meta("llama.1"), InvolvedObject: regarding, Type: "Warning", Reason: "BaseConfigNotResolved",
			Message: "registry unreachable", ReportingController: "ogx.io/ogx-controller", EventTime: metav1.NewMicroTime(statusNow.Add(-2 * time.Hour)),
			Series: &corev1.EventSeries{Count: 3, LastObservedTime: metav1.NewMicroTime(statusNow.Add(-100 * time.Minute))}},
		// A core/v1 Event with counts, from another component.
		&corev1.Event{ObjectMeta: meta("llama.3"), InvolvedObject: regarding, Type: "Normal", Reason: "Adopted",
			Source: corev1.EventSource{Component: "someone"}, Count: 2, FirstTimestamp: ago(time.Hour), LastTimestamp: ago(5 * time.Minute)},
		// Not this server's: another server, and an earlier one of the same name.
		&corev1.Event{ObjectMeta: meta("other.1"), InvolvedObject: corev1.ObjectReference{Kind: "OGXServer", Namespace: ns, Name: "other", UID: "uid-2"},
			Type: "Normal", Reason: "PhaseChanged", EventTime: metav1.NewMicroTime(statusNow.Add(-time.Minute))},
		&corev1.Event{ObjectMeta: meta("llama.0"), InvolvedObject: corev1.ObjectReference{Kind: "OGXServer", Namespace: ns, Name: "llama", UID: "uid-0"},
			Type: "Warning", Reason: "Old", EventTime: metav1.NewMicroTime(statusNow.Add(-time.Minute))},
	}
}

// fakeClients returns a newClientsFunc on fake clientsets holding objs,
// with the namespace a kubeconfig context would give.
func fakeClients(ns string, server *ogxv1beta1.OGXServer, objs ...runtime.Object) (newClientsFunc, *kubefake.Clientset) {
	kube := kubefake.NewClientset(objs...)
	var ogxObjs []runtime.Object
	if server != nil {
		ogxObjs = append(ogxObjs, server)
	}
	ogx := ogxfake.NewClientset(ogxObjs...)
	return func(f clusterFlags) (*statusClients, error) {
		return &statusClients{kube: kube, ogx: ogx, namespace: ns}, nil
	}, kube
}

// runStatusTest runs the status command on fakes and returns its outputs.
func runStatusTest(t *testing.T, newClients newClientsFunc, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = runStatus(t.Context(), args, &out, &errb, newClients, func() time.Time { return statusNow })
	return out.String(), errb.String(), code
}

// checkGolden compares got with testdata/status/NAME (-update rewrites it).
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "status", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s differs (-want +got):\n%s", path, diff)
	}
}

func TestStatusGolden(t *testing.T) {
	for _, tc := range []struct {
		name   string
		server *ogxv1beta1.OGXServer
		objs   []runtime.Object
	}{
		{name: "ready.txt", server: readyServer(), objs: statusObjects()},
		// A server the controller has not seen yet: no status, no
		// children, no Events; storage asks for <name>-pvc.
		{name: "new.txt", server: func() *ogxv1beta1.OGXServer {
			s := readyServer()
			s.Status = ogxv1beta1.OGXServerStatus{}
			s.Spec.Network = nil
			return s
		}()},
		// Generated config: its ConfigMap is a child; multi-pod adds the
		// PDB, autoscaling the HPA.
		{name: "generated.txt", server: func() *ogxv1beta1.OGXServer {
			s := readyServer()
			s.Spec.Workload = &ogxv1beta1.WorkloadSpec{Replicas: ptr.To[int32](2),
				Autoscaling: &ogxv1beta1.AutoscalingSpec{MaxReplicas: 4}}
			s.Spec.Network = &ogxv1beta1.NetworkSpec{Policy: &ogxv1beta1.NetworkPolicySpec{Enabled: ptr.To(false)}}
			s.Status.ConfigGeneration = &ogxv1beta1.ConfigGenerationStatus{ConfigMapName: "llama-config-0123456789abcdef"}
			s.Status.ExternalURL = ptr.To("")
			return s
		}(), objs: []runtime.Object{&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "llama-config-0123456789abcdef", Namespace: "team-a"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			newClients, _ := fakeClients("team-a", tc.server, tc.objs...)
			out, errOut, code := runStatusTest(t, newClients, "llama")
			if code != exitOK || errOut != "" {
				t.Fatalf("exit %d, stderr %q", code, errOut)
			}
			checkGolden(t, tc.name, out)
			again, _, _ := runStatusTest(t, newClients, "llama")
			if again != out {
				t.Errorf("a second run printed differently:\n%s", cmp.Diff(out, again))
			}
		})
	}
}

// TestStatusNamespace: -n and --namespace, before or after the name, win
// over the context's namespace, which is used without them.
func TestStatusNamespace(t *testing.T) {
	for _, args := range [][]string{{"llama", "-n", "team-a"}, {"-n", "team-a", "llama"}, {"--namespace=team-a", "llama"}, {"llama"}} {
		var got clusterFlags
		newClients := func(f clusterFlags) (*statusClients, error) {
			got = f
			ns := f.namespace
			if ns == "" {
				ns = "team-a" // the context's
			}
			c, _ := fakeClients(ns, readyServer())
			return c(f)
		}
		out, errOut, code := runStatusTest(t, newClients, args...)
		if code != exitOK || !regexp.MustCompile(`(?m)^Namespace: +team-a$`).MatchString(out) {
			t.Errorf("%v: exit %d, stderr %q, output:\n%s", args, code, errOut, out)
		}
		if len(args) > 1 && got.namespace != "team-a" {
			t.Errorf("%v: namespace flag %q", args, got.namespace)
		}
	}
}

func TestStatusErrors(t *testing.T) {
	newClients, _ := fakeClients("team-a", readyServer())
	for _, tc := range []struct {
		args       []string
		newClients newClientsFunc
		code       int
		stderr     string
	}{
		{args: nil, code: exitUsage, stderr: "want exactly one OGXServer name"},
		{args: []string{"a", "b"}, code: exitUsage, stderr: "want exactly one OGXServer name"},
		{args: []string{"--bogus", "llama"}, code: exitUsage, stderr: "flag provided but not defined: -bogus"},
		{args: []string{"-h"}, code: exitOK, stderr: "usage: kubectl ogx status NAME"},
		{args: []string{"missing"}, code: exitFailed, stderr: `error: OGXServer "missing" not found in namespace "team-a"`},
		{args: []string{"llama"}, newClients: func(clusterFlags) (*statusClients, error) { return nil, errors.New("no kubeconfig") },
			code: exitFailed, stderr: "error: no kubeconfig"},
	} {
		nc := newClients
		if tc.newClients != nil {
			nc = tc.newClients
		}
		out, errOut, code := runStatusTest(t, nc, tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.stderr) || (code != exitOK && out != "") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit %d and %q", tc.args, code, out, errOut, tc.code, tc.stderr)
		}
	}
}

// TestStatusUnreadable: a child or the Events that cannot be read are
// shown as unknown; the rest is still printed.
func TestStatusUnreadable(t *testing.T) {
	newClients, kube := fakeClients("team-a", readyServer(), statusObjects()...)
	kube.PrependReactor("get", "services", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "services"}, "llama-service", errors.New("no"))
	})
	kube.PrependReactor("list", "events", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, errors.New("connection refused")
	})
	out, _, code := runStatusTest(t, newClients, "llama")
	if code != exitOK || !regexp.MustCompile(`Service +llama-service +unknown \(forbidden\)`).MatchString(out) ||
		!strings.Contains(out, "<unknown: connection refused>") || !strings.Contains(out, "Deployment") {
		t.Errorf("exit %d, output:\n%s", code, out)
	}
}

// TestEventsSelectedByField: the Events are asked for with the field
// selector kubectl describe uses, so a real API server sends only this
// server's.
func TestEventsSelectedByField(t *testing.T) {
	newClients, kube := fakeClients("team-a", readyServer())
	if _, _, code := runStatusTest(t, newClients, "llama"); code != exitOK {
		t.Fatalf("exit %d", code)
	}
	var sel string
	for _, a := range kube.Actions() {
		if l, ok := a.(k8stesting.ListAction); ok && a.GetResource().Resource == "events" {
			sel = l.GetListRestrictions().Fields.String()
		}
	}
	want := "involvedObject.kind=OGXServer,involvedObject.name=llama,involvedObject.uid=uid-1"
	if sel != want {
		t.Errorf("field selector %q, want %q", sel, want)
	}
}

// TestClientConfig: the kubeconfig comes from --kubeconfig, else
// $KUBECONFIG; --context picks a context; the namespace is -n, else the
// context's, else default.
func TestClientConfig(t *testing.T) {
	dir := t.TempDir()
	kubeconfig := func(name, current string) string {
		p := filepath.Join(dir, name)
		body := `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: "https://127.0.0.1:1"}
users:
- name: u
  user: {token: t}
contexts:
- name: with-ns
  context: {cluster: c, user: u, namespace: team-a}
- name: without-ns
  context: {cluster: c, user: u}
current-context: ` + current + "\n"
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a := kubeconfig("a", "with-ns")
	b := kubeconfig("b", "without-ns")
	t.Setenv("KUBECONFIG", a)
	for _, tc := range []struct {
		f    clusterFlags
		want string
	}{
		{clusterFlags{}, "team-a"},
		{clusterFlags{namespace: "other"}, "other"},
		{clusterFlags{context: "without-ns"}, "default"},
		{clusterFlags{kubeconfig: b}, "default"},
		{clusterFlags{kubeconfig: b, context: "with-ns"}, "team-a"},
	} {
		c, err := newClusterClients(tc.f)
		if err != nil {
			t.Errorf("%+v: %v", tc.f, err)
			continue
		}
		if c.namespace != tc.want {
			t.Errorf("%+v: namespace %q, want %q", tc.f, c.namespace, tc.want)
		}
	}
	if _, err := newClusterClients(clusterFlags{context: "nope"}); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("an unknown context: %v", err)
	}
}

// TestStatusDispatch checks the subcommand is wired into main.
func TestStatusDispatch(t *testing.T) {
	var out, errb bytes.Buffer
	code := dispatch(context.Background(), []string{"status"}, streams{in: strings.NewReader(""), out: &out, err: &errb})
	if code != exitUsage || !strings.Contains(errb.String(), "usage: kubectl ogx status") {
		t.Errorf("exit %d, stderr %q", code, errb.String())
	}
}
