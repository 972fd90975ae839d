package main

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"
	logsapi "k8s.io/component-base/logs/api/v1"

	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/webhookcerts"
)

// options are the parsed flags of `ogx-controller run`.
type options struct {
	kubeconfig        string
	qps               float64
	burst             int
	eventQPS          float64
	eventBurst        int
	probeDialAddress  string
	pprofAddr         string
	leaderElect       bool
	leaderElectSet    bool
	leaderElectionID  string
	leaderElectionNS  string
	leaseDuration     time.Duration
	renewDeadline     time.Duration
	retryPeriod       time.Duration
	metricsAddr       string
	metricsSecure     bool
	metricsCertDir    string
	healthAddr        string
	admissionAddr     string
	admissionCertDir  string
	tlsMinVersion     string
	enableHTTP2       bool
	operatorNamespace string
	operatorVersion   string
	watchNamespaces   []string
	workers           int
	statusWorkers     int
	gcPercent         int
	// effective is every flag's name and value, for the start-up log.
	effective []any
	// logging is -v, -vmodule and --log-format (logging.go).
	logging *logsapi.LoggingConfiguration
	// warnings are problems parsing tolerated, logged at start-up.
	warnings                []string
	clusterDomain           string
	serverProbe             bool
	serverAnyUID            bool
	resolutions             int
	probeTimeout            time.Duration
	probeInterval           time.Duration
	takeoverManagers        string
	discoveryInterval       time.Duration
	cacheSyncTimeout        time.Duration
	basePlatform            string
	ociTimeout              time.Duration
	imageRecheckInterval    time.Duration
	resolutionsPerNamespace int
	registryCAFile          string
	insecureRegistry        stringList
	registryTokenHost       stringList
	allowedRegistry         stringList
	shutdownTimeout         time.Duration

	// Self-managed webhook certificates (pkg/webhookcerts).
	admissionCertManagement string
	admissionCertSecret     string
	admissionServiceName    string
	admissionWebhookConfig  string
}

// saNamespaceFile is where a pod finds its own namespace.
const saNamespaceFile = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"

// parseFlags parses args; getenv supplies the environment fallbacks. An
// error means exit code 2 before any API call.
func parseFlags(args []string, getenv func(string) string, readFile func(string) ([]byte, error)) (*options, error) {
	o := &options{}
	fs := flag.NewFlagSet("ogx-controller run", flag.ContinueOnError)
	o.defineClientFlags(fs, getenv)
	o.defineListenerFlags(fs)
	watch := o.defineControllerFlags(fs, getenv)
	o.logging = logsapi.NewLoggingConfiguration()
	defineLoggingFlags(fs, o.logging)
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	if err := o.settle(fs, *watch, readFile); err != nil {
		return nil, err
	}
	if err := o.validate(); err != nil {
		return nil, err
	}
	o.effective = effectiveFlags(fs, map[string]string{
		"leader-elect":              strconv.FormatBool(o.leaderElect),
		"operator-namespace":        o.operatorNamespace,
		"leader-election-namespace": o.leaderElectionNS,
		"watch-namespaces":          strings.Join(o.watchNamespaces, ","),
	})
	return o, nil
}

// defineClientFlags defines the API client, Event and leader election
// flags.
func (o *options) defineClientFlags(fs *flag.FlagSet, getenv func(string) string) {
	fs.StringVar(&o.kubeconfig, "kubeconfig", getenv("KUBECONFIG"), "kubeconfig path; empty means in-cluster config")
	// A new server costs about one request per child plus two status
	// writes; 300 requests a second lets a fleet of 1,000 servers created
	// at once converge in seconds rather than minutes, while API Priority
	// and Fairness on the server still protects it from any client.
	fs.Float64Var(&o.qps, "kube-api-qps", 300, "client QPS for reads and writes of children and status")
	fs.IntVar(&o.burst, "kube-api-burst", 600, "client burst")
	fs.Float64Var(&o.eventQPS, "event-qps", 5, "Events recorded per second on their own client; Events over the budget are dropped and counted")
	fs.IntVar(&o.eventBurst, "event-burst", 100, "Event burst")
	fs.BoolVar(&o.leaderElect, "leader-elect", false, "leader election (default true in cluster)")
	fs.StringVar(&o.leaderElectionID, "leader-election-id", "ogx-controller-leader", "Lease name")
	fs.StringVar(&o.leaderElectionNS, "leader-election-namespace", "", "Lease namespace (default: the operator namespace)")
	fs.DurationVar(&o.leaseDuration, "leader-election-lease-duration", 15*time.Second, "Lease duration")
	fs.DurationVar(&o.renewDeadline, "leader-election-renew-deadline", 10*time.Second, "Lease renew deadline")
	fs.DurationVar(&o.retryPeriod, "leader-election-retry-period", 2*time.Second, "Lease retry period")
}

