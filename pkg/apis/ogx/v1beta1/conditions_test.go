package v1beta1

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// statusDoc is the user documentation of status, conditions and events.
const statusDoc = "../../../../docs/status.md"

// docSection returns the text of the section of doc under heading (a whole
// "### ..." line) up to the next heading of any level.
func docSection(t *testing.T, doc, heading string) string {
	t.Helper()
	_, rest, ok := strings.Cut(doc, "\n"+heading+"\n")
	if !ok {
		t.Fatalf("%s: no section %q", statusDoc, heading)
	}
	if i := strings.Index(rest, "\n#"); i >= 0 {
		rest = rest[:i]
	}
	return rest
}

var backticked = regexp.MustCompile("`([A-Za-z]+)`")

// tableRows returns the cells of the Markdown table rows of section,
// header and separator rows left out.
func tableRows(section string) [][]string {
	var rows [][]string
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "|---") {
			continue
		}
		var cells []string
		for _, c := range strings.Split(strings.Trim(line, "|"), "|") {
			cells = append(cells, strings.TrimSpace(c))
		}
		rows = append(rows, cells)
	}
	return rows[1:] // the header
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return slices.Compact(s)
}

// TestConditionReasonsMatchTheDocs: docs/status.md's "Reasons by condition"
// table lists exactly ConditionReasons(), type by type, so what users read
// is what the API promises and the status tests enforce.
func TestConditionReasonsMatchTheDocs(t *testing.T) {
	data, err := os.ReadFile(statusDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	want := ConditionReasons()
	seen := map[string]bool{}
	for _, row := range tableRows(docSection(t, doc, "### Reasons by condition")) {
		m := backticked.FindStringSubmatch(row[0])
		if m == nil || len(row) != 2 {
			t.Errorf("row %q: want | `Type` | reasons |", row)
			continue
		}
		typ := m[1]
		seen[typ] = true
		var documented []string
		for _, r := range backticked.FindAllStringSubmatch(row[1], -1) {
			documented = append(documented, r[1])
		}
		if strings.Contains(row[1], "the terminal reasons") {
			documented = append(documented, TerminalReasons()...)
		}
		reasons, ok := want[typ]
		if !ok {
			t.Errorf("docs list condition %s, ConditionReasons() does not", typ)
			continue
		}
		if got, exp := sorted(documented), sorted(reasons); !slices.Equal(got, exp) {
			t.Errorf("%s: docs list %v, ConditionReasons() %v", typ, got, exp)
		}
	}
	for typ := range want {
		if !seen[typ] {
			t.Errorf("condition %s has no row in the docs' Reasons by condition", typ)
		}
	}
}

// TestTerminalReasonsMatchTheDocs: the Reason column of docs/status.md's
// "Terminal reasons" table is TerminalReasons(), in order.
func TestTerminalReasonsMatchTheDocs(t *testing.T) {
	data, err := os.ReadFile(statusDoc)
	if err != nil {
		t.Fatal(err)
	}
	var documented []string
	for _, row := range tableRows(docSection(t, string(data), "### Terminal reasons")) {
		for _, r := range backticked.FindAllStringSubmatch(row[len(row)-1], -1) {
			documented = append(documented, r[1])
		}
	}
	if !slices.Equal(documented, TerminalReasons()) {
		t.Errorf("docs' terminal reasons %v, TerminalReasons() %v", documented, TerminalReasons())
	}
}

// TestEventReasonsDocumented: docs/status.md's Events section names every
// Event reason: each Event* constant of events.go (read from the source, so
// a new constant cannot be missed), and the condition reasons Events reuse
// for the same cause.
func TestEventReasonsDocumented(t *testing.T) {
	data, err := os.ReadFile(statusDoc)
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string]bool{}
	for _, m := range backticked.FindAllStringSubmatch(docSection(t, string(data), "## Events"), -1) {
		documented[m[1]] = true
	}
	f, err := parser.ParseFile(token.NewFileSet(), "events.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var reasons []string
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, spec := range gd.Specs {
			for i, name := range spec.(*ast.ValueSpec).Names {
				if lit, ok := spec.(*ast.ValueSpec).Values[i].(*ast.BasicLit); ok && strings.HasPrefix(name.Name, "Event") {
					v, _ := strconv.Unquote(lit.Value)
					reasons = append(reasons, v)
				}
			}
		}
	}
	if len(reasons) < 10 {
		t.Fatalf("found %d Event constants in events.go: the parse went wrong", len(reasons))
	}
	// Condition reasons an Event reuses: a child controller's user error
	// (AdoptionConfigInvalid is sent as AdoptionInvalid; DeploymentFailed
	// is read from the Deployment, no controller's error), and the adoption
	// and health flips.
	for _, r := range TerminalReasons() {
		if r != ReasonAdoptionConfigInvalid && r != ReasonDeploymentFailed {
			reasons = append(reasons, r)
		}
	}
	reasons = append(reasons, ReasonStorageAdopted, ReasonNetworkingAdopted, ReasonHealthCheckPassed, ReasonHealthCheckFailed)
	for _, r := range reasons {
		if !documented[r] {
			t.Errorf("Event reason %s is not in docs/status.md, Events", r)
		}
	}
}
