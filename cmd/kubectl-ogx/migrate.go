package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	llsdv1alpha1 "github.com/ogx-k8s/ogx-controller/pkg/apis/llamastack/v1alpha1"
	"github.com/ogx-k8s/ogx-controller/pkg/crdvalidate"
	"github.com/ogx-k8s/ogx-controller/pkg/migrate"
)

// Exit codes of the offline commands (migrate and render):
//
//	0  the output was printed
//	1  an internal failure (the output could not be encoded)
//	2  usage: bad flags, an unreadable file, an unsupported kind, not
//	   exactly one object
//	3  the input is invalid (an unknown field, a value the conversion
//	   cannot carry), or its result would be rejected by the API server
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

// legacyCRD names the legacy CRD and version whose schema migrate reads.
const (
	legacyCRD     = "llamastackdistributions.llamastack.io"
	legacyVersion = "v1alpha1"
)

// runMigrate is `kubectl ogx migrate -f llsd.yaml [--name N]`: it prints
// the OGXServer equivalent to one LlamaStackDistribution, with adoption
// annotations, and a warning on stderr for every field it cannot carry over.
// The input is read as the API server reads it, with the legacy CRD's
// schema: absent fields get the schema's defaults (replicas: 1), a
// misspelt field is an error naming the valid one, and any other unknown
// field a warning. The output carries
// the input's namespace, or none.
func runMigrate(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("kubectl ogx migrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var files stringList
	fs.Var(&files, "f", "file with the LlamaStackDistribution (- for stdin); repeatable")
	name := fs.String("name", "", "name of the OGXServer (default <legacy name>-ogx)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: kubectl ogx migrate -f FILE [--name NAME]")
		fs.PrintDefaults()
		fmt.Fprintln(fs.Output(), "exit codes: 0 printed, 1 internal failure, 2 usage, 3 invalid input or output")
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if len(files) == 0 || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "error: usage: kubectl ogx migrate -f FILE [--name NAME]")
		return exitUsage
	}
	d, err := oneLegacyDocument(files, stdin)
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return exitUsage
	}
	l, code := decodeLegacyOrReport(d, stderr)
	if code != exitOK {
		return code
	}
	res, err := migrate.Convert(l, migrate.Options{Name: *name})
	if res != nil {
		for _, w := range res.Warnings {
			fmt.Fprintf(stderr, "warning: %s\n", w)
		}
	}
	var verr *migrate.ValidationError
	var cerr *migrate.Error
	switch {
	case errors.As(err, &verr), errors.As(err, &cerr):
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

// oneLegacyDocument reads the files and returns their one object, which
// must be a LlamaStackDistribution of the version migrate reads.
func oneLegacyDocument(files []string, stdin io.Reader) (*unstructured.Unstructured, error) {
	docs, err := readDocuments(files, stdin)
	if err != nil {
		return nil, err
	}
	if len(docs) != 1 {
		return nil, fmt.Errorf("found %d objects, want exactly one LlamaStackDistribution", len(docs))
	}
	d := docs[0]
	if gvk := d.GroupVersionKind(); gvk.Group != llsdv1alpha1.GroupName || gvk.Kind != "LlamaStackDistribution" {
		return nil, fmt.Errorf("unsupported kind %s %s/%s: migrate takes LlamaStackDistributions", gvk.GroupVersion(), gvk.Kind, d.GetName())
	} else if gvk.Version != legacyVersion {
		return nil, fmt.Errorf("LlamaStackDistribution %s is %s; migrate reads %s/%s only", d.GetName(), gvk.GroupVersion(), llsdv1alpha1.GroupName, legacyVersion)
	}
	return d, nil
}

// decodeLegacyOrReport decodes d with the legacy CRD's schema; warnings,
// and the problems that stop it, go to stderr with the exit code.
func decodeLegacyOrReport(d *unstructured.Unstructured, stderr io.Writer) (*llsdv1alpha1.LlamaStackDistribution, int) {
	schema, err := crdSchema(legacyCRD, legacyVersion)
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return nil, exitFailed
	}
	l, problems, warnings := decodeLegacy(d, schema)
	for _, w := range warnings {
		fmt.Fprintf(stderr, "warning: %s\n", w)
	}
	if len(problems) > 0 {
		for _, p := range problems {
			fmt.Fprintf(stderr, "error: %s\n", p)
		}
		return nil, exitValidation
	}
	return l, exitOK
}

// decodeLegacy reads a LlamaStackDistribution as the API server would, with
// the legacy CRD's schema (pkg/crdvalidate): fields the schema does not
// define, at the top level or under spec, are returned as problems (each
// with its path and the nearest valid name), and the schema's defaults are
// applied in place. Metadata is the API server's to check; status is
// ignored.
func decodeLegacy(d *unstructured.Unstructured, schema *crdvalidate.Schema) (l *llsdv1alpha1.LlamaStackDistribution, problems, warnings []string) {
	// A misspelling (an unknown field near a defined one) is an error; a
	// field with no defined name near it is likely one of a newer legacy
	// operator's, which this conversion does not know: it is named in a
	// warning, not carried over.
	for _, u := range schema.UnknownFields(d.Object) {
		if u.Suggestion != "" {
			problems = append(problems, u.String())
		} else {
			warnings = append(warnings, fmt.Sprintf("%s: not a field of %s/%s LlamaStackDistribution as this migrate knows it; not carried over", u.Path, llsdv1alpha1.GroupName, legacyVersion))
		}
	}
	if _, ok := d.Object["spec"]; !ok {
		problems = append(problems, "spec: required (a LlamaStackDistribution needs at least spec.server.distribution)")
	}
	if len(problems) > 0 {
		return nil, problems, warnings
	}
	schema.Default(d.Object)
	l = &llsdv1alpha1.LlamaStackDistribution{}
	if err := fromUnstructured(d, l); err != nil {
		// A value of the wrong type (replicas: "two").
		return nil, []string{fmt.Sprintf("decoding %s: %v", d.GetName(), err)}, warnings
	}
	return l, nil, warnings
}
