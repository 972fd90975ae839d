package crd

// allowance explains one difference between upstream's CRD and ours as a
// deliberate, compatible choice. It matches a difference only when CRD, Path
// and Kind are equal and, for an attribute, both values are equal too: an
// entry for "maximum: upstream 10, ours 20" does not cover a later change to
// 30. Each entry covers exactly one difference; an entry that covers none is
// stale and fails the test, so the list cannot outlive what it explains.
type allowance struct {
	CRD      string
	Path     string
	Kind     string // kindAdded, kindRemoved or the attribute's name
	Upstream string // the attribute's value in upstream's CRD; "" for added/removed
	Ours     string // the attribute's value in ours; "" for added/removed
	Reason   string // why the difference breaks no manifest written for upstream
}

func (a allowance) String() string {
	d := difference{CRD: a.CRD, Path: a.Path, Kind: a.Kind, Upstream: a.Upstream, Ours: a.Ours}
	return d.String()
}

func (a allowance) matches(d difference) bool {
	return a.CRD == d.CRD && a.Path == d.Path && a.Kind == d.Kind &&
		a.Upstream == d.Upstream && a.Ours == d.Ours
}

// checkAllowed splits diffs into those no entry of allowed explains, and
// returns the entries that explain no difference.
func checkAllowed(diffs []difference, allowed []allowance) (unexplained []difference, stale []allowance) {
	used := make([]bool, len(allowed))
	for _, d := range diffs {
		i := firstUnused(allowed, used, d)
		if i < 0 {
			unexplained = append(unexplained, d)
			continue
		}
		used[i] = true
	}
	for i, a := range allowed {
		if !used[i] {
			stale = append(stale, a)
		}
	}
	return unexplained, stale
}

// firstUnused returns the index of the first entry not yet used that
// matches d, or -1. A duplicate entry thus stays unused and is reported.
func firstUnused(allowed []allowance, used []bool, d difference) int {
	for i, a := range allowed {
		if !used[i] && a.matches(d) {
			return i
		}
	}
	return -1
}

const (
	ogxServers = "ogxservers.ogx.io"
	llamaStack = "llamastackdistributions.llamastack.io"
)

// upstreamAllowed is every known difference from upstream's CRDs
// (testdata/upstream), each with the reason it is compatible.
var upstreamAllowed = concat(
	[]allowance{
		{
			CRD: ogxServers, Path: "crd", Kind: "names.shortNames", Upstream: "", Ours: "ogx",
			Reason: "an extra name for kubectl (kubectl get ogx); the kind, plural and singular are upstream's",
		},
		{
			CRD: ogxServers, Path: "crd", Kind: "names.categories", Upstream: "", Ours: "ogx",
			Reason: "a category only groups kinds for kubectl get (kubectl get ogx); it is not all, so kubectl get all " +
				"and kubectl delete all leave OGXServers alone (docs/user-guide.md, Finding servers)",
		},
		{
			CRD: ogxServers, Path: "v1beta1", Kind: "subresources.scale", Upstream: "",
			Ours: "spec=.spec.workload.replicas status=.status.replicas selector=.status.selector",
			Reason: "the scale subresource adds an endpoint (kubectl scale, an HPA targeting the server); it reads and " +
				"writes spec.workload.replicas, an upstream field with upstream's default, and changes no manifest's meaning",
		},
		{
			CRD: ogxServers, Path: "v1beta1 status.replicas", Kind: kindAdded,
			Reason: "status is written by the controller, never by a manifest; the scale subresource's status.replicas",
		},
		{
			CRD: ogxServers, Path: "v1beta1 status.selector", Kind: kindAdded,
			Reason: "status is written by the controller, never by a manifest; the scale subresource's label selector",
		},
		{
			CRD: ogxServers, Path: `v1beta1 column "Ready"`, Kind: kindAdded,
			Reason: "a printer column changes only what kubectl get shows, not what a manifest may contain",
		},
		{
			CRD: ogxServers, Path: "v1beta1 status.observedGeneration", Kind: kindAdded,
			Reason: "status is written by the controller, never by a manifest; the field is optional",
		},
		{
			CRD: ogxServers, Path: "v1beta1 status.resolvedDistribution.lastHandledRecheck", Kind: kindAdded,
			Reason: "status is written by the controller, never by a manifest; it echoes the recheck annotation it handled",
		},
	},
	newerCoreFields(ogxServers, "v1beta1 spec.workload.overrides"),
	newerCoreFields(llamaStack, "v1alpha1 spec.server.podOverrides"),
)

// newerCoreFieldPaths are optional fields of core/v1 volume and mount types
// that our k8s.io/api (v0.37 when written) has and the one upstream generated its CRDs
// from does not. They sit inside the embedded pod overrides, relative to the
// overrides' path.
var newerCoreFieldPaths = []string{
	"volumeMounts[].bindMountOptions",
	"volumes[].configMap.defaultUser",
	"volumes[].configMap.items[].user",
	"volumes[].downwardAPI.defaultUser",
	"volumes[].downwardAPI.items[].user",
	"volumes[].emptyDir.mode",
	"volumes[].projected.defaultUser",
	"volumes[].projected.sources[].clusterTrustBundle.user",
	"volumes[].projected.sources[].configMap.items[].user",
	"volumes[].projected.sources[].downwardAPI.items[].user",
	"volumes[].projected.sources[].podCertificate.user",
	"volumes[].projected.sources[].secret.items[].user",
	"volumes[].projected.sources[].serviceAccountToken.user",
	"volumes[].secret.defaultUser",
	"volumes[].secret.items[].user",
}

// newerCoreFields allows, for the pod overrides at prefix in crd, each field
// of newerCoreFieldPaths as an addition.
func newerCoreFields(crd, prefix string) []allowance {
	out := make([]allowance, len(newerCoreFieldPaths))
	for i, p := range newerCoreFieldPaths {
		out[i] = allowance{
			CRD: crd, Path: prefix + "." + p, Kind: kindAdded,
			Reason: "optional core/v1 field of the newer k8s.io/api we build against (go.mod); upstream's " +
				"older k8s.io/api lacks it, and every manifest valid for upstream stays valid",
		}
	}
	return out
}

func concat(lists ...[]allowance) []allowance {
	var out []allowance
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}
