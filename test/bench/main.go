// Command bench measures ogx-controller at fleet scale on the local control
// plane of test/framework (etcd, kube-apiserver, kube-controller-manager,
// kube-scheduler and kwok fake nodes from bin/) and prints one markdown
// table. `make bench` runs it; docs/performance.md explains the figures.
//
// In one control plane it
//
//  1. creates n starter-shaped child sets (ServiceAccount, NetworkPolicy,
//     Service, Deployment) straight through the API in namespace raw, as the
//     baseline of what the cluster itself takes, then deletes them;
//  2. optionally creates -unrelated ConfigMaps and Secrets without ogx labels;
//  3. starts bin/ogx-controller as user "ogx-controller" and waits for its
//     leader Lease;
//  4. creates n OGXServers and watches their children, Deployments and
//     Ready conditions converge;
//  5. counts the operator's requests in the apiserver's audit log, while
//     converging and in an idle window afterwards, and samples its memory.
//
// Every wait is bounded by -timeout; the program exits non-zero with a
// message naming the wait that expired. Run it from the repository root.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"maps"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/ogx-k8s/ogx-controller/test/framework"
)

const (
	// controllerUser is the identity ogx-controller authenticates as, so the
	// audit log attributes its requests.
	controllerUser    = "ogx-controller"
	operatorNamespace = "ogx-system"
	unrelatedNS       = "unrelated"
	leaseName         = "ogx-controller-leader"
	// followerUser is the -follower replica's identity, which the audit
	// log leaves out.
	followerUser = "ogx-controller-follower"
	// settle is the pause between the last Ready and the idle window, so
	// the tail of convergence does not count as idle traffic.
	settle = 20 * time.Second
)

type options struct {
	n, workers, unrelated int
	probe                 string
	distribution          string
	idle, timeout         time.Duration
	controller, crd, out  string
	controllerArgs        string // extra ogx-controller flags, space-separated
	keep                  bool
	profileAPIServer      bool
	raw                   bool
	follower              bool
	requestCosts          int      // requests per form in the request-cost mode; 0 runs the fleet phases
	args                  []string // the command line, for the report
}

func main() {
	o, err := parseFlags(os.Args[1:])
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(2)
	}
	if err := run(o); err != nil {
		logf("FAILED: %v", err)
		os.Exit(1)
	}
}

