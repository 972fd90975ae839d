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
// informer of every API group and every apply configuration. That made
// the binary half as large again (text 31 MB instead of 20) and its
// resident memory at idle too (63 MiB instead of 41), with no code of ours changed; a diff library used
// to log one debug line was the cause (docs/performance.md, Memory).
func TestBinaryKeepsDeadMethodElimination(t *testing.T) {
	cmd := exec.Command("go", "build", "-ldflags=-dumpdep", "-o", os.DevNull, module+"cmd/ogx-controller")
	var deps bytes.Buffer
	cmd.Stderr = &deps
	if err := cmd.Run(); err != nil {
		t.Fatalf("go build -ldflags=-dumpdep: %v\n%s", err, tail(deps.String()))
	}
	// Each line is "from -> to"; either side may carry flags after the
	// name (" <UsedInIface>", " <ReflectMethod>", or several run together).
	// A function is reported on the line where it first becomes reachable,
	// which may show it only as a callee, so both sides are read.
	marked := map[string]bool{}
	callers := map[string][]string{}
	sc := bufio.NewScanner(&deps)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		from, to, ok := strings.Cut(sc.Text(), " -> ")
		if !ok {
			continue
		}
		fromName, fromMarked := symbol(from)
		toName, toMarked := symbol(to)
		marked[fromName] = marked[fromName] || fromMarked
		marked[toName] = marked[toName] || toMarked
		callers[toName] = append(callers[toName], fromName)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("reading the linker's dependency dump: %v", err)
	}
	if len(callers) == 0 {
		t.Fatal("the linker's dependency dump is empty: -dumpdep may have changed, and this test would pass without checking anything")
	}
	var names []string
	for name, m := range marked {
		if m {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		t.Errorf("%s calls a method by reflection; reached from %s", name, strings.Join(firstN(callers[name], 5), ", "))
	}
	if len(names) > 0 {
		t.Log("remove the dependency that brings it in (go mod why -m, go list -deps), or keep it out of the controller binary")
	}
}

// symbol splits one side of a dependency line into the symbol's name and
// whether its flags include <ReflectMethod>.
func symbol(side string) (name string, reflectMethod bool) {
	name, flags, _ := strings.Cut(side, " <")
	return name, strings.Contains(flags, "ReflectMethod>")
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
