package base

import (
	"os"
	"time"

	"k8s.io/client-go/kubernetes"
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
	Workers           int
	StatusWorkers     int
	// ProbeEnabled switches the server probe on; Prober does the probing.
	ProbeEnabled  bool
	ProbeInterval time.Duration
	Prober        probe.Prober
	// Distributions is the image table after RELATED_IMAGE_*.
	Distributions resolve.DistributionTable
	// Generator reads base configs from image labels (nil: a Generator
	// that reads only spec.baseConfig, never a registry).
	Generator *Generator
	// ConfigGenerator replaces the whole generation pipeline (tests; nil:
	// the shared resolver's, pkg/resolve).
	ConfigGenerator resolve.Generator
	// TakeoverManagers are the field managers of the upstream operator whose
	// ownership of children (and of OGXServer status) is merged into ours.
	TakeoverManagers []string
	// DiscoveryInterval is how often optional APIs are re-checked besides
	// when their CRDs change (default 1h: only an API served without a CRD
	// needs it, and a converged fleet should send no requests).
	DiscoveryInterval time.Duration
	// CacheSyncTimeout bounds the initial informer sync.
	CacheSyncTimeout time.Duration
	// Metrics records what the controllers do (nil: nothing is recorded).
	Metrics *metrics.Metrics
	// Identity names this process in Events (the leader-election identity).
	Identity string
	// EventsClient sends Events; a client of its own keeps Events from
	// taking rate budget from the children (nil: the main client).
	EventsClient kubernetes.Interface
	// EventQPS and EventBurst are the Event budget: Events past it are
	// dropped and counted (zero: 5 a second, bursts of 100).
	EventQPS   float64
	EventBurst int
	// Clock tells the status controller the time it stamps and waits by
	// (nil: the real clock).
	Clock clock.PassiveClock
	// ShutdownTimeout is how long passes in flight when Run's context ends
	// may go on with a live context before theirs is cancelled
	// (--graceful-shutdown-timeout; zero: 25 s).
	ShutdownTimeout time.Duration
}

// Deps are what every controller is built from.
type Deps struct {
	// Kube and OGX are the clients of the process (with leader election,
	// behind the write fence).
	Kube kubernetes.Interface
	OGX  versioned.Interface
	// Caches are the informer caches every controller reads.
	Caches *caches.Caches
	// Board holds each server's outcome per controller, which status reads.
	Board *OutcomeBoard
	// Children are the appliers of the typed child kinds, shared so one
	// controller's write shows in another's Current.
	Children *Children
	// Resolver turns a server and its references into render inputs.
	Resolver *Resolver
	// Events sends Events and journals the children's writes.
	Events *events.Sink
	// Specs holds each server generation's re-validation verdict.
	Specs *SpecMemo
	// Owned are the child kinds controller packages registered for
	// themselves (RegisterKind), whose sources the manager builds.
	Owned []OwnedSource
	// Records is the per-server record every store above keeps its values
	// in: one map, forgotten in one place.
	Records *record.Store
	Opts    Options
}

// WithDefaults fills the options a caller left unset; Events go through
// kube unless the caller gave them a client of their own.
func WithDefaults(opts Options, kube kubernetes.Interface) Options {
	if opts.Workers <= 0 {
		opts.Workers = 2
	}
	if opts.StatusWorkers <= 0 {
		opts.StatusWorkers = 16
	}
	if opts.ClusterDomain == "" {
		opts.ClusterDomain = "cluster.local"
	}
	if opts.ProbeInterval <= 0 {
		opts.ProbeInterval = 30 * time.Second
	}
	if opts.Prober == nil {
		opts.Prober = probe.NewHTTPProber(5*time.Second, "")
	}
	if opts.Distributions == nil {
		opts.Distributions = resolve.NewDistributionTable(nil)
	}
	if opts.Generator == nil {
		// Without a registry client only spec.baseConfig can supply the base
		// config; tests rely on this never touching the network.
		opts.Generator = NewGenerator(nil)
	}
	if opts.Identity == "" {
		host, _ := os.Hostname()
		opts.Identity = host
	}
	if opts.TakeoverManagers == nil {
		opts.TakeoverManagers = []string{"ogx-operator", "manager"}
	}
	if opts.DiscoveryInterval <= 0 {
		opts.DiscoveryInterval = time.Hour
	}
	if opts.CacheSyncTimeout <= 0 {
		opts.CacheSyncTimeout = 2 * time.Minute
	}
	if opts.Clock == nil {
		opts.Clock = clock.RealClock{}
	}
	if opts.ShutdownTimeout <= 0 {
		opts.ShutdownTimeout = 25 * time.Second
	}
	if opts.EventQPS == 0 {
		opts.EventQPS = 5
	}
	if opts.EventBurst == 0 {
		opts.EventBurst = 100
	}
	if opts.EventsClient == nil {
		opts.EventsClient = kube
	}
	return opts
}

// NewDeps builds what the controllers share: clients, caches, the
// per-server record and the outcome board in it, the children's appliers,
// the resolver and the event sink, with opts' defaults filled in
// (WithDefaults). The sink comes first: its journal also records the
// children's takeovers.
func NewDeps(kube kubernetes.Interface, ogx versioned.Interface, opts Options) Deps {
	opts = WithDefaults(opts, kube)
	c := caches.NewCaches(kube, ogx, opts.WatchNamespaces, opts.OperatorNamespace,
		render.OwnFieldManagers(), opts.TakeoverManagers)
	c.Metrics = opts.Metrics
	opts.Metrics.CountServersWith(c.ServerPhases)
	records := record.New()
	sink := events.NewSink(opts.Identity, opts.EventQPS, opts.EventBurst, opts.Metrics, records)
	return Deps{
		Events: sink, Specs: NewSpecMemo(records), Records: records,
		Kube: kube, OGX: ogx, Caches: c, Opts: opts,
		Board:    NewOutcomeBoard(records),
		Children: NewChildren(kube, c, opts.TakeoverManagers, sink.Journal()),
		Resolver: NewResolver(c, kube, opts, records),
	}
}
