// Package layering checks that the module's packages import downward only.
// It runs in make verify (and make test) and needs only the go command.
package layering

import (
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/ogx-k8s/ogx-controller/"

// layers orders the production packages, lowest first, by path: a prefix
// ending in "/" covers the packages below it, any other names one package
// and its sub-packages (the longest match wins). A package, and its tests,
// may import module packages of its own layer or below, never above and
// never one without a layer; nothing under pkg/ or cmd/ imports test/, and
// nothing imports cmd/. test/ and hack/ hold tests and tools, which may
// import anything.
var layers = []struct {
	layer    int
	prefixes []string
}{
	// Leaves: the API types and helpers that know nothing of the rest, and
	// the checks of the install manifests (config).
	{0, []string{"pkg/apis/", "pkg/fence", "pkg/contenthash", "pkg/manifest", "pkg/tlsserve", "pkg/configgen/oci", "pkg/admission/admissiontest", "pkg/certgen", "pkg/testcerts", "pkg/webhookcerts", "pkg/crdvalidate", "config"}},
	// Generated clients, listers and informers of the API types.
	{1, []string{"pkg/generated/"}},
	// Pure libraries: config generation, rendering, validation and its
	// HTTP server, metrics.
	{2, []string{"pkg/configgen", "pkg/render", "pkg/admission", "pkg/metrics"}},
	// The legacy migration, and the resolver of an OGXServer's inputs
	// shared by the controllers and render.
	{3, []string{"pkg/migrate", "pkg/resolve"}},
	// The controllers' shared mechanism: the per-server record, the worker
	// loop, Events, the applier, the informer caches and the server probe.
	// They know no controller.
	{4, []string{"pkg/controller/record", "pkg/controller/worker", "pkg/controller/events", "pkg/controller/apply", "pkg/controller/caches", "pkg/controller/probe"}},
	// What every controller is built from: the options and shared
	// dependencies, the pass every child controller runs, outcomes, the
	// resolver of a server's inputs and the adoption helpers; and the
	// controllers' test harness, built on it.
	{5, []string{"pkg/controller/base", "pkg/controller/controllertest"}},
	// The controllers, one package each (controllers below).
	{6, controllers},
	// The manager that lists and runs them.
	{7, []string{"pkg/controller"}},
	// Programs.
	{8, []string{"cmd/"}},
}

// controllers are the controller packages. None imports another: they
// coordinate through the API's objects, the caches and the per-server
// record of package base, never through each other's code.
var controllers = []string{
	"pkg/controller/configmap", "pkg/controller/pvc", "pkg/controller/service", "pkg/controller/networkpolicy",
	"pkg/controller/deployment", "pkg/controller/hpa", "pkg/controller/pdb", "pkg/controller/ingress",
	"pkg/controller/monitoring", "pkg/controller/status",
}

// forbidden are imports the layers alone would allow but the design does
// not: config generation is a library of its own, used by the controller
// and the render command, and knows nothing of either; the controllers
// and migrate validate with pkg/apis/ogx/v1beta1/validation, not through
// the webhook's package.
var forbidden = []struct{ from, to string }{
	{"pkg/configgen", "pkg/controller"},
	// The validator is a leaf of the API; the webhook's HTTP server is
	// for the binary alone.
	{"pkg/controller", "pkg/admission"},
	{"pkg/migrate", "pkg/admission"},
	// Rendering is pure: spec and resolved inputs in, desired objects out.
	// It knows neither who resolves the inputs nor who applies the result.
	{"pkg/render", "pkg/resolve"},
	{"pkg/render", "pkg/controller"},
	{"pkg/render", "pkg/configgen"},
}

// layerOf returns the layer of a module-relative package path, or -1.
func layerOf(pkg string) int {
	best, bestLen := -1, -1
	for _, l := range layers {
		for _, p := range l.prefixes {
			base := strings.TrimSuffix(p, "/")
			if (pkg == base || strings.HasPrefix(pkg, base+"/")) && len(p) > bestLen {
				best, bestLen = l.layer, len(p)
			}
		}
	}
	return best
}

// moduleImports runs go list over the module with format (which must print
// a package's path and then its imports, space-separated) and returns one
// field list per package.
func moduleImports(t *testing.T, format string) [][]string {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", format, module+"...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs [][]string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkgs = append(pkgs, strings.Fields(line))
	}
	return pkgs
}

// violations returns what is wrong with the module imports of one package
// (module-relative paths): an import of a higher layer, of a package
// without a layer, of test/ or cmd/, a forbidden import, or one controller
// package importing another.
func violations(pkg string, imports []string) []string {
	from := layerOf(pkg)
	if from < 0 {
		return []string{pkg + " has no layer: add it to layers"}
	}
	var out []string
	for _, dep := range imports {
		switch to := layerOf(dep); {
		case strings.HasPrefix(dep, "test/") || strings.HasPrefix(dep, "cmd/"):
			out = append(out, fmt.Sprintf("%s imports %s", pkg, dep))
		case to < 0:
			out = append(out, fmt.Sprintf("%s imports %s, which has no layer", pkg, dep))
		case to > from:
			out = append(out, fmt.Sprintf("%s (layer %d) imports %s (layer %d): layers import downward only", pkg, from, dep, to))
		}
		for _, f := range forbidden {
			if strings.HasPrefix(pkg, f.from) && strings.HasPrefix(dep, f.to) {
				out = append(out, fmt.Sprintf("%s imports %s: %s must not depend on %s", pkg, dep, f.from, f.to))
			}
		}
		if a, b := controllerOf(pkg), controllerOf(dep); a != "" && b != "" && a != b {
			out = append(out, fmt.Sprintf("%s imports %s: a controller package never imports another", pkg, dep))
		}
	}
	return out
}

