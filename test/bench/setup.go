package main

// The steps of a bench run around its measurements: the control plane, the
// bench's clients, the cluster's preparation, the operator's process, the
// idle window and the report.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/ogx-k8s/ogx-controller/pkg/generated/clientset/versioned"
	"github.com/ogx-k8s/ogx-controller/test/framework"
)

// benchClients are the bench's own clients, with rate limits far above
// what it sends, so that they never pace a phase.
type benchClients struct {
	cfg  *rest.Config
	kube kubernetes.Interface
	ogx  versioned.Interface
}

func newBenchClients(cp *framework.ControlPlane) (*benchClients, error) {
	cfg := cp.Config()
	cfg.QPS, cfg.Burst = 5000, 5000
	cfg.UserAgent = "ogx-bench"
	c := &benchClients{cfg: cfg}
	var err error
	if c.kube, err = kubernetes.NewForConfig(cfg); err != nil {
		return nil, err
	}
	if c.ogx, err = versioned.NewForConfig(cfg); err != nil {
		return nil, err
	}
	return c, nil
}

// probeArgs are ogx-controller's server-probe flags for -probe: off, or
// probes that dial a loopback port where nothing listens.
func probeArgs(o *options) ([]string, error) {
	if o.probe != "refuse" {
		return []string{"--server-probe=false"}, nil
	}
	addr, err := refusingAddress()
	if err != nil {
		return nil, err
	}
	help, _ := exec.Command(o.controller, "run", "-h").CombinedOutput()
	if !strings.Contains(string(help), "server-probe-dial-address") {
		return nil, fmt.Errorf("-probe=refuse needs ogx-controller's --server-probe-dial-address flag, which %s does not have", o.controller)
	}
	return []string{"--server-probe=true", "--server-probe-dial-address=" + addr}, nil
}

// cancelOnSignal calls cancel on the first SIGINT or SIGTERM and exits at
// once on the second; the returned function stops listening.
func cancelOnSignal(cancel context.CancelFunc) func() {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		s, ok := <-sigs
		if !ok {
			return
		}
		logf("%s received, stopping (send it again to exit at once)", s)
		cancel()
		if _, ok := <-sigs; ok {
			logf("second signal, exiting without cleanup")
			os.Exit(1)
		}
	}()
	return func() { signal.Stop(sigs) }
}

// startControlPlane starts the full local control plane with one kwok node
// large enough for both phases' pods.
func startControlPlane(ctx context.Context, o *options) (*framework.ControlPlane, error) {
	// Both phases' pods must fit: the raw namespace may still be draining
	// when the operator's Deployments roll out.
	podsPerNode := max(250, 2*o.n+50)
	logf("starting the control plane (1 kwok node for %d pods)", podsPerNode)
	startCtx, startCancel := context.WithTimeout(ctx, 5*time.Minute)
	defer startCancel()
	// Client-side rate limits of the cluster's own controllers would
	// otherwise dominate both phases (the controller manager's default is
	// 20 QPS), hiding what the operator adds.
	extra := map[string][]string{
		framework.ControllerManager: {"--kube-api-qps=1000", "--kube-api-burst=2000"},
		framework.Scheduler:         {"--kube-api-qps=1000", "--kube-api-burst=2000"},
	}
	if o.profileAPIServer {
		// The later flag wins over the framework's --profiling=false.
		extra[framework.APIServer] = []string{"--profiling=true"}
	}
	cp, err := framework.Start(startCtx, framework.Options{
		Full:        true,
		Nodes:       1,
		PodsPerNode: podsPerNode,
		Users:       []string{controllerUser, followerUser},
		AuditPolicy: framework.AuditPolicyForUsers(controllerUser),
		KeepDir:     o.keep,
		ExtraArgs:   extra,
	})
	if err != nil {
		return nil, fmt.Errorf("starting the control plane: %w", err)
	}
	return cp, nil
}

// prepareCluster creates what the operator phase needs before the operator
// starts: the namespaces, the unrelated objects of -unrelated, the CRD.
func prepareCluster(ctx context.Context, cp *framework.ControlPlane, client kubernetes.Interface, o *options) error {
	if err := createNamespace(ctx, client, benchNamespace); err != nil {
		return err
	}
	if o.unrelated > 0 {
		logf("phase unrelated: %d ConfigMaps and %d Secrets", o.unrelated, o.unrelated)
		if err := createUnrelated(ctx, client, o.unrelated); err != nil {
			return err
		}
	}
	if err := cp.InstallCRDs(ctx, o.crd); err != nil {
		return fmt.Errorf("installing the CRD: %w", err)
	}
	return createNamespace(ctx, client, operatorNamespace)
}

