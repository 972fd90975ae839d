package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/ogx-k8s/ogx-controller/config/crd"
	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1/validation"
	"github.com/ogx-k8s/ogx-controller/pkg/configgen"
	"github.com/ogx-k8s/ogx-controller/pkg/configgen/oci"
	"github.com/ogx-k8s/ogx-controller/pkg/crdvalidate"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
	"github.com/ogx-k8s/ogx-controller/pkg/resolve"
)

// Defaults of `render` for the process inputs the controller takes from its
// own flags and environment.
const (
	// renderDefaultOperatorNamespace is the namespace the shipped manifests
	// (config/) install ogx-controller into; the NetworkPolicy admits it.
	renderDefaultOperatorNamespace = "ogx-system"
	renderDefaultNamespace         = "default"
)

// exitError ends a render run with an exit code; its message is printed as
// `error: <msg>`.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }

func usageErr(format string, args ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, args...)}
}

func failed(err error) error { return &exitError{code: exitFailed, err: err} }

func failedf(format string, args ...any) error { return failed(fmt.Errorf(format, args...)) }

// validationErr carries every admission error of --validate.
type validationErr struct{ msgs []string }

// serverCRD is the OGXServer CRD's name, for its schema (config/crd).
const serverCRD = "ogxservers.ogx.io"

func (e *validationErr) Error() string { return strings.Join(e.msgs, "\n") }

// validateAsAPIServer runs on a copy of obj what the API server runs on a
// create before admission: the CRD's structural schema, defaults, OpenAPI
// validation and CEL rules (pkg/crdvalidate). Its errors are a
// validationErr, each "<field path>: <message>" as the API server words it.
func validateAsAPIServer(obj map[string]any) error {
	def, err := crd.Definition(serverCRD)
	if err != nil {
		return err
	}
	v, err := crdvalidate.New(def, ogxv1beta1.SchemeGroupVersion.Version)
	if err != nil {
		return err
	}
	errs := v.Create(context.Background(), runtime.DeepCopyJSON(obj))
	if len(errs) == 0 {
		return nil
	}
	// The CEL rules of sibling fields are evaluated in map order: sorted by
	// field path, the output is the same on every run.
	slices.SortStableFunc(errs, func(a, b *field.Error) int {
		return cmp.Or(strings.Compare(a.Field, b.Field), strings.Compare(a.Error(), b.Error()))
	})
	msgs := make([]string, 0, len(errs))
	for _, e := range errs {
		msgs = append(msgs, e.Error())
	}
	return &validationErr{msgs: msgs}
}

// runRender is `kubectl ogx render` (docs/cli.md, render): it prints every
// child object the controllers would converge for one OGXServer, computed
// offline by the controllers' own render and generation functions. stdout
// receives output only on success.
func runRender(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	r := &renderRun{stdin: stdin, stderr: stderr}
	out, err := r.run(args)
	if err != nil {
		var ve *validationErr
		var ee *exitError
		switch {
		case errors.As(err, &ve):
			for _, m := range ve.msgs {
				fmt.Fprintf(stderr, "error: %s\n", m)
			}
			return exitValidation
		case errors.As(err, &ee):
			if !errors.Is(ee.err, flag.ErrHelp) {
				fmt.Fprintf(stderr, "error: %v\n", ee.err)
			}
			return ee.code
		}
		fmt.Fprintf(stderr, "error: %v\n", err)
		return exitFailed
	}
	_, _ = stdout.Write(out)
	return exitOK
}

// renderRun is the state of one invocation.
type renderRun struct {
	stdin  io.Reader
	stderr io.Writer
	opts   renderOptions

	baseBytes []byte // --base content, nil when not given
	hashKey   []byte // --hash-key-file content, nil when not given
	overrides map[string]string
	oci       *oci.Resolver

	server *ogxv1beta1.OGXServer
	// src holds the input's objects in the server's namespace.
	src *fileSource
}

func (r *renderRun) warn(format string, args ...any) {
	fmt.Fprintf(r.stderr, "warning: "+format+"\n", args...)
}

func (r *renderRun) run(args []string) ([]byte, error) {
	if err := r.parseFlags(args); err != nil {
		return nil, err
	}
	if err := r.readInputs(); err != nil {
		return nil, err
	}
	s := r.server
	// The API server defaults before admission runs, so validation sees the
	// defaulted object too.
	ogxv1beta1.ApplySchemaDefaults(s)
	if r.opts.validate {
		if errs := validation.Validate(s); len(errs) > 0 {
			msgs := make([]string, 0, len(errs))
			for _, e := range errs {
				msgs = append(msgs, e.Error())
			}
			return nil, &validationErr{msgs: msgs}
		}
	}
	if r.opts.only == "config" {
		return r.renderConfig()
	}
	return r.renderAll()
}

