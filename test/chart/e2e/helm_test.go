package e2e

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"helm.sh/helm/v4/pkg/action"
	release "helm.sh/helm/v4/pkg/release/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/kubernetes"

	"github.com/ogx-k8s/ogx-controller/test/framework"
)

// helmConfig is Helm's action configuration for releases in namespace on
// the control plane, as the helm CLI builds it from a kubeconfig, with
// release records in Secrets (Helm's default storage driver). Helm's log
// goes to the test's log.
func helmConfig(t *testing.T, namespace string) *action.Configuration {
	t.Helper()
	kubeconfig := cp.KubeconfigPath()
	flags := genericclioptions.NewConfigFlags(false)
	flags.KubeConfig = &kubeconfig
	flags.Namespace = &namespace
	cfg := action.NewConfiguration()
	cfg.SetLogger(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelInfo}))
	if err := cfg.Init(flags, namespace, "secret"); err != nil {
		t.Fatalf("helm configuration: %v", err)
	}
	return cfg
}

// testWriter sends Helm's log lines to t.Log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// asRelease returns the v1 release of a Helm action's result.
func asRelease(t *testing.T, r any) *release.Release {
	t.Helper()
	rel, ok := r.(*release.Release)
	if !ok {
		t.Fatalf("a Helm action returned %T, want *release.Release", r)
	}
	return rel
}

// releaseRecords returns the revisions of release name recorded in Secrets
// of namespace (Helm's storage: owner=helm, name=<release>), by their
// status label.
func releaseRecords(ctx context.Context, kube kubernetes.Interface, namespace, name string) (map[string]string, error) {
	secrets, err := kube.CoreV1().Secrets(namespace).List(ctx, metav1.ListOptions{LabelSelector: "owner=helm,name=" + name})
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, s := range secrets.Items {
		if s.Type != "helm.sh/release.v1" {
			return nil, fmt.Errorf("release record %s has type %s", s.Name, s.Type)
		}
		out[s.Labels["version"]] = s.Labels["status"]
	}
	return out, nil
}

// runHelmTest runs `helm test` on release name and, since the kwok nodes
// run no containers, stands in for the kubelet of the test Pod: when the
// Pod is scheduled it runs the Pod's container (the ogx-controller binary
// with the Pod's args) on this host as the Pod's ServiceAccount, and
// writes the exit code into the Pod's status, which Helm waits for. It
// returns Helm's result and what the check printed.
func runHelmTest(t *testing.T, cfg *action.Configuration, namespace, name, bin string) (*release.Release, string, error) {
	t.Helper()
	type result struct {
		out string
		err error
	}
	kubelet := make(chan result, 1)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go func() {
		out, err := runTestPod(ctx, cp.Client(), namespace, bin)
		kubelet <- result{out, err}
	}()
	ht := action.NewReleaseTesting(cfg)
	ht.Namespace = namespace
	ht.Timeout = 2 * time.Minute
	r, shutdown, err := ht.Run(name)
	if shutdown != nil {
		if serr := shutdown(); serr != nil && err == nil {
			t.Errorf("deleting the test hooks: %v", serr)
		}
	}
	cancel()
	k := <-kubelet
	if k.err != nil && !errors.Is(k.err, context.Canceled) {
		t.Errorf("running the test Pod: %v", k.err)
	}
	if r == nil {
		return nil, k.out, err
	}
	return asRelease(t, r), k.out, err
}

// runTestPod waits for the chart's test Pod in namespace to be running
// (kwok's doing), runs its container as described in runHelmTest and sets
// the Pod's phase from the exit code.
func runTestPod(ctx context.Context, kube kubernetes.Interface, namespace, bin string) (string, error) {
	var pod *corev1.Pod
	if err := wait.PollUntilContextCancel(ctx, 200*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		pods, err := kube.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{LabelSelector: "app.kubernetes.io/component=test"})
		if err != nil {
			return false, err
		}
		for i := range pods.Items {
			if p := &pods.Items[i]; p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp == nil {
				pod = p
			}
		}
		return pod != nil, nil
	}); err != nil {
		return "", err
	}
	c := pod.Spec.Containers[0]
	if len(c.Command) > 0 || len(c.Args) == 0 || c.Args[0] != "check-admission" {
		return "", fmt.Errorf("test Pod %s runs %v %v: this stand-in only runs ogx-controller check-admission", pod.Name, c.Command, c.Args)
	}
	dir, err := os.MkdirTemp("", "ogx-helm-test-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	kubeconfig, err := tokenKubeconfig(ctx, kube, namespace, pod.Spec.ServiceAccountName, dir)
	if err != nil {
		return "", err
	}
	cmd := exec.CommandContext(ctx, bin, append(append([]string{}, c.Args...), "--kubeconfig="+kubeconfig)...)
	out, runErr := cmd.CombinedOutput()
	code := 0
	var exit *exec.ExitError
	switch {
	case errors.As(runErr, &exit):
		code = exit.ExitCode()
	case runErr != nil:
		return string(out), runErr
	}
	phase, reason := corev1.PodSucceeded, "Completed"
	if code != 0 {
		phase, reason = corev1.PodFailed, "Error"
	}
	now := metav1.Now()
	pod.Status.Phase = phase
	pod.Status.Conditions = nil
	pod.Status.ContainerStatuses = []corev1.ContainerStatus{{
		Name: c.Name, Image: c.Image, ImageID: c.Image,
		State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
			ExitCode: int32(code), Reason: reason, StartedAt: now, FinishedAt: now}},
	}}
	if _, err := kube.CoreV1().Pods(namespace).UpdateStatus(ctx, pod, metav1.UpdateOptions{}); err != nil {
		return string(out), fmt.Errorf("setting the test Pod's phase %s: %w", phase, err)
	}
	return string(out), nil
}

// tokenKubeconfig writes into dir a kubeconfig with a token of
// ServiceAccount sa in namespace.
func tokenKubeconfig(ctx context.Context, kube kubernetes.Interface, namespace, sa, dir string) (string, error) {
	path, err := writeServiceAccountKubeconfig(ctx, kube, namespace, sa, dir)
	if err != nil {
		return "", fmt.Errorf("kubeconfig for ServiceAccount %s/%s: %w", namespace, sa, err)
	}
	return path, nil
}

// waitGone waits until get reports NotFound.
func waitGone(t *testing.T, what string, get func(ctx context.Context) error) {
	t.Helper()
	framework.Poll(t, time.Minute, what+" to be deleted", func(ctx context.Context) (bool, error) {
		err := get(ctx)
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, err
	})
}
