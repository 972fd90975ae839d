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
	"sync/atomic"
	"syscall"
	"time"

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
	objects, err := readInputs(o)
	if err != nil {
		logf("%v", err)
		return 1
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var tmpDir atomic.Value
	tmpDir.Store("")
	handleSignals(cancel, &tmpDir)

	cp, err := startControlPlane(ctx, o)
	if err != nil {
		logf("%v", err)
		return 1
	}
	tmpDir.Store(cp.Dir())
	ctrl, code := serve(ctx, cp, o, objects, begin)
	return tearDown(cp, ctrl, o, code)
}

// readInputs fails on a missing binary or file before seconds are spent on
// start-up, and reads the samples.
func readInputs(o *options) ([]sampleObject, error) {
	for _, p := range []string{o.controllerBin, o.crd} {
		if _, err := os.Stat(p); err != nil {
			return nil, fmt.Errorf("%w (run from the repository root; `make run` builds bin/ogx-controller)", err)
		}
	}
	if o.sample == "" {
		return nil, nil
	}
	return readSamples(o.sample, o.sampleNamespace)
}

// handleSignals makes the first SIGINT or SIGTERM start an orderly
// shutdown (cancel); a second one exits at once. The components then die
// with us (the framework sets Pdeathsig), but the temporary directory, whose
// path tmpDir holds once known, stays behind.
func handleSignals(cancel context.CancelFunc, tmpDir *atomic.Value) {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		s := <-sigs
		logf("%s received, shutting down (send it again to exit at once)", s)
		cancel()
		<-sigs
		logf("second signal, exiting without cleanup; %s may remain", tmpDir.Load())
		os.Exit(1)
	}()
}

// startControlPlane starts the control plane with kwok nodes within
// -start-timeout.
func startControlPlane(ctx context.Context, o *options) (*framework.ControlPlane, error) {
	logf("Starting a local control plane with %d kwok node(s) (etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok)", o.nodes)
	startCtx, startCancel := context.WithTimeout(ctx, o.startTimeout)
	cp, err := framework.Start(startCtx, framework.Options{Full: true, Nodes: o.nodes, KeepDir: o.keep})
	startCancel()
	if err != nil {
		if ctx.Err() != nil {
			return nil, errors.New("interrupted while starting the control plane")
		}
		return nil, fmt.Errorf("starting the control plane: %w", err)
	}
	times := cp.StartupTimes()
	logf("Control plane ready in %s (apiserver after %s) in %s", round(times.NodesReady), round(times.APIServerReady), cp.Dir())
	return cp, nil
}

// serve sets up the cluster and then waits for a signal or for the
// controller to exit, and returns the exit code so far. The controller is
// non-nil once it has started, so the caller stops it.
func serve(ctx context.Context, cp *framework.ControlPlane, o *options, objects []sampleObject, begin time.Time) (*framework.ControllerProcess, int) {
	ctrl, err := setUp(ctx, cp, o, objects, begin)
	if err != nil {
		if ctx.Err() != nil {
			logf("interrupted during set-up")
			return ctrl, 1
		}
		logf("%v", err)
		if ctrl != nil {
			ctrl.DumpLog(os.Stderr, 40)
		}
		return ctrl, 1
	}
	select {
	case <-ctx.Done():
		return ctrl, 0
	case <-ctrl.Done():
		logf("ogx-controller exited unexpectedly: %v", ctrl.Err())
		ctrl.DumpLog(os.Stderr, 40)
		return ctrl, 1
	}
}

// tearDown stops everything in dependency order: the controller while the
// apiserver still answers, so it shuts down cleanly, then the control
// plane. It returns code, or 1 if stopping failed.
func tearDown(cp *framework.ControlPlane, ctrl *framework.ControllerProcess, o *options, code int) int {
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

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "localcluster: "+format+"\n", args...)
}

func round(d time.Duration) time.Duration { return d.Round(100 * time.Millisecond) }
