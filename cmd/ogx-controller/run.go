package main

import (
	"context"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/klog/v2"

	"github.com/ogx-k8s/ogx-controller/pkg/admission"
	"github.com/ogx-k8s/ogx-controller/pkg/configgen/oci"
	"github.com/ogx-k8s/ogx-controller/pkg/controller"
	"github.com/ogx-k8s/ogx-controller/pkg/fence"
	"github.com/ogx-k8s/ogx-controller/pkg/generated/clientset/versioned"
	"github.com/ogx-k8s/ogx-controller/pkg/metrics"
	"github.com/ogx-k8s/ogx-controller/pkg/resolve"
	"github.com/ogx-k8s/ogx-controller/pkg/webhookcerts"
)

// runController is `ogx-controller run`: exit 0 on a clean shutdown, 1 on a
// runtime failure, 2 on bad flags.
func runController(ctx context.Context, args []string, stderr io.Writer) int {
	o, err := parseFlags(args, os.Getenv, readFile)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "ogx-controller:", err)
		return 2
	}
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

// restConfig builds the client configuration. The user agent names the
// process identity, so that the API server's audit log tells replicas
// apart even when they share a ServiceAccount (docs/high-availability.md).
func restConfig(o *options, identity string) (*rest.Config, error) {
	var cfg *rest.Config
	var err error
	if o.kubeconfig != "" {
		cfg, err = clientcmd.BuildConfigFromFlags("", o.kubeconfig)
	} else {
		cfg, err = rest.InClusterConfig()
	}
	if err != nil {
		return nil, fmt.Errorf("building client config: %w", err)
	}
	cfg.QPS, cfg.Burst = float32(o.qps), o.burst
	cfg.UserAgent = fmt.Sprintf("ogx-controller/%s (%s)", o.operatorVersion, identity)
	return cfg, nil
}

func run(ctx context.Context, o *options) error {
	logger := klog.FromContext(ctx)
	setGCPercent(o.gcPercent, os.Getenv("GOGC"))
	m := metrics.New(o.operatorVersion)
	m.RegisterClientGoMetrics()
	identity := processIdentity()
	// With leader election every write of the controllers passes the
	// fence: none leaves once the Lease may have passed to another replica
	// (pkg/fence, docs/high-availability.md).
	var fenced *fence.Fence
	if o.leaderElect {
		fenced = fence.New(o.renewDeadline, nil)
	}
	c, err := newClients(o, m, identity, fenced)
	if err != nil {
		return err
	}
	mgr, err := newManager(o, c, m, identity)
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
	msrv, err := startMetrics(ctx, o, c.unfenced, m)
	if err != nil {
		return err
	}

	var synced atomic.Bool
	ready := readiness(ctx, &synced, adm)
	// With leader election, /healthz also fails while this replica leads but
	// has not renewed its Lease for lease duration + 20 s (a wedged leader
	// is restarted instead of blocking every other replica).
	var watchdog *leaderelection.HealthzAdaptor
	if o.leaderElect {
		watchdog = leaderelection.NewLeaderHealthzAdaptor(20 * time.Second)
	}
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
		err = runElected(ctx, o, c.unfenced, identity, watchdog, m, fenced, lead)
	} else {
		lead(ctx)
	}
	synced.Store(false)
	stopMetrics(msrv)
	shutdown(health)
	return err
}

// clients are the API clients of the process. Every one counts its writes
// (ogx_controller_writes_total).
type clients struct {
	// kube, ogx and events carry the controllers' requests: their writes
	// pass the fence, when there is one.
	kube   kubernetes.Interface
	ogx    versioned.Interface
	events kubernetes.Interface
	// unfenced carries the Lease's own requests, which must never be
	// refused by the fence they refresh, and the metrics endpoint's token
	// and access reviews, which every replica makes and which store
	// nothing. Its own rate limiter also keeps a burst of controller
	// requests from delaying a renewal.
	unfenced kubernetes.Interface
}

// unfencedQPS and unfencedBurst limit the unfenced client: a renewal every
// retry period plus the metrics endpoint's cached reviews.
const unfencedQPS, unfencedBurst = 5, 10

