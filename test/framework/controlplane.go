package framework

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// Options configures Start. The zero value starts etcd and kube-apiserver
// only.
type Options struct {
	// Full also starts kube-controller-manager, kube-scheduler and kwok and
	// registers fake Nodes, so Deployments roll out, pods are scheduled and
	// become Ready, and garbage collection and namespace deletion happen.
	// Without it nothing acts on stored objects, which suits tests of
	// validation, admission and controllers that only read and write the API,
	// and starts faster.
	Full bool

	// Nodes is the number of kwok fake Nodes registered in Full mode; zero
	// means one. Ignored unless Full.
	Nodes int

	// PodsPerNode is each fake Node's pod capacity in Full mode; zero means
	// 250. CPU and memory scale with it (2 CPU and 8Gi per pod), so one
	// Node can hold thousands of default OGX pods for load tests.
	PodsPerNode int

	// Users are extra identities, besides the admin, that the apiserver
	// accepts: each gets a random bearer token in the token file and the
	// group system:masters, so it needs no RBAC. Use UserConfig or
	// UserKubeconfigPath to act as one, for example to tell a program's
	// requests apart from the test's own in the audit log. Names must be
	// unique, non-empty, free of commas, quotes and path separators, and
	// differ from the admin's.
	Users []string

	// RBACUsers are like Users but belong to no group of their own (only
	// system:authenticated), so, like a real workload, they need RBAC
	// bindings and API Priority and Fairness classifies them: the exempt
	// FlowSchema matches system:masters. UserConfig and
	// UserKubeconfigPath serve them as well; names follow the same rules
	// and must differ from those in Users.
	RBACUsers []string

	// AuditPolicy, when set, turns on the apiserver's audit log: the
	// policy (an audit.k8s.io/v1 Policy in YAML; see AuditPolicyForUsers)
	// is written to the control-plane directory and events go, one JSON
	// object per line, to AuditLogPath. The log never rotates, and the
	// blocking mode writes each event before the request completes, so none
	// is dropped under load.
	AuditPolicy []byte

	// AssetsDir holds the programs (etcd, kube-apiserver, ...) and
	// kwok-stages.yaml. Empty means $OGX_TEST_ASSETS, else the bin/
	// directory of the repository root (see ModuleRoot).
	AssetsDir string

	// ReadyTimeout bounds each wait during Start (etcd health, apiserver
	// readiness, Nodes Ready); zero means 2 minutes. The ctx passed to Start
	// bounds the whole start-up as well.
	ReadyTimeout time.Duration

	// StopTimeout is how long Stop waits after SIGTERM before it kills a
	// component; zero means 10 seconds.
	StopTimeout time.Duration

	// KeepDir leaves the temporary directory (logs, kubeconfig, etcd data)
	// in place after Stop, for debugging a failure by hand.
	KeepDir bool

	// ExtraArgs appends flags to a component's command line, keyed by
	// component name (Etcd, APIServer, ...), for example feature gates. They
	// come after the framework's flags, so a repeated single-valued flag
	// overrides the framework's value (list flags may accumulate instead).
	ExtraArgs map[string][]string
}

func (o Options) withDefaults() Options {
	if o.Full && o.Nodes <= 0 {
		o.Nodes = 1
	}
	if !o.Full {
		o.Nodes = 0
	}
	if o.ReadyTimeout <= 0 {
		o.ReadyTimeout = 2 * time.Minute
	}
	if o.StopTimeout <= 0 {
		o.StopTimeout = 10 * time.Second
	}
	return o
}

// StartupTimes records how long Start took to reach each milestone, measured
// from the call to Start.
type StartupTimes struct {
	// APIServerReady is when etcd and kube-apiserver were ready.
	APIServerReady time.Duration
	// NodesReady is when every fake Node was Ready and untainted (Full mode
	// only; zero otherwise). This is the end of Start in Full mode.
	NodesReady time.Duration
}

// ControlPlane is a running local control plane. Its methods may be called
// from concurrent tests.
type ControlPlane struct {
	opts   Options
	assets assets
	dir    string
	files  files

	etcdURL string

	config *rest.Config
	client kubernetes.Interface
	// userTokens maps each Options.Users and RBACUsers name to its bearer token.
	userTokens map[string]string
	times      StartupTimes

	// procs lists the running components in start order. Start fills it;
	// afterwards only RestartComponent replaces entries, under procsMu.
	procsMu sync.Mutex
	procs   []*process

	stopOnce sync.Once
	stopErr  error
}

// files are the paths of what a control plane writes in its directory.
type files struct {
	caCert, servingCert, servingKey string
	saKey, saPub                    string
	tokens, kubeconfig              string
	etcdData, logs                  string
	auditPolicy, auditLog           string
}

