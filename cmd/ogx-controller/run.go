package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sync/atomic"
	"time"

	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/klog/v2"

	"github.com/ogx-k8s/ogx-controller/pkg/controller"
	"github.com/ogx-k8s/ogx-controller/pkg/fence"
	"github.com/ogx-k8s/ogx-controller/pkg/metrics"
	"github.com/ogx-k8s/ogx-controller/pkg/webhookcerts"
)

// runController is `ogx-controller run`: exit 0 on a clean shutdown, 1 on a
// runtime failure, 2 on bad flags.
func runController(ctx context.Context, args []string, stderr io.Writer) int {
	o, err := parseFlags(args, os.Getenv, readFile)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err == nil {
		// Before the first log line, so every line has the chosen format.
		err = applyLogging(o.logging, stderr)
	}
	if err != nil {
		fmt.Fprintln(stderr, "ogx-controller:", err)
		return 2
	}
	defer klog.Flush()
	logger := klog.FromContext(ctx)
	ctx = klog.NewContext(ctx, logger)
	logger.Info("Starting ogx-controller", append([]any{"version", o.operatorVersion}, o.effective...)...)
	for _, w := range o.warnings {
		logger.Info("Warning: " + w)
	}
	if err := run(ctx, o); err != nil {
		logger.Error(err, "ogx-controller failed")
		return 1
	}
	logger.Info("ogx-controller stopped")
	return 0
}

func run(ctx context.Context, o *options) error {
	logger := klog.FromContext(ctx)
	setGCPercent(o.gcPercent, os.Getenv("GOGC"))
	m := metrics.New(o.operatorVersion)
	m.RegisterClientGoMetrics()
	identity := processIdentity()
	fenced, c, mgr, err := buildControllers(o, m, identity)
	if err != nil {
		return err
	}

	// Admission serves on every replica, leader or not, as soon as a
	// certificate is loaded: it depends only on static data.
	adm, err := startAdmission(ctx, o, m)
	if err != nil {
		return err
	}
	defer stopAdmission(adm)
	// Self-managed webhook certificates: every replica copies the serving
	// pair from the Secret into its admission cert dir; the leader (below)
	// keeps the Secret and the caBundle.
	certs, err := startWebhookCerts(ctx, o, c.kube, adm)
	if err != nil {
		return err
	}
	msrv, err := startMetrics(ctx, o, c.reviews, m)
	if err != nil {
		return err
	}

	var synced atomic.Bool
	ready := readiness(ctx, &synced, adm)
	watchdog := leaderWatchdog(o)
	health := startHealthServer(ctx, o.healthAddr, ready, watchdog)
	defer shutdown(startPprofServer(ctx, o.pprofAddr))

	if err := mgr.Start(ctx); err != nil {
		return err
	}
	synced.Store(true)
	logger.Info("Caches synced")

	lead := func(ctx context.Context) {
		m.SetLeader(true)
		if certs != nil {
			go certs.RunLeader(ctx, webhookcerts.DefaultInterval)
		}
		mgr.Run(ctx)
	}
	if o.leaderElect {
		err = runElected(ctx, o, c.lease, identity, watchdog, m, fenced, lead)
	} else {
		lead(ctx)
	}
	synced.Store(false)
	stopMetrics(msrv)
	shutdown(health)
	return err
}

// buildControllers makes the clients and the controllers' manager. With
// leader election every write of the controllers passes the fence: none
// leaves once the Lease may have passed to another replica (pkg/fence,
// docs/high-availability.md).
func buildControllers(o *options, m *metrics.Metrics, identity string) (*fence.Fence, *clients, *controller.Manager, error) {
	var fenced *fence.Fence
	if o.leaderElect {
		fenced = fence.New(o.renewDeadline, nil)
	}
	c, err := newClients(o, m, identity, fenced)
	if err != nil {
		return nil, nil, nil, err
	}
	mgr, err := newManager(o, c, m, identity)
	if err != nil {
		return nil, nil, nil, err
	}
	return fenced, c, mgr, nil
}

// leaderWatchdog is nil without leader election; with it, /healthz also
// fails while this replica leads but has not renewed its Lease for lease
// duration + 20 s (a wedged leader is restarted instead of blocking every
// other replica).
func leaderWatchdog(o *options) *leaderelection.HealthzAdaptor {
	if !o.leaderElect {
		return nil
	}
	return leaderelection.NewLeaderHealthzAdaptor(20 * time.Second)
}

// setGCPercent applies --gc-percent unless GOGC is set: an explicit runtime
// setting in the environment is the operator's choice and stays.
func setGCPercent(percent int, gogc string) {
	if gogc == "" {
		debug.SetGCPercent(percent)
	}
}

// stopServer shuts a listener down, waiting at most timeout for the
// requests in flight; the process is stopping, so an error changes nothing.
func stopServer(srv interface{ Shutdown(context.Context) error }, timeout time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	_ = srv.Shutdown(ctx)
}