func newClients(o *options, m *metrics.Metrics, identity string, f *fence.Fence) (*clients, error) {
	base, err := restConfig(o, identity)
	if err != nil {
		return nil, err
	}
	base.Wrap(m.WrapTransport)
	unfencedCfg := rest.CopyConfig(base)
	unfencedCfg.QPS, unfencedCfg.Burst = unfencedQPS, unfencedBurst
	c := &clients{}
	if c.unfenced, err = kubernetes.NewForConfig(unfencedCfg); err != nil {
		return nil, err
	}
	cfg := rest.CopyConfig(base)
	if f != nil {
		cfg.Wrap(f.WrapTransport)
	}
	if c.kube, err = kubernetes.NewForConfig(cfg); err != nil {
		return nil, err
	}
	if c.ogx, err = versioned.NewForConfig(cfg); err != nil {
		return nil, err
	}
	// Events get a client of their own: its rate limiter never delays a
	// child or status write. The sink's own budget (--event-qps) decides
	// what is sent, so this client's limiter only backs it up.
	eventsCfg := rest.CopyConfig(cfg)
	eventsCfg.QPS, eventsCfg.Burst = float32(o.eventQPS), o.eventBurst
	if c.events, err = kubernetes.NewForConfig(eventsCfg); err != nil {
		return nil, err
	}
	return c, nil
}

// processIdentity is the pod name (HOSTNAME in a pod) plus a per-process
// UUID, so a restarted pod never reuses its predecessor's identity.
func processIdentity() string {
	hostname := os.Getenv("HOSTNAME")
	if hostname == "" {
		hostname, _ = os.Hostname()
	}
	return hostname + "_" + uuid.NewString()
}

// newManager builds the controllers from the flags.
func newManager(o *options, c *clients, m *metrics.Metrics, identity string) (*controller.Manager, error) {
	gen, err := newGenerator(o)
	if err != nil {
		return nil, err
	}
	return controller.NewManager(c.kube, c.ogx, controller.Options{
		Generator:         gen,
		WatchNamespaces:   o.watchNamespaces,
		OperatorNamespace: o.operatorNamespace,
		OperatorVersion:   o.operatorVersion,
		ClusterDomain:     o.clusterDomain,
		Workers:           o.workers,
		StatusWorkers:     o.statusWorkers,
		ProbeEnabled:      o.serverProbe,
		ProbeInterval:     o.probeInterval,
		Prober:            controller.NewHTTPProber(o.probeTimeout, o.probeDialAddress),
		Distributions:     resolve.NewDistributionTable(os.Getenv),
		CacheSyncTimeout:  o.cacheSyncTimeout,
		DiscoveryInterval: o.discoveryInterval,
		TakeoverManagers:  splitList(o.takeoverManagers),
		Identity:          identity,
		Metrics:           m,
		EventsClient:      c.events,
		EventQPS:          o.eventQPS,
		EventBurst:        o.eventBurst,
		ShutdownTimeout:   o.shutdownTimeout,
	})
}

// runElected runs lead while this replica holds the Lease and returns when
// ctx is done (nil) or the Lease was lost (an error: a replica that lost its
// lease restarts as a follower with clean state).
//
// Shutdown order (docs/high-availability.md): when ctx is done, lead's
// context is cancelled but the elector's is not, so the Lease is still
// renewed, and the fence kept open, while lead lets the passes in flight
// finish; only after lead has returned is the elector stopped, which
// releases the Lease (ReleaseOnCancel) for a follower to take at once.
//
// A lost Lease ends lead's context too, and runElected returns its error
// once lead has returned: the passes in flight end as at a shutdown (up to
// --graceful-shutdown-timeout), but every write they try is refused by the
// fence, which closed before another replica could take the Lease.
func runElected(ctx context.Context, o *options, kube kubernetes.Interface, identity string,
	watchdog *leaderelection.HealthzAdaptor, m *metrics.Metrics, f *fence.Fence, lead func(context.Context)) error {
	logger := klog.FromContext(ctx)
	var lock resourcelock.Interface = &resourcelock.LeaseLock{
		LeaseMeta:  metav1.ObjectMeta{Name: o.leaderElectionID, Namespace: o.leaderElectionNS},
		Client:     kube.CoordinationV1(),
		LockConfig: resourcelock.ResourceLockConfig{Identity: identity},
	}
	if f != nil {
		lock = fence.NewLock(lock, f)
	}
	electCtx, stopElecting := context.WithCancel(context.WithoutCancel(ctx))
	defer stopElecting()
	g := &electedRun{stopElecting: stopElecting, leadDone: make(chan struct{})}
	elector, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock:            lock,
		LeaseDuration:   o.leaseDuration,
		RenewDeadline:   o.renewDeadline,
		RetryPeriod:     o.retryPeriod,
		ReleaseOnCancel: true,
		WatchDog:        watchdog,
		Name:            o.leaderElectionID,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(leading context.Context) {
				g.lead(ctx, leading, func(ctx context.Context) {
					logger.Info("Became leader", "identity", identity)
					lead(ctx)
				})
			},
			OnStoppedLeading: func() {
				m.SetLeader(false)
				if f != nil {
					f.Revoke()
				}
			},
			OnNewLeader: func(id string) {
				if id != identity {
					logger.Info("Following leader", "leader", id)
				}
			},
		},
	})
	if err != nil {
		return fmt.Errorf("leader election: %w", err)
	}
	go g.stopWhenDone(ctx)
	elector.Run(electCtx)
	if g.end() {
		<-g.leadDone
	}
	if !g.stopped() {
		return errors.New("leader election lost")
	}
	return nil
}