// defineListenerFlags defines the metrics, health, profiling and admission
// listeners and their TLS.
func (o *options) defineListenerFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.metricsAddr, "metrics-bind-address", ":8443", "metrics listener; 0 disables")
	fs.BoolVar(&o.metricsSecure, "metrics-secure", true, "serve metrics over HTTPS with authentication")
	fs.StringVar(&o.metricsCertDir, "metrics-cert-dir", "", "metrics certificate directory")
	fs.StringVar(&o.healthAddr, "health-probe-bind-address", ":8081", "health listener; 0 disables")
	fs.StringVar(&o.pprofAddr, "pprof-bind-address", "0",
		"Go profiling endpoints (/debug/pprof/), unauthenticated: a loopback address only (others are refused); 0 disables")
	fs.StringVar(&o.admissionAddr, "admission-bind-address", ":9443", "admission listener; 0 disables")
	fs.StringVar(&o.admissionCertDir, "admission-cert-dir", "/etc/ogx-controller/admission-tls", "admission certificate directory")
	fs.StringVar(&o.admissionCertManagement, "admission-cert-management", "self",
		"who provides the admission serving certificate: self (ogx-controller keeps a CA and certificate in a Secret and the webhook's caBundle) or external (cert-manager, OpenShift service CA)")
	fs.StringVar(&o.admissionCertSecret, "admission-cert-secret", webhookcerts.DefaultSecretName,
		"Secret in the operator namespace holding the self-managed webhook certificates")
	fs.StringVar(&o.admissionServiceName, "admission-service-name", webhookcerts.DefaultServiceName,
		"webhook Service whose DNS names the self-managed serving certificate carries")
	fs.StringVar(&o.admissionWebhookConfig, "admission-webhook-configuration", webhookcerts.DefaultWebhookConfigurationName,
		"ValidatingWebhookConfiguration whose caBundle is kept with self-managed certificates")
	fs.StringVar(&o.tlsMinVersion, "tls-min-version", "VersionTLS12", "minimum TLS version (VersionTLS12 or VersionTLS13)")
	fs.BoolVar(&o.enableHTTP2, "enable-http2", false, "serve HTTP/2 on admission and metrics")
}

