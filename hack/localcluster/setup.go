package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"

	"github.com/ogx-k8s/ogx-controller/pkg/generated/clientset/versioned"
	"github.com/ogx-k8s/ogx-controller/test/framework"
)

// setUp installs the CRD, creates the operator namespace, starts
// ogx-controller, applies the samples and waits until they are Ready. The
// returned controller is non-nil once it has started, even with an error,
// so the caller stops it.
func setUp(ctx context.Context, cp *framework.ControlPlane, o *options, objects []sampleObject, begin time.Time) (*framework.ControllerProcess, error) {
	step := time.Now()
	if err := cp.InstallCRDs(ctx, o.crd); err != nil {
		return nil, fmt.Errorf("installing CRDs: %w", err)
	}
	logf("Installed %s in %s", o.crd, round(time.Since(step)))

	_, err := cp.Client().CoreV1().Namespaces().Create(ctx,
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: o.operatorNamespace}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return nil, fmt.Errorf("creating namespace %s: %w", o.operatorNamespace, err)
	}

	logPath := filepath.Join(cp.Dir(), "logs", "ogx-controller.log")
	args := append([]string{
		"run",
		"--kubeconfig=" + cp.KubeconfigPath(),
		"--leader-elect=false",
		"--operator-namespace=" + o.operatorNamespace,
		"--metrics-bind-address=0",
		"--admission-bind-address=0",
		"--health-probe-bind-address=0",
		// Pods on kwok nodes run no containers, so an HTTP probe of the
		// server would never succeed.
		"--server-probe=false",
	}, o.controllerArgs...)
	ctrl, err := framework.StartController(o.controllerBin, args, logPath)
	if err != nil {
		return nil, err
	}
	logf("Started %s (log: %s)", o.controllerBin, logPath)

	if len(objects) == 0 {
		logf("Ready after %s; no sample applied", round(time.Since(begin)))
		printUsage(cp, o, nil, logPath)
		return ctrl, nil
	}
	dyn, err := dynamic.NewForConfig(cp.Config())
	if err != nil {
		return ctrl, err
	}
	ogx, err := versioned.NewForConfig(cp.Config())
	if err != nil {
		return ctrl, err
	}
	step = time.Now()
	for _, obj := range objects {
		if err := applySample(ctx, dyn, obj); err != nil {
			return ctrl, err
		}
		logf("Applied OGXServer %s/%s from %s", obj.namespace, obj.name, o.sample)
	}
	if err := waitReady(ctx, ogx, ctrl, objects, o.readyTimeout); err != nil {
		return ctrl, err
	}
	total := time.Since(begin)
	for _, obj := range objects {
		logf("OGXServer %s/%s is Ready: %s after start (control plane %s, sample applied to Ready %s)",
			obj.namespace, obj.name, round(total), round(cp.StartupTimes().NodesReady), round(time.Since(step)))
	}
	printUsage(cp, o, objects, logPath)
	return ctrl, nil
}

// printUsage tells the user how to reach the cluster.
func printUsage(cp *framework.ControlPlane, o *options, objects []sampleObject, logPath string) {
	kc := cp.KubeconfigPath()
	w := os.Stdout
	fmt.Fprintf(w, "\nThe local cluster is running.\n  kubeconfig:          %s\n  ogx-controller log:  %s\n  control-plane logs:  %s\n\n",
		kc, logPath, filepath.Join(cp.Dir(), "logs"))
	fmt.Fprintf(w, "Try, in another terminal:\n")
	fmt.Fprintf(w, "  export KUBECONFIG=%s\n", kc)
	fmt.Fprintf(w, "  kubectl get ogx -A\n")
	for _, obj := range objects {
		ns := ""
		if obj.namespace != "default" {
			ns = " -n " + obj.namespace
		}
		fmt.Fprintf(w, "  kubectl wait --for=condition=Ready ogx/%s%s\n", obj.name, ns)
	}
	if len(objects) > 0 {
		fmt.Fprintf(w, "  kubectl get deploy,svc,sa,pvc,pods -n %s\n", objects[0].namespace)
	}
	fmt.Fprintf(w, "  kubectl apply -f config/samples/   # more samples\n")
	fmt.Fprintf(w, "  tail -f %s\n\n", logPath)
	if o.keep {
		fmt.Fprintf(w, "Press Ctrl-C to stop; %s is kept afterwards.\n", cp.Dir())
	} else {
		fmt.Fprintf(w, "Press Ctrl-C to stop; the kubeconfig, logs and etcd data are removed then.\n")
	}
}