// electedRun orders the end of a leader's term: the elector is stopped
// (and so the Lease released) when ctx is done and, if this replica leads,
// only once lead has returned.
type electedRun struct {
	stopElecting func()
	// leadDone is closed when lead's fn has returned.
	leadDone chan struct{}

	mu sync.Mutex
	// leading is set when lead's fn started; over when the election
	// ended, after which it never starts.
	leading, over bool
	// asked is set when the elector was stopped on purpose, not because
	// the Lease was lost.
	asked bool
}

// lead runs fn with a context that ends when ctx (the process) or leading
// (the Lease) does, then stops the elector if the process is stopping.
func (g *electedRun) lead(ctx, leading context.Context, fn func(context.Context)) {
	g.mu.Lock()
	if g.over {
		// The Lease was lost before this goroutine ran.
		g.mu.Unlock()
		return
	}
	if ctx.Err() != nil {
		// Acquired just as the process was told to stop.
		g.mu.Unlock()
		g.stop()
		return
	}
	g.leading = true
	g.mu.Unlock()
	term, cancel := context.WithCancel(leading)
	stopWatching := context.AfterFunc(ctx, cancel)
	fn(term)
	stopWatching()
	cancel()
	close(g.leadDone)
	if ctx.Err() != nil {
		g.stop()
	}
}

// stopWhenDone stops the elector when ctx is done, unless this replica
// leads: then lead stops it once the passes in flight are over.
func (g *electedRun) stopWhenDone(ctx context.Context) {
	<-ctx.Done()
	g.mu.Lock()
	leading := g.leading
	g.mu.Unlock()
	if !leading {
		g.stop()
	}
}

func (g *electedRun) stop() {
	g.mu.Lock()
	g.asked = true
	g.mu.Unlock()
	g.stopElecting()
}

// end marks the election over and reports whether lead's fn started (and
// so must be waited for).
func (g *electedRun) end() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.over = true
	return g.leading
}

func (g *electedRun) stopped() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.asked
}

// readiness is /readyz: caches synced, a certificate loaded when admission
// is on, and ctx not done. It fails the moment a shutdown starts, before
// the passes in flight drain, so that traffic (admission reviews) moves to
// other replicas first.
func readiness(ctx context.Context, synced *atomic.Bool, adm *admission.Server) func() bool {
	return func() bool { return ctx.Err() == nil && synced.Load() && (adm == nil || adm.Ready()) }
}

// startHealthServer serves /healthz (always OK while running) and /readyz
// (OK once the caches are synced); addr "0" disables it.
func startHealthServer(ctx context.Context, addr string, ready func() bool, watchdog *leaderelection.HealthzAdaptor) *http.Server {
	if addr == "0" || addr == "" {
		return nil
	}
	srv := &http.Server{Addr: addr, Handler: healthHandler(ready, watchdog), ReadHeaderTimeout: 5 * time.Second,
		BaseContext: func(net.Listener) context.Context { return ctx }}
	go func() {
		if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
			klog.FromContext(ctx).Error(err, "Health server failed")
		}
	}()
	return srv
}

// healthHandler serves /healthz (the process runs and, when leading, keeps
// renewing its Lease) and /readyz (caches synced and, with admission on, a
// certificate loaded).
func healthHandler(ready func() bool, watchdog *leaderelection.HealthzAdaptor) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		if watchdog != nil {
			if err := watchdog.Check(r); err != nil {
				http.Error(w, err.Error(), http.StatusServiceUnavailable)
				return
			}
		}
		_, _ = io.WriteString(w, "ok")
	})
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		if !ready() {
			http.Error(w, "not ready", http.StatusServiceUnavailable)
			return
		}
		_, _ = io.WriteString(w, "ok")
	})
	return mux
}

func shutdown(srv *http.Server) {
	if srv == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = srv.Shutdown(ctx)
}

