// Command localcluster is what `make run` starts when KUBECONFIG is unset: a
// throwaway local control plane (etcd, kube-apiserver,
// kube-controller-manager, kube-scheduler and kwok fake nodes, from the
// programs `make tools` builds into bin/) with the OGXServer CRD installed
// and the real ogx-controller binary running against it. It applies a sample
// OGXServer, waits until it is Ready, prints how to reach the cluster, and
// keeps everything running until SIGINT or SIGTERM, when it stops the
// controller, then the control plane, and removes its temporary directory.
//
//	localcluster [flags] [-- extra ogx-controller flags]
//
// Run it from the repository root (the Makefile does). kwok plays the
// kubelet, so pods become Running and Ready without pulling images or running
// containers; nothing listens in them, which is why the controller runs with
// --server-probe=false.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"

	"github.com/ogx-k8s/ogx-controller/pkg/generated/clientset/versioned"
	"github.com/ogx-k8s/ogx-controller/test/framework"
)

// options are the parsed command line.
type options struct {
	controllerBin     string
	crd               string
	sample            string
	sampleNamespace   string
	operatorNamespace string
	nodes             int
	startTimeout      time.Duration
	readyTimeout      time.Duration
	stopTimeout       time.Duration
	keep              bool
	controllerArgs    []string
}

func main() {
	os.Exit(run(os.Args[1:]))
}

func parseFlags(args []string) (*options, error) {
	o := &options{}
	fs := flag.NewFlagSet("localcluster", flag.ContinueOnError)
	fs.StringVar(&o.controllerBin, "controller", "bin/ogx-controller", "the ogx-controller binary to run")
	fs.StringVar(&o.crd, "crd", "config/crd/bases/ogx.io_ogxservers.yaml", "CRD file or directory to install")
	fs.StringVar(&o.sample, "sample", "config/samples/ogx_v1beta1_ogxserver.yaml", "OGXServer YAML to apply once the controller runs; empty applies nothing")
	fs.StringVar(&o.sampleNamespace, "sample-namespace", "default", "namespace for sample objects that name none")
	fs.StringVar(&o.operatorNamespace, "operator-namespace", "ogx-system", "the controller's own namespace, created if missing")
	fs.IntVar(&o.nodes, "nodes", 1, "number of kwok fake nodes")
	fs.DurationVar(&o.startTimeout, "start-timeout", 5*time.Minute, "deadline for the control plane to start")
	fs.DurationVar(&o.readyTimeout, "ready-timeout", 3*time.Minute, "deadline for the sample to become Ready")
	fs.DurationVar(&o.stopTimeout, "controller-stop-timeout", 30*time.Second, "how long to wait for ogx-controller after SIGTERM before killing it")
	fs.BoolVar(&o.keep, "keep", false, "keep the temporary directory (kubeconfig, logs, etcd data) after exit")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: localcluster [flags] [-- extra ogx-controller flags]\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	o.controllerArgs = fs.Args()
	if o.nodes < 1 {
		return nil, errors.New("-nodes must be at least 1")
	}
	return o, nil
}

// run returns the exit code: 0 after a signal-initiated clean shutdown, 1
// when anything failed, 2 on bad flags.
func run(args []string) int {
	begin := time.Now()
	o, err := parseFlags(args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintln(os.Stderr, "localcluster:", err)
		return 2
	}
	// Fail on a missing binary or file before spending seconds on start-up.
	for _, p := range []string{o.controllerBin, o.crd} {
		if _, err := os.Stat(p); err != nil {
			logf("%v (run from the repository root; `make run` builds bin/ogx-controller)", err)
			return 1
		}
	}
	var objects []sampleObject
	if o.sample != "" {
		if objects, err = readSamples(o.sample, o.sampleNamespace); err != nil {
			logf("%v", err)
			return 1
		}
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The first signal starts an orderly shutdown; a second one exits at
	// once. The components then die with us (the framework and startController
	// set Pdeathsig), but the temporary directory stays behind.
	var tmpDir string
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		s := <-sigs
		logf("%s received, shutting down (send it again to exit at once)", s)
		cancel()
		<-sigs
		logf("second signal, exiting without cleanup; %s may remain", tmpDir)
		os.Exit(1)
	}()

	logf("Starting a local control plane with %d kwok node(s) (etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok)", o.nodes)
	startCtx, startCancel := context.WithTimeout(ctx, o.startTimeout)
	cp, err := framework.Start(startCtx, framework.Options{Full: true, Nodes: o.nodes, KeepDir: o.keep})
	startCancel()
	if err != nil {
		if ctx.Err() != nil {
			logf("interrupted while starting the control plane")
			return 1
		}
		logf("starting the control plane: %v", err)
		return 1
	}
	tmpDir = cp.Dir()
	times := cp.StartupTimes()
	logf("Control plane ready in %s (apiserver after %s) in %s", round(times.NodesReady), round(times.APIServerReady), cp.Dir())

	var ctrl *framework.ControllerProcess
	code := func() int {
		var err error
		ctrl, err = setUp(ctx, cp, o, objects, begin)
		if err != nil {
			if ctx.Err() != nil {
				logf("interrupted during set-up")
				return 1
			}
			logf("%v", err)
			if ctrl != nil {
				ctrl.DumpLog(os.Stderr, 40)
			}
			return 1
		}
		select {
		case <-ctx.Done():
			return 0
		case <-ctrl.Done():
			logf("ogx-controller exited unexpectedly: %v", ctrl.Err())
			ctrl.DumpLog(os.Stderr, 40)
			return 1
		}
	}()

	// Tear down in dependency order: the controller while the apiserver still
	// answers, so it shuts down cleanly, then the control plane.
	if ctrl != nil {
		if err := ctrl.Stop(o.stopTimeout); err != nil {
			logf("%v", err)
			code = 1
		}
	}
	if err := cp.Stop(); err != nil {
		logf("stopping the control plane: %v", err)
		code = 1
	}
	if o.keep {
		logf("Stopped; kept %s", cp.Dir())
	} else {
		logf("Stopped; removed %s", cp.Dir())
	}
	return code
}

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

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "localcluster: "+format+"\n", args...)
}

func round(d time.Duration) time.Duration { return d.Round(100 * time.Millisecond) }
