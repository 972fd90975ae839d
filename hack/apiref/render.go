package main

import (
	"fmt"
	"go/ast"
	"regexp"
	"strings"
)

// root is an API kind whose reference starts a section; the types it
// reaches follow it in the order they are first reached.
type root struct {
	pkg  *apiPackage
	kind string
}

// render writes the Markdown reference of roots.
func render(b *strings.Builder, title, intro string, roots []root) error {
	fmt.Fprintf(b, "# %s\n\n%s\n", title, intro)
	for _, r := range roots {
		order, err := reachable(r.pkg, r.kind)
		if err != nil {
			return err
		}
		gv := r.pkg.Group + "/" + r.pkg.Version
		fmt.Fprintf(b, "\n## %s\n\nTypes, in the order they are reached from `%s`:\n\n", gv, r.kind)
		for _, name := range order {
			fmt.Fprintf(b, "- [%s](#%s)\n", name, anchor(r.pkg, name))
		}
		for _, name := range order {
			renderType(b, r.pkg, r.pkg.types[name], name == r.kind)
		}
	}
	return nil
}

// reachable lists the package's types reached from kind, breadth first.
func reachable(p *apiPackage, kind string) ([]string, error) {
	if _, ok := p.types[kind]; !ok {
		return nil, fmt.Errorf("%s/%s has no type %s", p.Group, p.Version, kind)
	}
	seen := map[string]bool{kind: true}
	order := []string{kind}
	for i := 0; i < len(order); i++ {
		// Inline embedded structs are not sections of their own: their
		// fields are listed in the types that embed them.
		for _, f := range flatten(p, p.types[order[i]].Fields) {
			ast.Inspect(f.Type, func(n ast.Node) bool {
				switch x := n.(type) {
				case *ast.SelectorExpr:
					return false // another package's type
				case *ast.Ident:
					if _, local := p.types[x.Name]; local && !seen[x.Name] {
						seen[x.Name] = true
						order = append(order, x.Name)
					}
				}
				return true
			})
		}
	}
	return order, nil
}

func anchor(p *apiPackage, name string) string {
	return strings.ToLower(strings.ReplaceAll(p.Group, ".", "-") + "-" + p.Version + "-" + name)
}

func renderType(b *strings.Builder, p *apiPackage, t *apiType, isRoot bool) {
	fmt.Fprintf(b, "\n<a id=\"%s\"></a>\n\n### %s\n\n", anchor(p, t.Name), t.Name)
	if isRoot {
		fmt.Fprintf(b, "`apiVersion: %s/%s`, `kind: %s`\n\n", p.Group, p.Version, t.Name)
	}
	if t.Doc != "" {
		fmt.Fprintf(b, "%s\n\n", escapeText(t.Doc))
	}
	if !t.IsStruct {
		fmt.Fprintf(b, "Underlying type: `%s`.", t.Underlying)
		if v := constraints(t.Markers); v != "" {
			fmt.Fprintf(b, " %s", v)
		}
		b.WriteString("\n")
		return
	}
	if rules := rules(t.Markers); len(rules) > 0 {
		b.WriteString("Rules checked by the API server:\n\n")
		for _, r := range rules {
			fmt.Fprintf(b, "- %s\n", r)
		}
		b.WriteString("\n")
	}
	fields := flatten(p, t.Fields)
	if len(fields) == 0 {
		b.WriteString("No fields.\n")
		return
	}
	b.WriteString("| Field | Type | Description |\n|---|---|---|\n")
	for _, f := range fields {
		desc := cell(escapeText(f.Doc))
		if c := fieldNotes(f.Markers); c != "" {
			desc = strings.TrimSpace(desc + "<br><br>" + c)
		}
		fmt.Fprintf(b, "| `%s` | %s | %s |\n", f.JSONName, typeString(p, f.Type), desc)
	}
}

// flatten replaces inline embedded structs of the package by their fields;
// embedded types of other packages (TypeMeta) are wire metadata that the
// root's apiVersion and kind line already shows.
func flatten(p *apiPackage, fields []apiField) []apiField {
	var out []apiField
	for _, f := range fields {
		if !f.Inline {
			out = append(out, f)
			continue
		}
		if id, ok := deref(f.Type).(*ast.Ident); ok {
			if t, local := p.types[id.Name]; local {
				out = append(out, flatten(p, t.Fields)...)
			}
		}
	}
	return out
}

func deref(e ast.Expr) ast.Expr {
	if s, ok := e.(*ast.StarExpr); ok {
		return s.X
	}
	return e
}