func newFiles(dir string) files {
	return files{
		caCert:      filepath.Join(dir, "pki", "ca.crt"),
		servingCert: filepath.Join(dir, "pki", "apiserver.crt"),
		servingKey:  filepath.Join(dir, "pki", "apiserver.key"),
		saKey:       filepath.Join(dir, "pki", "sa.key"),
		saPub:       filepath.Join(dir, "pki", "sa.pub"),
		tokens:      filepath.Join(dir, "pki", "tokens.csv"),
		kubeconfig:  filepath.Join(dir, "kubeconfig"),
		etcdData:    filepath.Join(dir, "etcd"),
		logs:        filepath.Join(dir, "logs"),
		auditPolicy: filepath.Join(dir, "audit-policy.yaml"),
		auditLog:    filepath.Join(dir, "logs", "audit.log"),
	}
}

// Start brings up a control plane and returns once it can serve tests: the
// apiserver is ready and, in Full mode, every fake Node is Ready with no
// not-ready taint, so pods can be scheduled at once. If any step fails, Start
// stops whatever it started and returns an error that includes the end of the
// failing component's log.
//
// The components keep running after ctx is done; ctx only bounds start-up.
// Call Stop to end them.
func Start(ctx context.Context, opts Options) (_ *ControlPlane, err error) {
	begin := time.Now()
	opts = opts.withDefaults()
	a, err := resolveAssets(opts.AssetsDir, opts.Full)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "ogx-controlplane-")
	if err != nil {
		return nil, fmt.Errorf("creating control-plane directory: %w", err)
	}
	cp := &ControlPlane{opts: opts, assets: a, dir: dir, files: newFiles(dir)}
	defer func() {
		if err != nil {
			err = errors.Join(err, cp.Stop())
		}
	}()

	sec, err := cp.writeSecrets()
	if err != nil {
		return nil, err
	}
	if err := cp.startEtcd(ctx); err != nil {
		return nil, err
	}
	if err := cp.startAPIServer(ctx, sec); err != nil {
		return nil, err
	}
	cp.times.APIServerReady = time.Since(begin)
	if !opts.Full {
		return cp, nil
	}

	for _, start := range []func() error{cp.startControllerManager, cp.startScheduler, cp.startKwok} {
		if err := start(); err != nil {
			return nil, err
		}
	}
	if err := cp.registerNodes(ctx); err != nil {
		return nil, err
	}
	cp.times.NodesReady = time.Since(begin)
	return cp, nil
}

// secrets are what clients need to reach the apiserver as the admin.
type secrets struct {
	token string
	caPEM []byte
}

// writeSecrets creates the directory layout, the CA, the apiserver serving
// certificate, the service-account key pair and the token file holding the
// admin token.
func (cp *ControlPlane) writeSecrets() (secrets, error) {
	for _, d := range []string{filepath.Dir(cp.files.caCert), cp.files.etcdData, cp.files.logs} {
		// etcd insists on an owner-only data directory.
		if err := os.MkdirAll(d, 0o700); err != nil {
			return secrets{}, fmt.Errorf("creating %s: %w", d, err)
		}
	}
	ca, serving, err := servingPair()
	if err != nil {
		return secrets{}, err
	}
	saKey, saPub, err := newServiceAccountKey()
	if err != nil {
		return secrets{}, err
	}
	token, err := randomToken()
	if err != nil {
		return secrets{}, err
	}
	// token,user,uid,"group[,group...]": see the apiserver's --token-auth-file.
	tokens := fmt.Sprintf("%s,%s,%s,\"system:masters\"\n", token, adminUser, adminUser)
	cp.userTokens = make(map[string]string, len(cp.opts.Users)+len(cp.opts.RBACUsers))
	for _, list := range []struct {
		users  []string
		groups string // the token file's optional fourth column
	}{{cp.opts.Users, ",\"system:masters\""}, {cp.opts.RBACUsers, ""}} {
		for _, user := range list.users {
			if err := validUser(user); err != nil {
				return secrets{}, err
			}
			if _, dup := cp.userTokens[user]; dup {
				return secrets{}, fmt.Errorf("user %q is listed twice in Options.Users and Options.RBACUsers", user)
			}
			userToken, err := randomToken()
			if err != nil {
				return secrets{}, err
			}
			cp.userTokens[user] = userToken
			tokens += fmt.Sprintf("%s,%s,%s%s\n", userToken, user, user, list.groups)
		}
	}

	out := map[string][]byte{
		cp.files.caCert:      ca.PEM,
		cp.files.servingCert: serving.CertPEM,
		cp.files.servingKey:  serving.KeyPEM,
		cp.files.saKey:       saKey,
		cp.files.saPub:       saPub,
		cp.files.tokens:      []byte(tokens),
	}
	if len(cp.opts.AuditPolicy) > 0 {
		out[cp.files.auditPolicy] = cp.opts.AuditPolicy
	}
	for path, data := range out {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			return secrets{}, fmt.Errorf("writing %s: %w", path, err)
		}
	}
	return secrets{token: token, caPEM: ca.PEM}, nil
}

