package main

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/ogx-k8s/ogx-controller/test/framework"
)

// result is everything one run measured.
type result struct {
	opts           *options
	machine        string
	commit         string
	controllerArgs []string

	raw rawResult
	ogx ogxResult

	converge         tally // operator requests in [t0, all Ready]
	idle             tally // operator requests in the idle window
	idleFrom, idleTo time.Time

	// registry is what the oci-label variant's registry answered over the
	// whole run; nil in the other variant.
	registry *registryFigures

	rssPeak, anonPeak int64 // bytes
	memFinal          memory
	// memSynced is the operator's memory once its caches had synced,
	// before the first OGXServer; zero when it could not be read.
	memSynced memory

	// rawCPU and ogxCPU are the CPU time of the control plane's components
	// and the bench program in each phase (the ogx phase's also of
	// ogx-controller); rawCPU is nil without a raw phase.
	rawCPU, ogxCPU *cpuWindow
}

// markdown renders the result: a heading with the machine and commit, then
// one two-column table.
func (r *result) markdown() string {
	o := r.opts
	var b strings.Builder
	fmt.Fprintf(&b, "### ogx-controller bench, n=%d, %s (%s)\n\n", o.n, r.variant(), time.Now().UTC().Format("2006-01-02 15:04 MST"))
	fmt.Fprintf(&b, "- machine: %s\n- commit: %s\n", r.machine, r.commit)
	fmt.Fprintf(&b, "- command: `go run ./test/bench %s`\n", strings.Join(o.args, " "))
	fmt.Fprintf(&b, "- ogx-controller flags: `%s`\n\n", strings.Join(r.controllerArgs, " "))

	row := func(k, format string, args ...any) {
		fmt.Fprintf(&b, "| %s | %s |\n", k, fmt.Sprintf(format, args...))
	}
	secs := func(d time.Duration) string { return fmt.Sprintf("%.1f", d.Seconds()) }
	ratio := func(a, base time.Duration) string {
		if base <= 0 {
			return "n/a"
		}
		return fmt.Sprintf("%.2f×", a.Seconds()/base.Seconds())
	}
	b.WriteString("| Figure | Value |\n|---|---|\n")
	row("N", "%d", o.n)
	row("variant", "%s", r.variant())
	if o.raw {
		row("raw create: 4N objects created, s", "%s", secs(r.raw.created))
		row("raw Deployments Available, s", "%s", secs(r.raw.available))
	} else {
		row("raw phase", "skipped (-raw=false)")
	}
	row("ogx OGXServers created, s", "%s", secs(r.ogx.created))
	row("ogx all children exist, s (× raw create)", "%s (%s)", secs(r.ogx.children), ratio(r.ogx.children, r.raw.created))
	var kinds []string
	for _, k := range childKinds {
		kinds = append(kinds, fmt.Sprintf("%s %s", k, secs(r.ogx.perKind[k])))
	}
	row("ogx children by kind (last of N), s", "%s; generated ConfigMaps seen: %d", strings.Join(kinds, ", "), r.ogx.configMaps)
	row("ogx all Deployments Available, s (× raw Available)", "%s (%s)", secs(r.ogx.available), ratio(r.ogx.available, r.raw.available))
	row("ogx all Ready, s (× raw Available)", "%s (%s)", secs(r.ogx.ready), ratio(r.ogx.ready, r.raw.available))
	neg := ""
	if r.ogx.readyBefore > 0 {
		neg = fmt.Sprintf("; %d servers were seen Ready before their Deployment was seen Available", r.ogx.readyBefore)
	}
	row("Available→Ready per server, median / p99, s", "%.2f / %.2f (%d servers%s)", r.ogx.lagMedian, r.ogx.lagP99, r.ogx.lagSamples, neg)
	cpu := "–"
	if d, ok := r.ogxCPU.process(operatorProcess); ok {
		cpu = fmt.Sprintf("%.1f (%.2f)", d.Seconds(), d.Seconds()/r.ogxCPU.wall.Seconds())
	}
	row("operator CPU while converging (first create → all Ready), core-s (cores)", "%s", cpu)
	if o.raw {
		row("raw phase CPU (first create → all Available), core-s (cores): by process", "%s", r.rawCPU.summary(nil))
	}
	versus, lessVersus := "", ""
	if o.raw {
		versus, lessVersus = "; × raw", " (× raw)"
	}
	row("ogx phase CPU (first create → all Ready), core-s (cores"+versus+"): by process", "%s", r.ogxCPU.summary(r.rawCPU))
	less, operators := "the operator's own", []string{operatorProcess}
	if o.follower {
		less, operators = "the operator's and its follower's", append(operators, followerProcess)
	}
	row("ogx phase CPU less "+less+", core-s"+lessVersus, "%s", r.ogxCPU.without(r.rawCPU, operators...))
	for _, c := range r.costRows(requestKinds) {
		row(c[0], "%s", c[1])
	}
	row("operator requests while converging (first create → all Ready)", "%d total, %.2f per server", r.converge.total, float64(r.converge.total)/float64(o.n))
	for _, t := range r.converge.rows() {
		row("&nbsp;&nbsp;"+t.verb+" "+t.resource, "%d (%.2f per server)", t.count, float64(t.count)/float64(o.n))
	}
	idle := idle(r.idle)
	row(fmt.Sprintf("idle %s: writes / non-watch reads (leases excluded)", o.idle), "%d / %d", idle.writes, idle.reads)
	for _, t := range idle.other {
		row("&nbsp;&nbsp;idle "+t.verb+" "+t.resource, "%d", t.count)
	}
	row("&nbsp;&nbsp;idle leases (all verbs, excluded above)", "%d", idle.leases)
	if r.registry != nil {
		row("registry: resolutions of the servers' one tag / all requests (whole run)", "%d / %d", r.registry.tag, r.registry.all)
	}
	row("operator RSS peak / final, MiB", "%.0f / %.0f", mib(r.rssPeak), mib(r.memFinal.rss))
	row("of which anonymous (heap, stacks) peak / final, MiB", "%.0f / %.0f", mib(r.anonPeak), mib(r.memFinal.anon))
	row("of which the executable's pages, final, MiB", "%.0f", mib(r.memFinal.file))
	return b.String()
}