// typeString renders a field type: local types link to their section,
// other packages' types are named with their import path.
func typeString(p *apiPackage, e ast.Expr) string {
	switch x := e.(type) {
	case *ast.StarExpr:
		return typeString(p, x.X)
	case *ast.ArrayType:
		return "[]" + typeString(p, x.Elt)
	case *ast.MapType:
		return "map[" + typeString(p, x.Key) + "]" + typeString(p, x.Value)
	case *ast.Ident:
		if _, local := p.types[x.Name]; local {
			return fmt.Sprintf("[%s](#%s)", x.Name, anchor(p, x.Name))
		}
		return "`" + x.Name + "`"
	case *ast.SelectorExpr:
		pkg := x.X.(*ast.Ident).Name
		if path, ok := p.imports[pkg]; ok {
			return fmt.Sprintf("`%s` (%s)", x.Sel.Name, path)
		}
		return "`" + pkg + "." + x.Sel.Name + "`"
	}
	return "`?`"
}

// fieldNotes summarises a field's markers: required or optional, default,
// bounds and rules.
func fieldNotes(ms []marker) string {
	var parts []string
	for _, m := range ms {
		switch m.Name {
		case "required", "kubebuilder:validation:Required":
			parts = append(parts, "Required.")
		case "optional", "kubebuilder:validation:Optional":
			parts = append(parts, "Optional.")
		case "kubebuilder:default":
			parts = append(parts, "Default: `"+m.Value+"`.")
		}
	}
	if c := constraints(ms); c != "" {
		parts = append(parts, c)
	}
	for _, r := range rules(ms) {
		parts = append(parts, "Rule: "+r)
	}
	return strings.Join(parts, " ")
}

// boundNames phrase the validation markers that bound a value.
var boundNames = map[string]string{
	"Minimum": "minimum %s", "Maximum": "maximum %s",
	"ExclusiveMinimum": "exclusive minimum %s", "ExclusiveMaximum": "exclusive maximum %s",
	"MinLength": "at least %s characters", "MaxLength": "at most %s characters",
	"MinItems": "at least %s items", "MaxItems": "at most %s items",
	"MinProperties": "at least %s entries", "MaxProperties": "at most %s entries",
	"Pattern": "matches `%s`", "Format": "format %s", "MultipleOf": "a multiple of %s",
}

// constraints phrases the bound and enum markers, for the value itself and
// (items:) for each item of a list.
func constraints(ms []marker) string {
	var parts []string
	for _, m := range ms {
		name, ok := strings.CutPrefix(m.Name, "kubebuilder:validation:")
		if !ok {
			continue
		}
		prefix := ""
		if rest, items := strings.CutPrefix(name, "items:"); items {
			name, prefix = rest, "each item "
		}
		switch {
		case name == "Enum":
			vals := strings.Split(m.Value, ";")
			for i, v := range vals {
				vals[i] = "`" + strings.Trim(v, `"`) + "`"
			}
			parts = append(parts, prefix+"one of "+strings.Join(vals, ", "))
		case boundNames[name] != "":
			phrase := boundNames[name]
			if m.Value == "1" { // "at least 1 item", not "1 items"
				phrase = strings.NewReplacer("items", "item", "entries", "entry", "characters", "character").Replace(phrase)
			}
			phrase = fmt.Sprintf(phrase, strings.Trim(m.Value, "`"))
			parts = append(parts, prefix+phrase)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	s := strings.Join(parts, "; ")
	return strings.ToUpper(s[:1]) + s[1:] + "."
}

var messageRE = regexp.MustCompile(`message="((?:[^"\\]|\\.)*)"`)
var ruleRE = regexp.MustCompile(`^"((?:[^"\\]|\\.)*)"`)

// rules lists the CEL rules (XValidation markers) by their messages, or
// by the rule where it has none.
func rules(ms []marker) []string {
	var out []string
	for _, m := range ms {
		if m.Name != "kubebuilder:validation:XValidation:rule" {
			continue
		}
		if msg := messageRE.FindStringSubmatch(m.Value); msg != nil {
			out = append(out, escapeText(strings.ReplaceAll(msg[1], `\"`, `"`)))
		} else if r := ruleRE.FindStringSubmatch(m.Value); r != nil {
			out = append(out, "`"+strings.ReplaceAll(r[1], `\"`, `"`)+"`")
		}
	}
	return out
}

// escapeText makes prose safe in Markdown outside code spans: < and > are
// not taken as HTML, | does not end a table cell.
func escapeText(s string) string {
	var b strings.Builder
	inCode := false
	for _, r := range s {
		switch {
		case r == '`':
			inCode = !inCode
			b.WriteRune(r)
		case r == '|':
			b.WriteString(`\|`)
		case !inCode && r == '<':
			b.WriteString("&lt;")
		case !inCode && r == '>':
			b.WriteString("&gt;")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// cell puts paragraphs on one table row.
func cell(s string) string {
	return strings.ReplaceAll(s, "\n\n", "<br><br>")
}
