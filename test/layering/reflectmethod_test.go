package layering

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestBinaryKeepsDeadMethodElimination links ogx-controller and fails if
// any reachable function calls a method through reflection by a name the
// linker cannot see (reflect.Value.Method, a MethodByName with a computed
// name, Type.Method: the linker marks them <ReflectMethod>).
//
// One such call anywhere makes the linker keep every exported method of
// every type that reaches an interface: every typed client, lister and
// informer of every API group and every apply configuration. That doubled
// the binary (text 31 MB instead of 20) and its resident memory at idle
// (63 MiB instead of 41), with no code of ours changed; a diff library used
// to log one debug line was the cause (docs/performance.md, Profiles).
func TestBinaryKeepsDeadMethodElimination(t *testing.T) {
	cmd := exec.Command("go", "build", "-ldflags=-dumpdep", "-o", os.DevNull, module+"cmd/ogx-controller")
	var deps bytes.Buffer
	cmd.Stderr = &deps
	if err := cmd.Run(); err != nil {
		t.Fatalf("go build -ldflags=-dumpdep: %v\n%s", err, tail(deps.String()))
	}
	// Each line is "from -> to"; a function marked <ReflectMethod> is
	// reachable and calls a method by reflection.
	marked := map[string]bool{}
	callers := map[string][]string{}
	sc := bufio.NewScanner(&deps)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		from, to, ok := strings.Cut(sc.Text(), " -> ")
		if !ok {
			continue
		}
		if name, isMarked := strings.CutSuffix(from, " <ReflectMethod>"); isMarked {
			marked[name] = true
		}
		to = strings.TrimSuffix(to, " <ReflectMethod>")
		callers[to] = append(callers[to], strings.TrimSuffix(from, " <ReflectMethod>"))
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("reading the linker's dependency dump: %v", err)
	}
	if len(callers) == 0 {
		t.Fatal("the linker's dependency dump is empty: -dumpdep may have changed, and this test would pass without checking anything")
	}
	names := make([]string, 0, len(marked))
	for name := range marked {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		t.Errorf("%s calls a method by reflection; reached from %s", name, strings.Join(firstN(callers[name], 5), ", "))
	}
	if len(names) > 0 {
		t.Log("remove the dependency that brings it in (go mod why -m, go list -deps), or keep it out of the controller binary")
	}
}

func firstN(s []string, n int) []string {
	s = slices.Compact(slices.Sorted(slices.Values(s)))
	if len(s) > n {
		return append(s[:n], "...")
	}
	return s
}

func tail(s string) string {
	if len(s) > 4000 {
		return "..." + s[len(s)-4000:]
	}
	return s
}