// splitList splits a comma-separated flag value, dropping empty items.
func splitList(v string) []string {
	out := []string{}
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// newGenerator builds the config generator with a registry client for OCI
// base-config labels.
func newGenerator(o *options) (*controller.Generator, error) {
	var roots *x509.CertPool
	if o.registryCAFile != "" {
		var err error
		if roots, err = oci.LoadCAPool(o.registryCAFile); err != nil {
			return nil, fmt.Errorf("--registry-ca-file: %w", err)
		}
	}
	r, err := oci.NewResolver(oci.Options{Platform: o.basePlatform, Timeout: o.ociTimeout, RootCAs: roots,
		InsecureHosts: o.insecureRegistry, Client: oci.NewHTTPClient(roots)})
	if err != nil {
		return nil, err
	}
	return controller.NewGenerator(r), nil
}

// startAdmission starts the admission server unless --admission-bind-address
// is 0.
func startAdmission(ctx context.Context, o *options, m *metrics.Metrics) (*admission.Server, error) {
	if o.admissionAddr == "0" || o.admissionAddr == "" {
		return nil, nil
	}
	minTLS, err := admission.ParseTLSVersion(o.tlsMinVersion)
	if err != nil {
		return nil, err
	}
	srv, err := admission.NewServer(admission.ServerOptions{Addr: o.admissionAddr, CertDir: o.admissionCertDir,
		MinTLSVersion: minTLS, EnableHTTP2: o.enableHTTP2,
		Handler: admission.NewHandler(admission.HandlerOptions{Observe: func(r admission.Review) {
			m.ObserveAdmission(string(r.Operation), r.Allowed, r.Code, r.Duration)
		}})})
	if err != nil {
		return nil, err
	}
	if err := srv.Start(ctx); err != nil {
		return nil, fmt.Errorf("starting the admission server: %w", err)
	}
	return srv, nil
}

// startWebhookCerts starts writing the self-managed serving pair into the
// admission cert dir, unless admission is disabled or
// --admission-cert-management is external; the returned Manager's
// RunLeader is for the leader.
func startWebhookCerts(ctx context.Context, o *options, kube kubernetes.Interface, adm *admission.Server) (*webhookcerts.Manager, error) {
	if adm == nil || o.admissionCertManagement != "self" {
		return nil, nil
	}
	certs, err := webhookcerts.New(webhookcerts.Options{
		Kube:                     kube,
		Namespace:                o.operatorNamespace,
		SecretName:               o.admissionCertSecret,
		ServiceName:              o.admissionServiceName,
		ClusterDomain:            o.clusterDomain,
		WebhookConfigurationName: o.admissionWebhookConfig,
		CertDir:                  o.admissionCertDir,
	})
	if err != nil {
		return nil, err
	}
	go certs.RunReplica(ctx, webhookcerts.DefaultInterval)
	return certs, nil
}

// stopAdmission stops the admission server last, draining in-flight reviews.
func stopAdmission(srv *admission.Server) {
	if srv == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), admission.ShutdownTimeout)
	defer cancel()
	_ = srv.Shutdown(ctx)
}

// startMetrics starts the /metrics listener unless --metrics-bind-address
// is 0: HTTPS with TokenReview/SubjectAccessReview unless --metrics-secure
// is false.
func startMetrics(ctx context.Context, o *options, kube kubernetes.Interface, m *metrics.Metrics) (*metrics.Server, error) {
	if o.metricsAddr == metrics.DisabledAddr || o.metricsAddr == "" {
		return nil, nil
	}
	minTLS, err := admission.ParseTLSVersion(o.tlsMinVersion)
	if err != nil {
		return nil, err
	}
	srv, err := metrics.NewServer(metrics.Options{Addr: o.metricsAddr, Secure: o.metricsSecure, CertDir: o.metricsCertDir,
		MinTLSVersion: minTLS, EnableHTTP2: o.enableHTTP2, Kube: kube, Metrics: m})
	if err != nil {
		return nil, err
	}
	if err := srv.Start(ctx); err != nil {
		return nil, fmt.Errorf("starting the metrics server: %w", err)
	}
	return srv, nil
}

// stopMetrics stops the metrics listener.
func stopMetrics(srv *metrics.Server) {
	if srv == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), metrics.ShutdownTimeout)
	defer cancel()
	_ = srv.Shutdown(ctx)
}

// setGCPercent applies --gc-percent unless GOGC is set: an explicit runtime
// setting in the environment is the operator's choice and stays.
func setGCPercent(percent int, gogc string) {
	if gogc == "" {
		debug.SetGCPercent(percent)
	}
}
