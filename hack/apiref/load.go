package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// apiPackage is one API group version as read from its Go source.
type apiPackage struct {
	// Group and Version come from the package's +groupName marker and
	// directory name (the same sources controller-gen uses).
	Group, Version string
	types          map[string]*apiType
	imports        map[string]string // import name → path
}

// apiType is a named type of the package: a struct, or a named basic type
// (a string enum, say).
type apiType struct {
	Name    string
	Doc     string
	Markers []marker
	// Underlying is the basic type of a non-struct type ("string").
	Underlying string
	Fields     []apiField
	IsStruct   bool
}

// apiField is a field as it appears on the wire.
type apiField struct {
	JSONName string
	Type     ast.Expr
	Doc      string
	Markers  []marker
	// Inline marks an embedded struct whose fields are the parent's.
	Inline bool
}

// marker is a +name=value comment line, without the +.
type marker struct{ Name, Value string }

// loadPackage parses the non-test, non-generated Go files of dir.
func loadPackage(dir string) (*apiPackage, error) {
	fset := token.NewFileSet()
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	p := &apiPackage{Version: filepath.Base(dir), types: map[string]*apiType{}, imports: map[string]string{}}
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") || strings.HasPrefix(n, "zz_generated") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		if f.Doc != nil {
			for _, m := range splitDoc(f.Doc.Text()).markers {
				if m.Name == "groupName" {
					p.Group = m.Value
				}
			}
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			name := filepath.Base(path)
			if imp.Name != nil {
				name = imp.Name.Name
			}
			p.imports[name] = path
		}
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, s := range gd.Specs {
				ts := s.(*ast.TypeSpec)
				doc := ts.Doc
				if doc == nil && len(gd.Specs) == 1 {
					doc = gd.Doc
				}
				t, err := newType(ts, doc)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", fset.Position(ts.Pos()), err)
				}
				if t != nil {
					p.types[t.Name] = t
				}
			}
		}
	}
	if p.Group == "" {
		return nil, fmt.Errorf("%s: no +groupName marker in the package comment", dir)
	}
	return p, nil
}

func newType(ts *ast.TypeSpec, doc *ast.CommentGroup) (*apiType, error) {
	if !ts.Name.IsExported() {
		return nil, nil
	}
	d := splitDoc(doc.Text())
	t := &apiType{Name: ts.Name.Name, Doc: d.text, Markers: d.markers}
	switch u := ts.Type.(type) {
	case *ast.StructType:
		t.IsStruct = true
		for _, f := range u.Fields.List {
			fields, err := newFields(f)
			if err != nil {
				return nil, fmt.Errorf("type %s: %w", t.Name, err)
			}
			t.Fields = append(t.Fields, fields...)
		}
	case *ast.Ident:
		t.Underlying = u.Name
	default:
		// Interfaces, funcs and composite named types are not API objects.
		return nil, nil
	}
	return t, nil
}

// newFields returns the wire fields of one struct field declaration.
func newFields(f *ast.Field) ([]apiField, error) {
	var tag reflect.StructTag
	if f.Tag != nil {
		s, err := strconv.Unquote(f.Tag.Value)
		if err != nil {
			return nil, err
		}
		tag = reflect.StructTag(s)
	}
	jsonName, opts, _ := strings.Cut(tag.Get("json"), ",")
	if jsonName == "-" {
		return nil, nil
	}
	d := splitDoc(f.Doc.Text())
	if len(f.Names) == 0 { // embedded
		inline := jsonName == "" || strings.Contains(opts, "inline")
		return []apiField{{JSONName: jsonName, Type: f.Type, Doc: d.text, Markers: d.markers, Inline: inline}}, nil
	}
	var out []apiField
	for _, n := range f.Names {
		if !n.IsExported() {
			continue
		}
		name := jsonName
		if name == "" {
			name = n.Name
		}
		out = append(out, apiField{JSONName: name, Type: f.Type, Doc: d.text, Markers: d.markers})
	}
	return out, nil
}

type doc struct {
	text    string
	markers []marker
}

// splitDoc separates a doc comment's prose from its +marker lines.
// Paragraphs are kept (blank lines), lines within one are joined.
func splitDoc(s string) doc {
	var d doc
	var paras []string
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			paras = append(paras, strings.Join(cur, " "))
			cur = nil
		}
	}
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "+"):
			name, value, _ := strings.Cut(strings.TrimPrefix(line, "+"), "=")
			name = strings.TrimSuffix(name, ":")
			d.markers = append(d.markers, marker{Name: name, Value: value})
		case line == "":
			flush()
		default:
			cur = append(cur, line)
		}
	}
	flush()
	d.text = strings.Join(paras, "\n\n")
	return d
}

// sortedTypeNames is for deterministic iteration where order is not given
// by reachability.
func (p *apiPackage) sortedTypeNames() []string {
	names := make([]string, 0, len(p.types))
	for n := range p.types {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