// startOperator starts the ogx-controller binary as user (the bench's
// operator user, or the follower's), its health listener on healthAddr (for
// /readyz) and its log in <user>.log under the control plane's logs; it
// returns the process, its flags (for the report) and its log's path.
func startOperator(cp *framework.ControlPlane, bin, user, healthAddr string, extra []string) (*framework.ControllerProcess, []string, string, error) {
	logPath := filepath.Join(cp.Dir(), "logs", user+".log")
	args := append([]string{
		"run",
		"--kubeconfig=" + cp.UserKubeconfigPath(user),
		"--leader-elect=true",
		"--operator-namespace=" + operatorNamespace,
		"--admission-bind-address=0",
		"--metrics-bind-address=0",
		"--health-probe-bind-address=" + healthAddr,
	}, extra...)
	ctrl, err := framework.StartController(bin, args, logPath)
	return ctrl, args[1:], logPath, err
}

// startFollower starts a second replica once the first holds the Lease,
// with the same flags but its own pprof address, and waits until its caches
// have synced: it follows the leader for the rest of the run (-follower). It
// runs as followerUser, whom the audit policy leaves out, so the operator's
// request counts stay the leader's.
func startFollower(ctx context.Context, cp *framework.ControlPlane, o *options, extra []string) (*framework.ControllerProcess, error) {
	healthAddr, err := freeAddress()
	if err != nil {
		return nil, err
	}
	extra, err = ownPprofAddress(extra)
	if err != nil {
		return nil, err
	}
	f, args, logPath, err := startOperator(cp, o.controller, followerUser, healthAddr, extra)
	if err != nil {
		return nil, err
	}
	alive := func() error {
		if f.Exited() {
			return fmt.Errorf("the follower exited: %v (log: %s)", f.Err(), logPath)
		}
		return nil
	}
	if err := waitSynced(ctx, healthAddr, time.Now().Add(o.timeout), alive); err != nil {
		stopProcess(f)
		return nil, err
	}
	logf("started a follower (log: %s; flags: %s)", logPath, strings.Join(args, " "))
	return f, nil
}

// ownPprofAddress returns args with a --pprof-bind-address (as one
// argument or two) moved to a free loopback port, so that a second
// replica's profiles can be read too.
func ownPprofAddress(args []string) ([]string, error) {
	const flag = "--pprof-bind-address"
	out := slices.Clone(args)
	for i := 0; i < len(out); i++ {
		prefix := flag + "="
		switch {
		case strings.HasPrefix(out[i], prefix):
		case out[i] == flag && i+1 < len(out):
			i, prefix = i+1, ""
		default:
			continue
		}
		addr, err := freeAddress()
		if err != nil {
			return nil, err
		}
		out[i] = prefix + addr
	}
	return out, nil
}

// stopProcess stops a replica, logging what went wrong.
func stopProcess(p *framework.ControllerProcess) {
	if err := p.Stop(30 * time.Second); err != nil {
		logf("%v", err)
	}
}

// idleWindow waits settle after convergence, then records the idle window
// in which the operator's requests are counted.
func idleWindow(ctx context.Context, r *result, idle time.Duration) error {
	logf("phase idle: %s settle, then a %s window", settle, idle)
	if err := sleep(ctx, settle); err != nil {
		return err
	}
	r.idleFrom = time.Now()
	if err := sleep(ctx, idle); err != nil {
		return err
	}
	r.idleTo = time.Now()
	return nil
}

// writeReport prints the report and appends it to out, if given.
func writeReport(report, out string) error {
	fmt.Println()
	fmt.Print(report)
	if out == "" {
		return nil
	}
	f, err := os.OpenFile(out, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("opening -out file: %w", err)
	}
	_, werr := fmt.Fprint(f, "\n"+report)
	if err := errors.Join(werr, f.Close()); err != nil {
		return fmt.Errorf("writing -out file: %w", err)
	}
	logf("appended the result to %s", out)
	return nil
}