func parseFlags(args []string) (*options, error) {
	o := &options{args: args}
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.IntVar(&o.n, "n", 1000, "number of OGXServers (and of raw child sets)")
	fs.IntVar(&o.workers, "workers", 16, "concurrent clients creating OGXServers")
	fs.IntVar(&o.unrelated, "unrelated", 0, "unrelated ConfigMaps and as many Secrets (a few KiB each, half in the bench namespace) to create before the operator starts")
	fs.StringVar(&o.probe, "probe", "off", "server probe: off (--server-probe=false) or refuse (probes dial a loopback port where nothing listens)")
	fs.StringVar(&o.distribution, "distribution", distributionName, "servers' distribution: name (the starter distribution by name) or oci-label (one moving tag on a loopback registry, config generated from its labels and pinned to its digest; the report counts the tag's resolutions)")
	fs.DurationVar(&o.idle, "idle", 60*time.Second, "idle window, starting 20s after the last server is Ready, in which the operator's requests are counted")
	fs.DurationVar(&o.timeout, "timeout", 20*time.Minute, "deadline of each wait")
	fs.StringVar(&o.controller, "controller", "bin/ogx-controller", "the ogx-controller binary")
	fs.StringVar(&o.crd, "crd", "config/crd/bases/ogx.io_ogxservers.yaml", "the OGXServer CRD")
	fs.StringVar(&o.out, "out", "", "also append the result (markdown) to this file")
	fs.StringVar(&o.controllerArgs, "controller-args", "", "extra ogx-controller flags, space-separated (e.g. --pprof-bind-address=127.0.0.1:6060)")
	fs.BoolVar(&o.raw, "raw", true, "run the raw phase first (the ratios' base); -raw=false leaves the ratios out, e.g. at N=10000, where the raw phase alone takes most of an hour on two cores")
	fs.BoolVar(&o.follower, "follower", false, "also run a second replica, which follows the leader through the ogx phase: its CPU is what the caches and event handlers cost without a single pass or write (plus the owned-field extraction the leader skips for its own writes); its watches add to the API server's load, its requests are not counted")
	fs.BoolVar(&o.keep, "keep", false, "keep the control-plane directory (logs, audit log, etcd data) after exit")
	fs.IntVar(&o.requestCosts, "request-costs", 0, "instead of the fleet phases, send this many requests of each form of write (create or apply of a Deployment, a status apply or merge patch, an Event, ...) and report what each cost the API server and etcd (requestcost.go)")
	fs.BoolVar(&o.profileAPIServer, "profile-apiserver", false, "serve kube-apiserver's /debug/pprof to the admin kubeconfig's token, to profile the API server during a run")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	switch {
	case fs.NArg() > 0:
		return nil, fmt.Errorf("unexpected arguments %q", fs.Args())
	case o.n < 1:
		return nil, errors.New("-n must be at least 1")
	case o.workers < 1:
		return nil, errors.New("-workers must be at least 1")
	case o.unrelated < 0:
		return nil, errors.New("-unrelated must not be negative")
	case o.requestCosts < 0:
		return nil, errors.New("-request-costs must not be negative")
	case o.probe != "off" && o.probe != "refuse":
		return nil, fmt.Errorf("-probe must be off or refuse, not %q", o.probe)
	case o.distribution != distributionName && o.distribution != distributionOCILabel:
		return nil, fmt.Errorf("-distribution must be %s or %s, not %q", distributionName, distributionOCILabel, o.distribution)
	case o.idle <= 0 || o.timeout <= 0:
		return nil, errors.New("-idle and -timeout must be positive")
	}
	return o, nil
}

func run(o *options) error {
	for _, p := range []string{o.controller, o.crd} {
		if _, err := os.Stat(p); err != nil {
			return fmt.Errorf("%w (run from the repository root; `make bench` builds bin/ogx-controller)", err)
		}
	}
	controllerArgs, err := probeArgs(o)
	if err != nil {
		return err
	}
	controllerArgs = append(controllerArgs, strings.Fields(o.controllerArgs)...)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	defer cancelOnSignal(cancel)()

	cp, err := startControlPlane(ctx, o)
	if err != nil {
		return err
	}
	defer func() {
		if stopErr := cp.Stop(); stopErr != nil {
			logf("stopping the control plane: %v", stopErr)
		}
		if o.keep {
			logf("kept %s", cp.Dir())
		}
	}()
	logf("control plane ready in %.1fs in %s", cp.StartupTimes().NodesReady.Seconds(), cp.Dir())
	c, err := newBenchClients(cp)
	if err != nil {
		return err
	}

	if o.requestCosts > 0 {
		return runRequestCosts(ctx, cp, c, o)
	}
	r := &result{opts: o, machine: machineFacts(), commit: gitCommit()}
	// The processes whose CPU time each phase measures.
	pids := cp.PIDs()
	pids[benchProcess] = os.Getpid()
	if o.raw {
		logf("phase raw: %d × (ServiceAccount, NetworkPolicy, Service, Deployment) with %d workers", o.n, rawWorkers)
		r.rawCPU = newCPUWindow(pids)
		r.rawCPU.scrape = func() (requestStats, error) { return scrapeRequests(ctx, c.kube) }
		if r.raw, err = runRaw(ctx, c.kube, o.n, time.Now().Add(o.timeout), r.rawCPU); err != nil {
			return err
		}
		if r.rawCPU.err != nil {
			logf("no raw phase CPU figures: %v", r.rawCPU.err)
		}
		if r.rawCPU.reqErr != nil {
			logf("no raw phase request kinds: %v", r.rawCPU.reqErr)
		}
	}
	if err := prepareCluster(ctx, cp, c.kube, o); err != nil {
		return err
	}
	if err := measureOperator(ctx, o, cp, c, controllerArgs, pids, r); err != nil {
		return err
	}
	return writeReport(r.markdown(), o.out)
}