// requestKinds is how many request kinds the report lists per phase.
const requestKinds = 8

// costRows are the cost per server of each phase: the operator's CPU, the
// API server's CPU and the operator's anonymous memory growth, then the
// API server's top request kinds of each phase from its own metrics
// (apimetrics.go). A figure that was not measured is "–".
func (r *result) costRows(top int) [][2]string {
	n := r.opts.n
	ms := func(w *cpuWindow, name string) (float64, bool) {
		d, ok := w.process(name)
		return msPerServer(d, n), ok
	}
	opCPU := "–"
	if v, ok := ms(r.ogxCPU, operatorProcess); ok {
		opCPU = fmt.Sprintf("%.2f", v)
	}
	api := "–"
	ogxAPI, ogxOK := ms(r.ogxCPU, framework.APIServer)
	rawAPI, rawOK := ms(r.rawCPU, framework.APIServer)
	switch {
	case ogxOK && rawOK:
		api = fmt.Sprintf("%.2f / %.2f (%+.2f)", rawAPI, ogxAPI, ogxAPI-rawAPI)
	case ogxOK:
		api = fmt.Sprintf("– / %.2f", ogxAPI)
	}
	mem := "–"
	if r.memSynced.anon > 0 && r.memFinal.anon > 0 {
		mem = fmt.Sprintf("%.1f (%.1f MiB final − %.1f MiB after the caches synced)",
			kibPerServer(r.memFinal.anon, r.memSynced.anon, n), mib(r.memFinal.anon), mib(r.memSynced.anon))
	}
	rows := [][2]string{
		{"cost per server: operator CPU (ogx phase), ms", opCPU},
	}
	if r.opts.follower {
		follower := "–"
		if v, ok := ms(r.ogxCPU, followerProcess); ok {
			follower = fmt.Sprintf("%.2f", v)
		}
		rows = append(rows, [2]string{"cost per server: a follower's CPU (caches and event handlers, no pass), ms", follower})
	}
	rows = append(rows, [][2]string{
		{"cost per server: API server CPU, ms: raw / ogx (ogx − raw)", api},
		{"cost per server: operator anonymous memory, KiB", mem},
	}...)
	for _, phase := range []struct {
		name string
		w    *cpuWindow
	}{{"raw", r.rawCPU}, {"ogx", r.ogxCPU}} {
		if phase.w == nil {
			continue
		}
		costs := phase.w.requestCosts()
		if costs == nil {
			rows = append(rows, [2]string{"API server requests by kind, " + phase.name + " phase", "–"})
			continue
		}
		rows = append(rows, [2]string{"API server requests by kind, " + phase.name + " phase (top " + fmt.Sprint(top) + " by duration), per server",
			"requests, summed request duration (latency, not CPU) and the API server's CPU split by that duration"})
		for _, k := range requestKindRows(costs, n, top) {
			rows = append(rows, [2]string{"&nbsp;&nbsp;" + phase.name + " " + k[0], k[1]})
		}
	}
	return rows
}

func (r *result) variant() string {
	v := fmt.Sprintf("probe=%s, unrelated=%d, workers=%d, distribution=%s", r.opts.probe, r.opts.unrelated, r.opts.workers, r.opts.distribution)
	if !r.opts.raw {
		v += ", no raw phase"
	}
	if r.opts.follower {
		v += ", with a follower"
	}
	return v
}

// registryFigures counts the oci-label variant's registry requests.
type registryFigures struct{ tag, all int }

func mib(b int64) float64 { return float64(b) / (1 << 20) }

// machineFacts describes the host: CPUs, memory and CPU model.
func machineFacts() string {
	facts := fmt.Sprintf("%d CPUs", runtime.NumCPU())
	if data, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			var kb int64
			if _, err := fmt.Sscanf(line, "MemTotal: %d kB", &kb); err == nil {
				facts += fmt.Sprintf(", %.1f GiB memory", float64(kb)/(1<<20))
			}
		}
	}
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				facts += ", " + strings.TrimSpace(v)
				break
			}
		}
	}
	return facts + ", " + runtime.GOOS + "/" + runtime.GOARCH
}

// gitCommit is the short HEAD commit, marked -dirty when the tree has
// changes (which the measured binary may or may not contain).
func gitCommit() string {
	out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	commit := strings.TrimSpace(string(out))
	status, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output()
	if err == nil && len(strings.TrimSpace(string(status))) > 0 {
		commit += "-dirty"
	}
	return commit
}