// defineControllerFlags defines what the controllers do; it returns the
// unparsed --watch-namespaces.
func (o *options) defineControllerFlags(fs *flag.FlagSet, getenv func(string) string) *string {
	fs.StringVar(&o.operatorNamespace, "operator-namespace", getenv("OPERATOR_NAMESPACE"), "the controller's own namespace")
	fs.StringVar(&o.operatorVersion, "operator-version", orDefault(getenv("OPERATOR_VERSION"), version), "version reported in status")
	watch := fs.String("watch-namespaces", getenv("WATCH_NAMESPACES"), "comma-separated namespaces to manage (default all)")
	// Passes mostly wait on the API server. Two workers per child
	// controller leave the API server to the path to Ready (with four or
	// eight the fleet was Ready later: docs/performance.md): a new server's
	// Service, then its ServiceAccount and Deployment, whose controllers
	// run twice as many. Status passes read caches and write rarely, so
	// many workers keep the time from a Deployment becoming Available to
	// Ready short at fleet scale.
	fs.IntVar(&o.workers, "workers", 2, "workers per child controller (the deployment and service controllers run twice as many)")
	fs.IntVar(&o.statusWorkers, "status-workers", 16, "workers of the status controller")
	// The caches are most of the heap and change little once a fleet has
	// converged, so a lower collection target costs little CPU and keeps
	// the heap closer to what is live (docs/performance.md, Client limits and workers).
	fs.IntVar(&o.gcPercent, "gc-percent", 50,
		"garbage collection target (Go's GOGC: the heap grows this many percent over the live heap between collections); the GOGC environment variable, when set, wins")
	fs.StringVar(&o.clusterDomain, "cluster-domain", "cluster.local", "cluster DNS suffix")
	// The environment fallback lets an OLM Subscription, which sets env but
	// not arguments, turn it on.
	fs.BoolVar(&o.serverAnyUID, "server-any-uid", getenv("SERVER_ANY_UID") == "true",
		"let server pods run as any user their image names, root included: no runAsNonRoot on them, and on OpenShift each server's ServiceAccount bound to the anyuid SCC (needs the RBAC of config/rbac/any_uid_role.yaml)")
	fs.BoolVar(&o.serverProbe, "server-probe", true, "probe OGX servers over HTTP")
	fs.DurationVar(&o.probeTimeout, "server-probe-timeout", 5*time.Second, "timeout of each probe request")
	fs.DurationVar(&o.probeInterval, "server-probe-interval", 30*time.Second, "minimum time between probes of one server")
	fs.StringVar(&o.probeDialAddress, "server-probe-dial-address", "",
		"connect every probe to this host:port instead of the server's Service (tests and benchmarks on a loopback stand-in)")
	fs.StringVar(&o.takeoverManagers, "takeover-field-managers", "ogx-operator,manager", "field managers whose ownership is taken over")
	fs.DurationVar(&o.discoveryInterval, "discovery-interval", time.Hour, "how often optional APIs are re-checked besides when their CRDs change")
	fs.StringVar(&o.basePlatform, "base-config-platform", "linux/amd64", "platform picked from an image index when reading OCI labels")
	fs.DurationVar(&o.ociTimeout, "oci-timeout", 30*time.Second, "deadline of one base-config resolution")
	fs.DurationVar(&o.imageRecheckInterval, "image-recheck-interval", base.DefaultImageRecheckInterval,
		"how often an image tag a server is pinned to is resolved again (0: only when its ogx.io/recheck-image annotation asks)")
	fs.IntVar(&o.resolutionsPerNamespace, "resolutions-per-namespace", base.DefaultResolutionsPerNamespace,
		"base-config resolutions (registry reads) running at once for the servers of one namespace")
	fs.IntVar(&o.resolutions, "resolutions", base.DefaultResolutions,
		"base-config resolutions running at once in all; namespaces take turns")
	fs.StringVar(&o.registryCAFile, "registry-ca-file", "", "extra CA bundle for registries")
	fs.Var(&o.insecureRegistry, "insecure-registry", "host allowed to fall back to plain HTTP (repeatable)")
	fs.Var(&o.allowedRegistry, "allowed-registry",
		"registry whose images' labels may be read, as an image reference names it (quay.io, host:5000) or *.domain (repeatable); none means any")
	fs.Var(&o.registryTokenHost, "registry-token-host",
		"host that may serve any registry's token realm besides the registry's own domain and sso.redhat.com (repeatable)")
	fs.DurationVar(&o.cacheSyncTimeout, "cache-sync-timeout", 2*time.Minute, "informer sync deadline")
	// 25 s leaves the Lease release and the listeners' shutdown inside the
	// manifests' terminationGracePeriodSeconds of 30 (docs/high-availability.md).
	fs.DurationVar(&o.shutdownTimeout, "graceful-shutdown-timeout", 25*time.Second,
		"how long passes in flight at SIGTERM may go on before their context is cancelled; the leader Lease is released after them")
	return watch
}

// settle fills in what depends on other flags or the environment: leader
// election (on in cluster), the watched namespaces, the operator's
// namespace (from the service account when no flag or variable names it).
func (o *options) settle(fs *flag.FlagSet, watch string, readFile func(string) ([]byte, error)) error {
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "leader-elect" {
			o.leaderElectSet = true
		}
	})
	if !o.leaderElectSet {
		o.leaderElect = o.kubeconfig == ""
	}
	namespaces, warnings, err := parseNamespaceList(watch)
	if err != nil {
		return fmt.Errorf("--watch-namespaces: %w", err)
	}
	o.watchNamespaces, o.warnings = namespaces, warnings
	if o.operatorNamespace == "" {
		b, err := readFile(saNamespaceFile)
		if err != nil || strings.TrimSpace(string(b)) == "" {
			return errors.New("operator namespace unknown: set --operator-namespace or OPERATOR_NAMESPACE")
		}
		o.operatorNamespace = strings.TrimSpace(string(b))
	}
	if o.leaderElectionNS == "" {
		o.leaderElectionNS = o.operatorNamespace
	}
	return nil
}