// measureOperator runs ogx-controller through the operator phase and the
// idle window, and records in r what it measured: times, CPU (of pids and
// the operator), requests (from the audit log) and memory.
func measureOperator(ctx context.Context, o *options, cp *framework.ControlPlane, c *benchClients,
	controllerArgs []string, pids map[string]int, r *result,
) (err error) {
	healthAddr, err := freeAddress()
	if err != nil {
		return err
	}
	ctrl, args, logPath, err := startOperator(cp, o.controller, controllerUser, healthAddr, controllerArgs)
	if err != nil {
		return err
	}
	r.controllerArgs = args
	defer func() {
		if err != nil {
			ctrl.DumpLog(os.Stderr, 30)
		}
		stopProcess(ctrl)
	}()
	sampler := startRSSSampler(ctrl.Pid())
	// follower, with -follower, must stay up too: a replica that died
	// would leave its CPU out of the report without failing the run.
	var follower *framework.ControllerProcess
	alive := func() error {
		if ctrl.Exited() {
			return fmt.Errorf("ogx-controller exited: %v (log: %s)", ctrl.Err(), logPath)
		}
		if follower != nil && follower.Exited() {
			return fmt.Errorf("the follower exited: %v", follower.Err())
		}
		return nil
	}
	logf("started %s (log: %s)", o.controller, logPath)
	if err := waitLease(ctx, c.kube, time.Now().Add(o.timeout), alive); err != nil {
		return err
	}
	// The baseline of the anonymous memory per server: caches synced (the
	// CRD's, the unrelated objects'), no OGXServer yet.
	if err := waitSynced(ctx, healthAddr, time.Now().Add(o.timeout), alive); err != nil {
		return err
	}
	if r.memSynced, err = readMemory(ctrl.Pid()); err != nil {
		logf("no memory baseline: %v", err)
		err = nil
	}

	logf("phase ogx: %d OGXServers with %d workers", o.n, o.workers)
	// The CPU readings are taken at the first create and once all are
	// Ready, give or take the tracker's poll. A failed reading leaves the
	// figures out rather than the run.
	ogxPids := maps.Clone(pids)
	ogxPids[operatorProcess] = ctrl.Pid()
	if o.follower {
		if follower, err = startFollower(ctx, cp, o, controllerArgs); err != nil {
			return err
		}
		defer stopProcess(follower)
		ogxPids[followerProcess] = follower.Pid()
	}
	r.ogxCPU = newCPUWindow(ogxPids)
	r.ogxCPU.scrape = func() (requestStats, error) { return scrapeRequests(ctx, c.kube) }
	var img *fleetImage
	if o.distribution == distributionOCILabel {
		if img, err = startRegistry(); err != nil {
			return err
		}
		defer img.reg.Close()
		logf("registry on %s serving %s (%s)", img.reg.Host(), img.image, img.digest)
	}
	if r.ogx, err = runOGX(ctx, c.cfg, c.kube, c.ogx, o.n, o.workers, serverSpec(img), time.Now().Add(o.timeout), alive, r.ogxCPU); err != nil {
		return err
	}
	if r.ogxCPU.err != nil {
		logf("no ogx phase CPU figures: %v", r.ogxCPU.err)
	}
	if r.ogxCPU.reqErr != nil {
		logf("no ogx phase request kinds: %v", r.ogxCPU.reqErr)
	}
	if err := idleWindow(ctx, r, o.idle); err != nil {
		return err
	}
	if err := alive(); err != nil {
		return err
	}
	r.rssPeak, r.anonPeak, r.memFinal = sampler.finish(ctrl.Pid())
	if img != nil {
		r.registry = &registryFigures{}
		r.registry.tag, r.registry.all = img.tagResolutions()
	}

	reqs, err := readAudit(cp.AuditLogPath(), controllerUser)
	if err != nil {
		return err
	}
	r.converge = between(reqs, r.ogx.t0, r.ogx.readyAt)
	r.idle = between(reqs, r.idleFrom, r.idleTo)
	return nil
}