// Config returns a client configuration with cluster-admin rights. Each call
// returns a fresh copy, so callers may change it (user agent, rate limits,
// impersonation) without affecting anyone else.
func (cp *ControlPlane) Config() *rest.Config { return rest.CopyConfig(cp.config) }

// Client returns a clientset with cluster-admin rights, shared by all callers.
func (cp *ControlPlane) Client() kubernetes.Interface { return cp.client }

// KubeconfigPath returns the path of a kubeconfig for the admin identity, for
// programs under test and for kubectl while debugging.
func (cp *ControlPlane) KubeconfigPath() string { return cp.files.kubeconfig }

// UserConfig returns a client configuration that authenticates as name, one
// of Options.Users (group system:masters) or RBACUsers, or nil when name is not one of
// them. Like Config, each call returns a fresh copy.
func (cp *ControlPlane) UserConfig(name string) *rest.Config {
	token, ok := cp.userTokens[name]
	if !ok {
		return nil
	}
	cfg := rest.CopyConfig(cp.config)
	cfg.BearerToken = token
	return cfg
}

// UserKubeconfigPath returns the path of a kubeconfig for name, one of
// Options.Users or RBACUsers, written during Start, or "" when name is not
// one of them.
func (cp *ControlPlane) UserKubeconfigPath(name string) string {
	if _, ok := cp.userTokens[name]; !ok {
		return ""
	}
	return cp.userKubeconfig(name)
}

func (cp *ControlPlane) userKubeconfig(name string) string {
	return filepath.Join(cp.dir, "kubeconfig-"+name)
}

// AuditLogPath returns the apiserver's audit log (JSON lines), or "" when
// Options.AuditPolicy is empty.
func (cp *ControlPlane) AuditLogPath() string {
	if len(cp.opts.AuditPolicy) == 0 {
		return ""
	}
	return cp.files.auditLog
}

// Dir returns the control plane's temporary directory. Stop removes it unless
// Options.KeepDir is set.
func (cp *ControlPlane) Dir() string { return cp.dir }

// Full reports whether the controller manager, scheduler and kwok run.
func (cp *ControlPlane) Full() bool { return cp.opts.Full }

// StartupTimes reports how long Start took; see StartupTimes.
func (cp *ControlPlane) StartupTimes() StartupTimes { return cp.times }

// Stop terminates every component, clients before the apiserver and the
// apiserver before etcd so none of them logs errors about a vanished
// dependency, and then removes the directory unless Options.KeepDir is set.
// It is safe to call more than once and from several goroutines; later calls
// return the first call's result.
func (cp *ControlPlane) Stop() error {
	cp.stopOnce.Do(func() { cp.stopErr = cp.stop() })
	return cp.stopErr
}

func (cp *ControlPlane) stop() error {
	procs := cp.procList()
	byName := make(map[string]*process, len(procs))
	for _, p := range procs {
		byName[p.name] = p
	}
	var errs []error
	// Components in one tier do not depend on each other, so stop them in
	// parallel to keep teardown short.
	for _, tier := range [][]string{{Kwok, Scheduler, ControllerManager}, {APIServer}, {Etcd}} {
		var (
			wg sync.WaitGroup
			mu sync.Mutex
		)
		for _, name := range tier {
			p, ok := byName[name]
			if !ok {
				continue
			}
			wg.Go(func() {
				if err := p.stop(cp.opts.StopTimeout); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
			})
		}
		wg.Wait()
	}
	if !cp.opts.KeepDir {
		if err := os.RemoveAll(cp.dir); err != nil {
			errs = append(errs, fmt.Errorf("removing control-plane directory: %w", err))
		}
	}
	return errors.Join(errs...)
}

// track records a started component, replacing an earlier attempt of the
// same component that failed (for example on a port conflict).
func (cp *ControlPlane) track(p *process) {
	cp.procsMu.Lock()
	defer cp.procsMu.Unlock()
	for i, old := range cp.procs {
		if old.name == p.name {
			cp.procs[i] = p
			return
		}
	}
	cp.procs = append(cp.procs, p)
}

// procList returns a copy of the tracked components, safe to range over
// while RestartComponent runs.
func (cp *ControlPlane) procList() []*process {
	cp.procsMu.Lock()
	defer cp.procsMu.Unlock()
	return append([]*process(nil), cp.procs...)
}

// PIDs returns the process ID of every running component by name (Etcd,
// APIServer, ...), for readers of /proc/<pid> such as the benchmark's CPU
// figures. A component restarted later has a new ID: call it again.
func (cp *ControlPlane) PIDs() map[string]int {
	pids := map[string]int{}
	for _, p := range cp.procList() {
		if p.cmd.Process != nil && !p.exited() {
			pids[p.name] = p.cmd.Process.Pid
		}
	}
	return pids
}

// proc returns the tracked component called name, or nil.
func (cp *ControlPlane) proc(name string) *process {
	for _, p := range cp.procList() {
		if p.name == name {
			return p
		}
	}
	return nil
}
