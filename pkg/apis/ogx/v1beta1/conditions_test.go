package v1beta1

import (
	"os"
	"regexp"
	"slices"
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
