package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	llsdv1alpha1 "github.com/ogx-k8s/ogx-controller/pkg/apis/llamastack/v1alpha1"
	"github.com/ogx-k8s/ogx-controller/pkg/migrate"
)

// Exit codes of the offline commands (config spec §15).
const (
	exitOK         = 0
	exitFailed     = 1
	exitUsage      = 2
	exitValidation = 3
)

// stringList is a repeatable flag.
type stringList []string

func (s *stringList) String() string     { return fmt.Sprint(*s) }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

// runMigrate is `ogx-controller migrate -f llsd.yaml [--name N]`: it prints
// the OGXServer equivalent to one LlamaStackDistribution, with adoption
// annotations, and a warning on stderr for every field it cannot carry over.
func runMigrate(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("ogx-controller migrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var files stringList
	fs.Var(&files, "f", "file with the LlamaStackDistribution (- for stdin); repeatable")
	name := fs.String("name", "", "name of the OGXServer (default <legacy name>-ogx)")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if len(files) == 0 || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "error: usage: ogx-controller migrate -f FILE [--name NAME]")
		return exitUsage
	}
	docs, err := readDocuments(files, stdin)
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return exitUsage
	}
	var found []*llsdv1alpha1.LlamaStackDistribution
	for _, d := range docs {
		gvk := d.GroupVersionKind()
		if gvk.Group != llsdv1alpha1.GroupName || gvk.Kind != "LlamaStackDistribution" {
			fmt.Fprintf(stderr, "error: unsupported kind %s %s/%s: migrate takes LlamaStackDistributions\n", gvk.GroupVersion(), gvk.Kind, d.GetName())
			return exitUsage
		}
		l := &llsdv1alpha1.LlamaStackDistribution{}
		if err := fromUnstructured(d, l); err != nil {
			fmt.Fprintf(stderr, "error: decoding %s: %v\n", d.GetName(), err)
			return exitUsage
		}
		if l.Namespace == "" {
			l.Namespace = "default"
		}
		found = append(found, l)
	}
	if len(found) != 1 {
		fmt.Fprintf(stderr, "error: found %d LlamaStackDistributions, want exactly one\n", len(found))
		return exitUsage
	}
	res, err := migrate.Convert(found[0], migrate.Options{Name: *name})
	if res != nil {
		for _, w := range res.Warnings {
			fmt.Fprintf(stderr, "warning: %s\n", w)
		}
	}
	var verr *migrate.ValidationError
	switch {
	case errors.As(err, &verr):
		fmt.Fprintf(stderr, "error: %v\n", err)
		return exitValidation
	case err != nil:
		fmt.Fprintf(stderr, "error: %v\n", err)
		return exitFailed
	}
	out, err := toYAML(res.Server)
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return exitFailed
	}
	_, _ = stdout.Write(out)
	return exitOK
}