// renderConfig is --only=config: the generated config.yaml bytes.
func (r *renderRun) renderConfig() ([]byte, error) {
	s := r.server
	switch configgen.ModeOf(&s.Spec) {
	case configgen.ModeOverride:
		return nil, failed(configgen.ErrOverrideMode)
	case configgen.ModeInactive:
		return nil, failed(configgen.ErrInactiveMode)
	}
	g, err := r.resolver().Generated(context.Background(), s)
	if err != nil {
		return nil, failed(err)
	}
	return []byte(g.ConfigYAML), nil
}

// resolver resolves as the controller does (pkg/resolve), on the input
// files: references missing from them leave their hashes out, with a
// warning.
func (r *renderRun) resolver() *resolve.Resolver {
	return &resolve.Resolver{
		Source: r.src,
		// The built-in table without RELATED_IMAGE_*: the controller's
		// environment is not the caller's.
		Table:             resolve.NewDistributionTable(func(string) string { return "" }),
		OperatorNamespace: r.opts.operatorNamespace,
		ServerAnyUID:      r.opts.serverAnyUID,
		Partial:           true,
		Warn:              r.warn,
	}
}

// renderAll is --only=all: every child, in kind order.
func (r *renderRun) renderAll() ([]byte, error) {
	s := r.server
	if r.src.base != nil && configgen.ModeOf(&s.Spec) != configgen.ModeGenerated {
		r.warn("--base has no effect: the OGXServer is in %s mode, so no config is generated", s.Spec.ConfigMode())
	}
	res, err := r.resolver().Resolve(context.Background(), s)
	if err != nil {
		return nil, failed(err)
	}
	for _, w := range res.CABundle.Warnings {
		r.warn("%v", w)
	}
	if res.CABundle.Data == "" && res.CABundle.Explicit {
		r.warn("spec.tls.trust.caCertificates contain no certificates; no CA bundle is mounted")
	}
	in := res.Inputs
	var objs []any
	if res.Generated != nil {
		objs = append(objs, render.GeneratedConfigMap(s, in.RuntimeConfig.ConfigMapName, res.Generated.ConfigYAML))
	}
	if res.CABundle.Data != "" {
		objs = append(objs, render.CABundleConfigMap(s, res.CABundle.Data))
	}
	objs = append(objs, render.ServiceAccount(s, &in))
	if render.WantRoleBinding(&in) {
		objs = append(objs, render.RoleBinding(s, &in))
	}
	if render.WantPVC(s, &in) {
		objs = append(objs, render.PVC(s, &in))
	}
	objs = append(objs, render.Service(s, &in))
	dep, err := render.Deployment(s, &in)
	if err != nil {
		return nil, failed(err)
	}
	objs = append(objs, dep)
	if render.WantHPA(s) {
		objs = append(objs, render.HPA(s, &in))
	}
	if render.WantPDB(s) {
		objs = append(objs, render.PDB(s, &in))
	}
	if render.WantNetworkPolicy(s) {
		objs = append(objs, render.NetworkPolicy(s, &in))
	}
	if render.WantIngress(s) {
		objs = append(objs, render.Ingress(s, &in))
	}
	if in.MonitoringServed && render.WantMonitoring(s, &in) {
		objs = append(objs, render.ServiceMonitor(s, &in, r.resolver().ServerCA(s)), render.PrometheusRule(s, &in))
	}
	return encodeObjects(objs, r.opts.output)
}

// encodeObjects prints the objects as a YAML stream (--- between documents)
// or as one v1 List in JSON. Maps are printed with sorted keys, so equal
// objects give equal bytes.
func encodeObjects(objs []any, format string) ([]byte, error) {
	items := make([]any, 0, len(objs))
	for _, o := range objs {
		m, err := cleanObject(o)
		if err != nil {
			return nil, failed(err)
		}
		items = append(items, m)
	}
	var buf bytes.Buffer
	if format == "json" {
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		list := map[string]any{"apiVersion": "v1", "kind": "List", "items": items}
		if err := enc.Encode(list); err != nil {
			return nil, failed(err)
		}
		return buf.Bytes(), nil
	}
	for i, m := range items {
		if i > 0 {
			buf.WriteString("---\n")
		}
		b, err := toYAML(m)
		if err != nil {
			return nil, failed(err)
		}
		buf.Write(b)
	}
	return buf.Bytes(), nil
}

// cleanObject turns an apply configuration into a plain map without the
// fields the API server owns.
func cleanObject(o any) (map[string]any, error) {
	b, err := json.Marshal(o)
	if err != nil {
		return nil, err
	}
	m := map[string]any{}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	delete(m, "status")
	if md, ok := m["metadata"].(map[string]any); ok {
		for _, k := range []string{"resourceVersion", "uid", "managedFields", "creationTimestamp", "generation", "selfLink"} {
			delete(md, k)
		}
	}
	return m, nil
}