// validate refuses flag values the process cannot run with.
func (o *options) validate() error {
	if err := loopbackOnly(o.pprofAddr); err != nil {
		return fmt.Errorf("--pprof-bind-address: %w", err)
	}
	if o.admissionCertManagement != "self" && o.admissionCertManagement != "external" {
		return fmt.Errorf("--admission-cert-management: %q is neither self nor external", o.admissionCertManagement)
	}
	if o.tlsMinVersion != "VersionTLS12" && o.tlsMinVersion != "VersionTLS13" {
		return fmt.Errorf("--tls-min-version: unknown TLS version %q", o.tlsMinVersion)
	}
	if o.leaderElect && !(o.leaseDuration > o.renewDeadline && float64(o.renewDeadline) > 1.2*float64(o.retryPeriod)) {
		return errors.New("leader election timings must satisfy lease-duration > renew-deadline > 1.2 × retry-period")
	}
	if o.qps <= 0 || o.burst < 1 || o.eventQPS <= 0 || o.eventBurst < 1 {
		return errors.New("--kube-api-qps, --kube-api-burst, --event-qps and --event-burst must be positive")
	}
	if o.shutdownTimeout <= 0 {
		return errors.New("--graceful-shutdown-timeout must be positive (a duration such as 25s)")
	}
	if o.gcPercent < 1 {
		return errors.New("--gc-percent must be at least 1")
	}
	if o.workers < 1 || o.statusWorkers < 1 {
		return errors.New("--workers and --status-workers must be at least 1")
	}
	if o.imageRecheckInterval < 0 {
		return errors.New("--image-recheck-interval must not be negative (0 turns the periodic re-check off)")
	}
	if o.resolutionsPerNamespace < 1 || o.resolutions < 1 {
		return errors.New("--resolutions-per-namespace and --resolutions must be at least 1")
	}
	return nil
}

// effectiveFlags lists every flag but -v and -vmodule with the value the
// process runs with, for the start-up log line: resolved holds the values settled after
// parsing (defaults that depend on other flags or the environment). No flag
// carries a secret: credentials come from files.
func effectiveFlags(fs *flag.FlagSet, resolved map[string]string) []any {
	var out []any
	fs.VisitAll(func(f *flag.Flag) {
		if isVerbosityFlag(f.Name) {
			return
		}
		v, ok := resolved[f.Name]
		if !ok {
			v = f.Value.String()
		}
		out = append(out, f.Name, v)
	})
	return out
}

func orDefault(v, d string) string {
	if v == "" {
		return d
	}
	return v
}

// readFile is os.ReadFile, a parameter of parseFlags for tests.
func readFile(name string) ([]byte, error) { return os.ReadFile(name) }

// parseNamespaceList splits a comma-separated namespace list ("" is none:
// every namespace). Spaces around a name, empty entries (a trailing comma)
// and repeats are tolerated and dropped, each with a warning; a name that is
// not a valid namespace name is an error naming it.
func parseNamespaceList(v string) (namespaces, warnings []string, err error) {
	seen := map[string]bool{}
	for i, ns := range strings.Split(v, ",") {
		ns = strings.TrimSpace(ns)
		switch {
		case ns == "" && strings.TrimSpace(v) != "":
			warnings = append(warnings, fmt.Sprintf("--watch-namespaces: entry %d of %q is empty; ignored", i+1, v))
			continue
		case ns == "":
			continue
		case seen[ns]:
			warnings = append(warnings, fmt.Sprintf("--watch-namespaces: %q is listed twice; watched once", ns))
			continue
		}
		if errs := validation.IsDNS1123Label(ns); len(errs) > 0 {
			return nil, nil, fmt.Errorf("%q is not a namespace name: %s", ns, strings.Join(errs, "; "))
		}
		seen[ns] = true
		namespaces = append(namespaces, ns)
	}
	return namespaces, warnings, nil
}

// loopbackOnly accepts "0" (off) and host:port addresses whose host is a
// loopback IP or localhost: the profiling endpoints are unauthenticated, so
// an address every pod could reach is refused rather than served.
func loopbackOnly(addr string) error {
	if addr == "0" {
		return nil
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("%q is not a loopback address: the profiling endpoints are unauthenticated; use 127.0.0.1:PORT, or 0 to disable", addr)
}

// stringList is a repeatable flag.
type stringList []string

func (s *stringList) String() string     { return fmt.Sprint(*s) }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }
