package base

import (
	"os"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/utils/clock"

	"github.com/ogx-k8s/ogx-controller/pkg/controller/caches"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/events"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/probe"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/record"
	"github.com/ogx-k8s/ogx-controller/pkg/generated/clientset/versioned"
	"github.com/ogx-k8s/ogx-controller/pkg/metrics"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
	"github.com/ogx-k8s/ogx-controller/pkg/resolve"
)

// Options configure the controllers.
type Options struct {
	// WatchNamespaces limits the controller to these namespaces (all when
	// empty).
	WatchNamespaces []string
	// OperatorNamespace holds the operator ConfigMap and the Lease.
	OperatorNamespace string
	OperatorVersion   string
	ClusterDomain     string
	// ServerAnyUID lets server pods run as any user their image names and,
	// on OpenShift, binds each N-sa to the anyuid SCC; the deployment
	// controller then caches and writes RoleBindings (render.Inputs).
	ServerAnyUID  bool
	Workers       int
	StatusWorkers int
	// ProbeEnabled switches the server probe on.
	ProbeEnabled  bool
	ProbeInterval time.Duration
	Prober        probe.Prober
	// Distributions is the image table after RELATED_IMAGE_*.
	Distributions resolve.DistributionTable
	// Generator reads base configs from image labels (nil: a Generator
	// that reads only spec.baseConfig, never a registry).
	Generator *Generator
	// ImageRecheckInterval is how often a pinned image tag is resolved
	// again (Pins; 0: DefaultImageRecheckInterval, negative: never, only
	// when the ogx.io/recheck-image annotation asks).
	ImageRecheckInterval time.Duration
	// ConfigGenerator replaces the whole generation pipeline (tests; nil:
	// the shared resolver's, pkg/resolve).
	ConfigGenerator resolve.Generator
	// TakeoverManagers are the field managers of the upstream operator whose
	// ownership of children (and of OGXServer status) is merged into ours.
	TakeoverManagers []string
	// DiscoveryInterval is how often optional APIs are re-checked besides
	// when their CRDs change: only an API served without a CRD needs it.
	DiscoveryInterval time.Duration
	// CacheSyncTimeout bounds the initial informer sync.
	CacheSyncTimeout time.Duration
	// Metrics records what the controllers do (nil: nothing is recorded).
	Metrics *metrics.Metrics
	// Identity names this process in Events (the leader-election identity).
	Identity string
	// Metadata watches the metadata of odh-trusted-ca-bundle ConfigMaps,
	// labelled or not, so that one lacking ogx.io/watch=true is reported
	// rather than silently left out of the CA bundle
	// (caches.Caches.WatchTrustedBundles; nil: not reported).
	Metadata metadata.Interface
	// EventsClient sends Events; a client of its own keeps Events from
	// taking rate budget from the children (nil: the main client).
	EventsClient kubernetes.Interface
	// EventQPS and EventBurst are the Event budget: Events past it are
	// dropped and counted, and dropped Warnings are owed (docs/status.md,
	// Events).
	EventQPS   float64
	EventBurst int
	// EventBudget, when set, is the Event budget instead of one built from
	// EventQPS and EventBurst, so its holder can change it while the
	// controllers run (tests spend it and give it back).
	EventBudget *events.Budget
	// Clock is the time the status controller stamps and waits by.
	Clock clock.PassiveClock
	// ShutdownTimeout is how long passes in flight at shutdown keep a live
	// context (--graceful-shutdown-timeout).
	ShutdownTimeout time.Duration
}

// Deps are what every controller is built from.
type Deps struct {
	// Kube and OGX are the clients of the process (with leader election,
	// behind the write fence).
	Kube   kubernetes.Interface
	OGX    versioned.Interface
	Caches *caches.Caches
	Board  *OutcomeBoard
	// Children are the appliers of the shared child kinds, shared so one
	// controller's write shows in another's Current.
	Children *Children
	Resolver *Resolver
	// Events sends Events and journals the children's writes.
	Events *events.Sink
	Specs  *SpecMemo
	// Owned are the child kinds controller packages registered for
	// themselves (RegisterKind), whose sources the manager builds.
	Owned []OwnedSource
	// Records is the per-server record the stores above keep values in.
	Records *record.Store
	// Causes keeps problems found on every pass from being logged on
	// every pass.
	Causes CauseLog
	Opts   Options
}

// WithDefaults fills the options a caller left unset; Events go through
// kube unless the caller gave them a client of their own.
func WithDefaults(opts Options, kube kubernetes.Interface) Options {
	defaultIfNotPositive(&opts.Workers, 2)
	defaultIfNotPositive(&opts.StatusWorkers, 16)
	defaultIfNotPositive(&opts.ProbeInterval, 30*time.Second)
	defaultIfNotPositive(&opts.DiscoveryInterval, time.Hour)
	defaultIfNotPositive(&opts.CacheSyncTimeout, 2*time.Minute)
	defaultIfNotPositive(&opts.ShutdownTimeout, 25*time.Second)
	defaultIfZero(&opts.ClusterDomain, "cluster.local")
	defaultIfZero(&opts.ImageRecheckInterval, DefaultImageRecheckInterval)
	defaultIfZero(&opts.EventQPS, 5)
	defaultIfZero(&opts.EventBurst, 100)
	defaultIfZero(&opts.EventsClient, kube)
	if opts.EventBudget == nil {
		opts.EventBudget = events.NewBudget(opts.EventQPS, opts.EventBurst)
	}
	// Without a registry client only spec.baseConfig can supply the base
	// config; tests rely on this never touching the network.
	defaultIfZero(&opts.Generator, NewGenerator(nil, 0, 0))
	if opts.Prober == nil {
		opts.Prober = probe.NewHTTPProber(5*time.Second, "")
	}
	if opts.Distributions == nil {
		opts.Distributions = resolve.NewDistributionTable(nil)
	}
	if opts.Identity == "" {
		host, _ := os.Hostname()
		opts.Identity = host
	}
	if opts.TakeoverManagers == nil {
		opts.TakeoverManagers = []string{"ogx-operator", "manager"}
	}
	if opts.Clock == nil {
		opts.Clock = clock.RealClock{}
	}
	return opts
}

// defaultIfNotPositive sets *v to def unless it is positive.
func defaultIfNotPositive[T int | time.Duration](v *T, def T) {
	if *v <= 0 {
		*v = def
	}
}

// defaultIfZero sets *v to def when it is the zero value (unset).
func defaultIfZero[T comparable](v *T, def T) {
	var zero T
	if *v == zero {
		*v = def
	}
}

// NewDeps builds what the controllers share, with opts' defaults filled in
// (WithDefaults). The sink comes first: its journal also records the
// children's takeovers.
func NewDeps(kube kubernetes.Interface, ogx versioned.Interface, opts Options) Deps {
	opts = WithDefaults(opts, kube)
	c := caches.NewCaches(kube, ogx, opts.WatchNamespaces, opts.OperatorNamespace,
		render.OwnFieldManagers(), opts.TakeoverManagers)
	c.WatchTrustedBundles(opts.Metadata)
	opts.Metrics.CountServersWith(c.ServerPhases)
	records := record.New()
	sink := events.NewSink(opts.Identity, opts.EventBudget, opts.Metrics, records)
	return Deps{
		Events: sink, Specs: NewSpecMemo(records), Records: records, Causes: NewCauseLog(records),
		Kube: kube, OGX: ogx, Caches: c, Opts: opts,
		Board:    NewOutcomeBoard(records),
		Children: NewChildren(kube, c, opts, sink.Journal()),
		Resolver: NewResolver(c, kube, opts, records, sink),
	}
}