// refusingAddress returns a loopback address where nothing listens: a port
// the kernel just handed out, released again at once.
func refusingAddress() (string, error) { return freeAddress() }

// freeAddress returns a loopback address with a port the kernel just handed
// out, released again at once for a process to listen on.
func freeAddress() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("finding a free loopback port: %w", err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		return "", err
	}
	return addr, nil
}

// waitSynced waits until ogx-controller's /readyz on addr answers OK,
// which it does once its caches have synced.
func waitSynced(ctx context.Context, addr string, deadline time.Time, alive func() error) error {
	client := &http.Client{Timeout: 5 * time.Second}
	var last error
	begin := time.Now()
	err := waitUntil(ctx, deadline, "ogx-controller's caches to sync (/readyz on "+addr+")", func() bool {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/readyz", nil)
		if err != nil {
			last = err
			return false
		}
		resp, err := client.Do(req)
		if err != nil {
			last = err
			return false
		}
		_ = resp.Body.Close()
		last = fmt.Errorf("status %s", resp.Status)
		return resp.StatusCode == http.StatusOK
	}, func() string { return fmt.Sprintf("last answer: %v", last) }, alive)
	if err != nil {
		return err
	}
	logf("ogx-controller's caches synced after %.1fs", time.Since(begin).Seconds())
	return nil
}

// waitLease waits until ogx-controller holds its leader-election Lease,
// which it takes before starting its controllers.
func waitLease(ctx context.Context, client kubernetes.Interface, deadline time.Time, alive func() error) error {
	var holder string
	var last error
	begin := time.Now()
	err := waitUntil(ctx, deadline, "ogx-controller to acquire Lease "+operatorNamespace+"/"+leaseName, func() bool {
		c, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		lease, err := client.CoordinationV1().Leases(operatorNamespace).Get(c, leaseName, metav1.GetOptions{})
		last = err
		if err == nil && lease.Spec.HolderIdentity != nil {
			holder = *lease.Spec.HolderIdentity
		}
		return holder != ""
	}, func() string { return fmt.Sprintf("last get: %v", last) }, alive)
	if err != nil {
		return err
	}
	logf("ogx-controller holds the Lease (%s) after %.1fs", holder, time.Since(begin).Seconds())
	return nil
}

// createUnrelated creates count ConfigMaps and count Secrets of 4 KiB of
// data each, without ogx labels, half in the bench namespace and half in
// another: objects an operator may cache or watch but should not act on.
func createUnrelated(ctx context.Context, client kubernetes.Interface, count int) error {
	if err := createNamespace(ctx, client, unrelatedNS); err != nil {
		return err
	}
	payload := strings.Repeat("unrelated-data-", 4096/15+1)[:4096]
	begin := time.Now()
	err := parallel(ctx, count, rawWorkers, func(ctx context.Context, i int) error {
		ns := benchNamespace
		if i%2 == 1 {
			ns = unrelatedNS
		}
		meta := metav1.ObjectMeta{Name: fmt.Sprintf("unrelated-%05d", i), Labels: map[string]string{"bench": "unrelated"}}
		if _, err := client.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: meta, Data: map[string]string{"data": payload}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating ConfigMap %s/%s: %w", ns, meta.Name, err)
		}
		if _, err := client.CoreV1().Secrets(ns).Create(ctx, &corev1.Secret{ObjectMeta: meta, Data: map[string][]byte{"data": []byte(payload)}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating Secret %s/%s: %w", ns, meta.Name, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	logf("unrelated: created in %.1fs", time.Since(begin).Seconds())
	return nil
}

func sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return errors.New("interrupted")
	case <-time.After(d):
		return nil
	}
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s bench: "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
}