// controllerOf returns the controller package pkg belongs to, or "".
func controllerOf(pkg string) string {
	for _, c := range controllers {
		if pkg == c || strings.HasPrefix(pkg, c+"/") {
			return c
		}
	}
	return ""
}

func TestImportsPointDown(t *testing.T) {
	checked := 0
	for _, fields := range moduleImports(t, `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}{{range .TestImports}} {{.}}{{end}}{{range .XTestImports}} {{.}}{{end}}`) {
		pkg := strings.TrimPrefix(fields[0], module)
		if strings.HasPrefix(pkg, "test/") || strings.HasPrefix(pkg, "hack/") {
			continue
		}
		checked++
		var imports []string
		for _, imp := range fields[1:] {
			if strings.HasPrefix(imp, module) {
				imports = append(imports, strings.TrimPrefix(imp, module))
			}
		}
		for _, v := range violations(pkg, imports) {
			t.Error(v)
		}
	}
	if checked < 10 {
		t.Fatalf("checked only %d packages; is the module path right?", checked)
	}
}

// TestViolationsCatchBadImports feeds the check the imports it exists to
// refuse, so a rule that stopped matching fails here rather than passing
// silently over the real module.
func TestViolationsCatchBadImports(t *testing.T) {
	for _, tc := range []struct{ pkg, dep string }{
		{"pkg/controller/deployment", "pkg/controller/service"},
		{"pkg/controller/status", "pkg/controller/configmap"},
		{"pkg/controller/ingress", "pkg/controller/service"},
		{"pkg/render", "pkg/controller/base"},
		{"pkg/render", "pkg/resolve"},
		{"pkg/resolve", "pkg/controller/base"},
		{"pkg/controller/base", "pkg/controller/deployment"},
		{"pkg/controller/caches", "pkg/controller/base"},
		{"pkg/controller/deployment", "pkg/controller"},
		{"pkg/controller", "cmd/ogx-controller"},
	} {
		if v := violations(tc.pkg, []string{tc.dep}); len(v) == 0 {
			t.Errorf("%s importing %s passes the check", tc.pkg, tc.dep)
		}
	}
	for _, tc := range []struct{ pkg, dep string }{
		{"pkg/controller/deployment", "pkg/controller/base"},
		{"pkg/controller", "pkg/controller/deployment"},
		{"pkg/controller/status", "pkg/controller/probe"},
		{"pkg/controller/monitoring", "pkg/controller/controllertest"},
	} {
		if v := violations(tc.pkg, []string{tc.dep}); len(v) != 0 {
			t.Errorf("%s importing %s is refused: %v", tc.pkg, tc.dep, v)
		}
	}
}

// testOnly are packages made for tests: throwaway certificates, the
// admission test fixtures, the probe's loopback stand-in server and the
// controllers' fake-clientset harness. Production code must not link them.
var testOnly = []string{"pkg/testcerts", "pkg/admission/admissiontest", "pkg/controller/probe/probetest", "pkg/controller/controllertest"}

// TestTestHelpersStayInTests fails when a package outside test/ and hack/
// imports a test-only package from its non-test files.
func TestTestHelpersStayInTests(t *testing.T) {
	checked := 0
	for _, fields := range moduleImports(t, `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`) {
		pkg := strings.TrimPrefix(fields[0], module)
		if strings.HasPrefix(pkg, "test/") || strings.HasPrefix(pkg, "hack/") || slices.Contains(testOnly, pkg) {
			continue
		}
		checked++
		for _, imp := range fields[1:] {
			if dep := strings.TrimPrefix(imp, module); slices.Contains(testOnly, dep) {
				t.Errorf("%s imports %s outside its tests: it is for tests only", pkg, dep)
			}
		}
	}
	if checked < 10 {
		t.Fatalf("checked only %d packages; is the module path right?", checked)
	}
}

// TestLayerOf pins the prefix rule the check depends on.
func TestLayerOf(t *testing.T) {
	for pkg, want := range map[string]int{
		"pkg/controller/base":               5,
		"pkg/controller/record":             4,
		"pkg/controller/worker":             4,
		"pkg/render":                        2,
		"pkg/configgen":                     2,
		"pkg/configgen/oci":                 0,
		"pkg/resolve":                       3,
		"pkg/generated/clientset/versioned": 1,
		"pkg/apis/ogx/v1beta1":              0,
		"cmd/ogx-controller":                8,
		"pkg/unknown":                       -1,
	} {
		if got := layerOf(pkg); got != want {
			t.Errorf("layerOf(%s) = %d, want %d", pkg, got, want)
		}
	}
}
