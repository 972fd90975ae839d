package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/ogx-k8s/ogx-controller/config/crd"
	llsdv1alpha1 "github.com/ogx-k8s/ogx-controller/pkg/apis/llamastack/v1alpha1"
	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1/validation"
	"github.com/ogx-k8s/ogx-controller/pkg/configgen"
	"github.com/ogx-k8s/ogx-controller/pkg/configgen/oci"
	"github.com/ogx-k8s/ogx-controller/pkg/contenthash"
	"github.com/ogx-k8s/ogx-controller/pkg/controller"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/render"
	"github.com/ogx-k8s/ogx-controller/pkg/crdvalidate"
)

// Defaults of `render` for the process inputs the controller takes from its
// own flags and environment.
const (
	// renderDefaultOperatorNamespace is the namespace the shipped manifests
	// (config/) install ogx-controller into; the NetworkPolicy admits it.
	renderDefaultOperatorNamespace = "ogx-system"
	renderClusterDomain            = "cluster.local"
	renderDefaultNamespace         = "default"
)

// renderOptions are the parsed flags of `ogx-controller render`.
type renderOptions struct {
	files             stringList
	base              string
	only              string
	namespace         string
	operatorNamespace string
	fetchBase         bool
	platform          string
	imageOverrides    stringList
	assumeMonitoring  bool
	assumeOpenShift   bool
	validate          bool
	output            string
}

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

// newRenderOCIResolver builds the resolver of --fetch-base; tests may
// replace it.
var newRenderOCIResolver = oci.NewResolver

// runRender is `ogx-controller render` (docs/cli.md, render): it prints every
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
	overrides map[string]string
	resolver  *oci.Resolver

	server *ogxv1beta1.OGXServer
	cluster
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

func (r *renderRun) parseFlags(args []string) error {
	o := &r.opts
	fs := flag.NewFlagSet("ogx-controller render", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Var(&o.files, "f", "multi-document YAML file with one OGXServer and optional ConfigMaps and Secrets (- for stdin); repeatable")
	fs.StringVar(&o.base, "base", "", "base config.yaml file (- for stdin); takes precedence over spec.baseConfig")
	fs.StringVar(&o.only, "only", "all", "what to print: all (every child object) or config (the generated config.yaml)")
	fs.StringVar(&o.namespace, "namespace", "", "namespace when the OGXServer has none (default \"default\")")
	fs.StringVar(&o.operatorNamespace, "operator-namespace", renderDefaultOperatorNamespace, "ogx-controller's namespace, admitted by the NetworkPolicy")
	fs.BoolVar(&o.fetchBase, "fetch-base", false, "read the base config from the image's OCI labels (network access)")
	fs.StringVar(&o.platform, "base-config-platform", "", "platform picked from an image index with --fetch-base (default linux/amd64)")
	fs.Var(&o.imageOverrides, "image-override", "NAME=IMAGE: image of distribution NAME, as the image-overrides of the operator ConfigMap; repeatable")
	fs.BoolVar(&o.assumeMonitoring, "assume-monitoring-crds", false, "assume the cluster serves monitoring.coreos.com (ServiceMonitor, PrometheusRule)")
	fs.BoolVar(&o.assumeOpenShift, "assume-openshift", false, "assume the cluster serves security.openshift.io (adds the RoleBinding)")
	fs.BoolVar(&o.validate, "validate", false, "check the OGXServer first as the API server would (the CRD's schema, defaults and CEL rules), then with the admission validator; exit 3 when either rejects it")
	fs.StringVar(&o.output, "o", "yaml", "output format of --only=all: yaml or json")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(r.stderr)
			fs.Usage()
			return &exitError{code: exitOK, err: err}
		}
		return &exitError{code: exitUsage, err: err}
	}
	const usage = "usage: ogx-controller render -f FILE [-f FILE ...] [--base FILE|-] [--only all|config] [flags]"
	if fs.NArg() > 0 {
		return usageErr("unexpected arguments %q; %s", fs.Args(), usage)
	}
	if len(o.files) == 0 {
		return usageErr("no input: pass -f FILE; %s", usage)
	}
	switch o.only {
	case "all", "config":
	default:
		return usageErr("--only must be all or config, not %q", o.only)
	}
	switch o.output {
	case "yaml", "json":
	default:
		return usageErr("-o must be yaml or json, not %q", o.output)
	}
	if o.only == "config" && o.output == "json" {
		return usageErr("-o json applies to --only=all; --only=config prints the config.yaml bytes")
	}
	stdinUses := 0
	for _, f := range o.files {
		if f == "-" {
			stdinUses++
		}
	}
	if o.base == "-" {
		stdinUses++
	}
	if stdinUses > 1 {
		return usageErr("stdin (-) can be read only once")
	}
	if err := r.parseImageOverrides(); err != nil {
		return err
	}
	if o.fetchBase {
		res, err := newRenderOCIResolver(oci.Options{Platform: o.platform})
		if err != nil {
			return usageErr("--base-config-platform: %v", err)
		}
		r.resolver = res
	} else if o.platform != "" {
		r.warn("--base-config-platform has no effect without --fetch-base")
	}
	return nil
}

// parseImageOverrides checks --image-override entries with the controller's
// own parser of the image-overrides key.
func (r *renderRun) parseImageOverrides() error {
	if len(r.opts.imageOverrides) == 0 {
		return nil
	}
	raw := map[string]string{}
	for _, e := range r.opts.imageOverrides {
		name, image, ok := strings.Cut(e, "=")
		if !ok || name == "" || image == "" {
			return usageErr("--image-override %q: want NAME=IMAGE", e)
		}
		if _, dup := raw[name]; dup {
			return usageErr("--image-override given twice for %s", name)
		}
		raw[name] = image
	}
	data, err := yaml.Marshal(raw)
	if err != nil {
		return usageErr("--image-override: %v", err)
	}
	overrides, problems := controller.ImageOverrides(string(data))
	if len(problems) > 0 {
		return usageErr("--image-override: %s", strings.Join(problems, "; "))
	}
	r.overrides = overrides
	return nil
}

// readInputs reads --base and the -f documents: exactly one OGXServer plus
// ConfigMaps and Secrets standing in for cluster objects.
func (r *renderRun) readInputs() error {
	if err := r.readBase(); err != nil {
		return err
	}
	docs, err := readRenderDocuments(r.opts.files, r.stdin)
	if err != nil {
		return usageErr("%v", err)
	}
	in, err := r.decodeDocuments(docs)
	if err != nil {
		return err
	}
	return r.place(in)
}

// readBase reads the --base file (- for stdin), if given.
func (r *renderRun) readBase() error {
	if r.opts.base == "" {
		return nil
	}
	var err error
	if r.opts.base == "-" {
		r.baseBytes, err = io.ReadAll(r.stdin)
	} else {
		r.baseBytes, err = os.ReadFile(r.opts.base)
	}
	if err != nil {
		return usageErr("--base: %v", err)
	}
	if r.baseBytes == nil {
		r.baseBytes = []byte{}
	}
	return nil
}

// renderInputs are the decoded documents of -f, by kind.
type renderInputs struct {
	servers    []*ogxv1beta1.OGXServer
	configMaps []*corev1.ConfigMap
	secrets    []*corev1.Secret
}

// decodeDocuments decodes each document by its kind; an OGXServer is
// checked for unknown fields (and with --validate as the API server would)
// first.
func (r *renderRun) decodeDocuments(docs []renderDocument) (renderInputs, error) {
	var in renderInputs
	// Unknown fields are reported with their paths from the CRD's schema,
	// as the API server would drop them, before the strict decoder names
	// only the key.
	serverSchema, err := crd.Schema(serverCRD, ogxv1beta1.SchemeGroupVersion.Version)
	if err != nil {
		return in, err
	}
	for _, d := range docs {
		gvk := d.obj.GroupVersionKind()
		id := objectID(d.obj)
		switch {
		case gvk.Group == ogxv1beta1.SchemeGroupVersion.Group && gvk.Kind == render.OGXServerKind:
			if gvk.Version != ogxv1beta1.SchemeGroupVersion.Version {
				return in, usageErr("unsupported apiVersion %s for OGXServer %s: render takes %s", d.obj.GetAPIVersion(), id, ogxv1beta1.SchemeGroupVersion)
			}
			if unknown := unknownFields(d.obj, serverSchema); len(unknown) > 0 {
				return in, &validationErr{msgs: messages(unknown)}
			}
			if r.opts.validate {
				if err := validateAsAPIServer(d.obj.Object); err != nil {
					return in, err
				}
			}
			s, err := configgen.ParseServer(d.json)
			if err != nil {
				return in, usageErr("OGXServer %s: %v", id, err)
			}
			in.servers = append(in.servers, s)
		case gvk.Group == llsdv1alpha1.GroupName && gvk.Kind == "LlamaStackDistribution":
			return in, usageErr("LlamaStackDistribution %s: use ogx-controller migrate first", id)
		case gvk.Group == "" && gvk.Version == "v1" && gvk.Kind == "ConfigMap":
			cm := &corev1.ConfigMap{}
			if err := json.Unmarshal(d.json, cm); err != nil {
				return in, usageErr("ConfigMap %s: %v", id, err)
			}
			in.configMaps = append(in.configMaps, cm)
		case gvk.Group == "" && gvk.Version == "v1" && gvk.Kind == "Secret":
			sec := &corev1.Secret{}
			if err := json.Unmarshal(d.json, sec); err != nil {
				return in, usageErr("Secret %s: %v", id, err)
			}
			in.secrets = append(in.secrets, sec)
		default:
			return in, usageErr("unsupported kind %q (apiVersion %q) of %s: render takes one OGXServer plus ConfigMaps and Secrets", gvk.Kind, d.obj.GetAPIVersion(), id)
		}
	}
	return in, nil
}

// place keeps the one OGXServer, defaults its namespace and files the
// ConfigMaps and Secrets of that namespace as the cluster render reads.
func (r *renderRun) place(in renderInputs) error {
	if len(in.servers) != 1 {
		return usageErr("found %d OGXServers (%s), want exactly one", len(in.servers), ogxv1beta1.SchemeGroupVersion)
	}
	s := in.servers[0]
	if s.Name == "" {
		return usageErr("the OGXServer has no metadata.name")
	}
	if s.Namespace == "" {
		s.Namespace = r.opts.namespace
	}
	if s.Namespace == "" {
		s.Namespace = renderDefaultNamespace
	}
	// Only the spec and the identity of the object matter; what the API
	// server would own is dropped.
	s.Status = ogxv1beta1.OGXServerStatus{}
	r.server = s
	r.cluster = cluster{namespace: s.Namespace, configMaps: map[string]*corev1.ConfigMap{}, secrets: map[string]*corev1.Secret{}}
	for _, cm := range in.configMaps {
		if !r.cluster.place(&cm.ObjectMeta, "ConfigMap", r) {
			continue
		}
		if _, dup := r.configMaps[cm.Name]; dup {
			return usageErr("ConfigMap %s/%s is given twice", cm.Namespace, cm.Name)
		}
		r.configMaps[cm.Name] = cm
	}
	for _, sec := range in.secrets {
		if !r.cluster.place(&sec.ObjectMeta, "Secret", r) {
			continue
		}
		if _, dup := r.secrets[sec.Name]; dup {
			return usageErr("Secret %s/%s is given twice", sec.Namespace, sec.Name)
		}
		r.secrets[sec.Name] = sec
	}
	return nil
}

func objectID(d *unstructured.Unstructured) string {
	name := d.GetName()
	if name == "" {
		name = "(unnamed)"
	}
	if ns := d.GetNamespace(); ns != "" {
		return ns + "/" + name
	}
	return name
}

// renderDocument is one input document: its JSON form, which the typed
// decoders read, and a generic view for its kind and name.
type renderDocument struct {
	json []byte
	obj  *unstructured.Unstructured
}

// readRenderDocuments reads the -f files like readDocuments, but keeps each
// document's exact JSON (numbers included: readDocuments' generic maps turn
// integers into float64, which would change a large integer in custom
// provider settings before it reaches the generator).
func readRenderDocuments(files []string, stdin io.Reader) ([]renderDocument, error) {
	var out []renderDocument
	for _, f := range files {
		var data []byte
		var err error
		if f == "-" {
			data, err = io.ReadAll(stdin)
		} else {
			data, err = os.ReadFile(f)
		}
		if err != nil {
			return nil, err
		}
		dec := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
		for {
			doc, err := dec.Read()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return nil, fmt.Errorf("%s: %w", f, err)
			}
			j, err := yaml.YAMLToJSON(doc)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", f, err)
			}
			if t := bytes.TrimSpace(j); len(t) == 0 || bytes.Equal(t, []byte("null")) || bytes.Equal(t, []byte("{}")) {
				continue
			}
			d := json.NewDecoder(bytes.NewReader(j))
			d.UseNumber()
			obj := map[string]any{}
			if err := d.Decode(&obj); err != nil {
				return nil, fmt.Errorf("%s: a document is not a mapping: %w", f, err)
			}
			out = append(out, renderDocument{json: j, obj: &unstructured.Unstructured{Object: obj}})
		}
	}
	return out, nil
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
	g, err := r.generate()
	if err != nil {
		return nil, err
	}
	return g.ConfigYAML, nil
}

// generate runs the generation pipeline (docs/config-generation.md, Pipeline)
// in the order the controller does: spec checks (no I/O), base resolution,
// then Generate. Its warnings go to stderr.
func (r *renderRun) generate() (*configgen.Result, error) {
	s := r.server
	if err := configgen.ValidateSpec(&s.Spec); err != nil {
		return nil, failed(err)
	}
	base, err := r.resolveBase()
	if err != nil {
		return nil, err
	}
	g, err := configgen.Generate(&s.Spec, base)
	if err != nil {
		return nil, failed(err)
	}
	for _, w := range g.Warnings {
		r.warn("%s", w)
	}
	name := render.GeneratedConfigName(s.Name, g.ContentHash)
	if cm, ok := r.configMaps[name]; ok && cm.Data[render.GeneratedConfigKey] != string(g.ConfigYAML) {
		return nil, failedf("generated ConfigMap %s exists with different content (hash collision)", name)
	}
	return g, nil
}

// resolveBase picks the base config in the order of docs/config-generation.md,
// Base config, for render: --base, the spec.baseConfig ConfigMap among the
// inputs, the image's OCI labels with --fetch-base.
func (r *renderRun) resolveBase() ([]byte, error) {
	s := r.server
	if r.baseBytes != nil {
		return r.baseBytes, nil
	}
	ref := s.Spec.BaseConfig
	if ref != nil {
		cm, err := r.configMap(ref.Name, "spec.baseConfig", "failed to find referenced base ConfigMap")
		if err != nil {
			return nil, err
		}
		if cm != nil {
			b, ok := configgen.BaseFromConfigMap(cm, ref.Key)
			if !ok {
				return nil, failedf("%s", render.MissingConfigMapKeyMessage(render.WhatBaseConfig, cm.Namespace, cm.Name, ref.Key))
			}
			return b, nil
		}
	}
	if r.resolver != nil {
		if ref != nil {
			r.warn("ConfigMap %s/%s of spec.baseConfig is not in the input; using the image's OCI labels, which the controller would not", s.Namespace, ref.Name)
		}
		image, err := r.image()
		if err != nil {
			return nil, err
		}
		res, err := r.resolver.Resolve(context.Background(), image)
		if err != nil {
			return nil, failed(err)
		}
		for _, w := range res.Warnings {
			r.warn("%s", w)
		}
		return res.Config, nil
	}
	if ref != nil {
		return nil, failedf("no base config: pass --base, include ConfigMap %s in the input, or pass --fetch-base", ref.Name)
	}
	return nil, failedf("no base config: pass --base, set spec.baseConfig and include its ConfigMap in the input, or pass --fetch-base")
}

// image resolves the server image as the controller does, with
// --image-override standing in for the operator ConfigMap's image-overrides
// and the built-in table without RELATED_IMAGE_* (the controller's
// environment is not the caller's).
func (r *renderRun) image() (string, error) {
	table := controller.NewDistributionTable(func(string) string { return "" })
	image, err := table.ResolveImage(&r.server.Spec, r.overrides)
	if err != nil {
		return "", failed(err)
	}
	return image, nil
}

// renderAll is --only=all: every child, in kind order.
func (r *renderRun) renderAll() ([]byte, error) {
	s := r.server
	in := render.Inputs{
		OperatorNamespace:       r.opts.operatorNamespace,
		ClusterDomain:           renderClusterDomain,
		MonitoringServed:        r.opts.assumeMonitoring,
		OpenShiftSecurityServed: r.opts.assumeOpenShift,
		PVCName:                 r.effectivePVCName(),
	}
	var err error
	if in.Image, err = r.image(); err != nil {
		return nil, err
	}
	var g *configgen.Result
	if in.RuntimeConfig, g, err = r.runtimeConfig(); err != nil {
		return nil, err
	}
	if g == nil && r.baseBytes != nil {
		r.warn("--base has no effect: the OGXServer is in %s mode, so no config is generated", in.RuntimeConfig.Mode)
	}
	if g != nil {
		if in.SecretEnv, in.SecretHash, err = r.secretEnv(g); err != nil {
			return nil, err
		}
	}
	if in.ServerTLSHash, err = r.serverTLSHash(); err != nil {
		return nil, err
	}
	if in.IdentityHash, err = r.identityHash(); err != nil {
		return nil, err
	}
	bundle, err := r.caBundle()
	if err != nil {
		return nil, err
	}
	if bundle != "" {
		in.CABundleHash = contenthash.H16([]byte(bundle))
	}

	var objs []any
	if g != nil {
		objs = append(objs, render.GeneratedConfigMap(s, in.RuntimeConfig.ConfigMapName, string(g.ConfigYAML)))
	}
	if bundle != "" {
		objs = append(objs, render.CABundleConfigMap(s, bundle))
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
	if r.opts.assumeMonitoring && render.WantMonitoring(s, &in) {
		// The ServiceMonitor verifies the server's certificate only when the
		// TLS Secret carries ca.crt; offline, that is the Secret of the input.
		serverCA := false
		if t := s.Spec.ServerTLS(); t != nil {
			if sec, err := r.secret(t.SecretName, "spec.network.tls.secretName", ""); err == nil && sec != nil {
				_, serverCA = secretValue(sec, "ca.crt")
			}
		}
		objs = append(objs, render.ServiceMonitor(s, &in, serverCA), render.PrometheusRule(s, &in))
	}
	return encodeObjects(objs, r.opts.output)
}

// effectivePVCName is the claim the pods mount: the legacy PVC while a valid
// ogx.io/adopt-storage annotation is set, else N-pvc. (The controller also
// follows PVCs it adopted earlier, which exist only in a cluster.)
func (r *renderRun) effectivePVCName() string {
	s := r.server
	if legacy := s.Annotations[ogxv1beta1.AnnotationAdoptStorage]; legacy != "" {
		valid := true
		for _, e := range validation.ValidateAdoption(s) {
			if strings.Contains(e.Field, ogxv1beta1.AnnotationAdoptStorage) {
				valid = false
			}
		}
		if valid {
			return render.PVCName(legacy)
		}
	}
	return render.PVCName(s.Name)
}

// runtimeConfig resolves the mounted config as the controller's resolver
// does. In generated mode it also returns the generation result.
func (r *renderRun) runtimeConfig() (render.RuntimeConfig, *configgen.Result, error) {
	s := r.server
	switch configgen.ModeOf(&s.Spec) {
	case configgen.ModeOverride:
		ref := *s.Spec.OverrideConfig
		rc := render.RuntimeConfig{Mode: ogxv1beta1.ConfigModeOverride, ConfigMapName: ref.Name, Key: ref.Key}
		text, ok, err := r.configMapKey(ref, "spec.overrideConfig", "failed to find referenced ConfigMap", "override config")
		if err != nil {
			return rc, nil, err
		}
		if !ok {
			r.warn("annotation %s omitted: ConfigMap %s/%s of spec.overrideConfig is not in the input", render.AnnotationUserConfigHash, s.Namespace, ref.Name)
			return rc, nil, nil
		}
		rc.Hash = contenthash.H16([]byte(text))
		return rc, nil, nil
	case configgen.ModeGenerated:
		g, err := r.generate()
		if err != nil {
			return render.RuntimeConfig{}, nil, err
		}
		return render.RuntimeConfig{Mode: ogxv1beta1.ConfigModeGenerated,
			ConfigMapName: render.GeneratedConfigName(s.Name, g.ContentHash), Key: render.GeneratedConfigKey,
			Hash: g.ContentHash, SQLiteBackend: g.SQLiteBackend}, g, nil
	}
	return render.RuntimeConfig{Mode: ogxv1beta1.ConfigModeInactive}, nil, nil
}

// secretEnv returns the Secret-backed variables of the generated config and
// the secret.hash/referenced value, empty (with a warning) unless every
// referenced Secret is in the input.
func (r *renderRun) secretEnv(g *configgen.Result) ([]ogxv1beta1.SecretEnvVar, string, error) {
	s := r.server
	entries := make([]render.SecretHashEntry, 0, len(g.SecretEnv))
	var missing []string
	for _, v := range g.SecretEnv {
		value, ok, err := r.secretKey(v.Ref, v.Path.String(), v.Name)
		if err != nil {
			return nil, "", err
		}
		if !ok {
			missing = append(missing, fmt.Sprintf("Secret %s/%s", s.Namespace, v.Ref.Name))
			continue
		}
		entries = append(entries, render.SecretHashEntry{Env: v.Name, Secret: v.Ref.Name, Key: v.Ref.Key, Value: value})
	}
	if len(missing) > 0 {
		r.warn("annotation %s omitted: %s not in the input", render.AnnotationSecretHash, joinMissing(missing))
		return g.SecretEnv, "", nil
	}
	return g.SecretEnv, render.SecretHash(entries), nil
}

// serverTLSHash is secret.hash/tls, empty (with a warning) when the TLS
// Secret is not in the input.
func (r *renderRun) serverTLSHash() (string, error) {
	s := r.server
	t := s.Spec.ServerTLS()
	if t == nil {
		return "", nil
	}
	sec, err := r.secret(t.SecretName, "spec.network.tls.secretName",
		fmt.Sprintf("failed to find server TLS Secret %s/%s", s.Namespace, t.SecretName))
	if err != nil {
		return "", err
	}
	if sec == nil {
		r.warn("annotation %s omitted: Secret %s/%s of spec.network.tls is not in the input", render.AnnotationServerTLSHash, s.Namespace, t.SecretName)
		return "", nil
	}
	var pair [2][]byte
	for i, k := range []string{corev1.TLSCertKey, corev1.TLSPrivateKeyKey} {
		v, ok := secretValue(sec, k)
		if !ok {
			return "", failedf("%s", render.MissingServerTLSKeyMessage(s.Namespace, t.SecretName, k))
		}
		pair[i] = v
	}
	return render.PairHash(pair[0], pair[1]), nil
}

// identityHash is secret.hash/identity, empty (with a warning) unless both
// the certificate ConfigMap and the key Secret are in the input.
func (r *renderRun) identityHash() (string, error) {
	s := r.server
	if s.Spec.TLS == nil || s.Spec.TLS.Identity == nil {
		return "", nil
	}
	id := s.Spec.TLS.Identity
	crt, crtOK, err := r.configMapKey(id.Cert, "spec.tls.identity.cert", "failed to find referenced ConfigMap", "client certificate")
	if err != nil {
		return "", err
	}
	key, keyOK, err := r.secretKey(id.Key, "spec.tls.identity.key", render.EnvTLSClientKey)
	if err != nil {
		return "", err
	}
	var missing []string
	if !crtOK {
		missing = append(missing, fmt.Sprintf("ConfigMap %s/%s", s.Namespace, id.Cert.Name))
	}
	if !keyOK {
		missing = append(missing, fmt.Sprintf("Secret %s/%s", s.Namespace, id.Key.Name))
	}
	if len(missing) > 0 {
		r.warn("annotation %s omitted: %s of spec.tls.identity not in the input", render.AnnotationIdentityHash, joinMissing(missing))
		return "", nil
	}
	return render.PairHash([]byte(crt), key), nil
}

// caBundle assembles ca-bundle.crt as the controller does: the
// spec.tls.trust.caCertificates in spec order (each must be in the input),
// then the sorted keys of a watched odh-trusted-ca-bundle ConfigMap of the
// input.
func (r *renderRun) caBundle() (string, error) {
	s := r.server
	var sources []render.CASource
	explicit := false
	if t := s.Spec.TLS; t != nil && t.Trust != nil {
		for i, ref := range t.Trust.CACertificates {
			path := fmt.Sprintf("spec.tls.trust.caCertificates[%d]", i)
			data, ok, err := r.configMapKey(ref, path, "failed to find referenced CA certificate ConfigMap", "CA certificate")
			if err != nil {
				return "", err
			}
			if !ok {
				return "", failedf("failed to find referenced CA certificate ConfigMap %s/%s: not found in the input (referenced by %s); the CA bundle cannot be rendered without it",
					s.Namespace, ref.Name, path)
			}
			sources = append(sources, render.CASource{Key: ref.Key, Data: data, Explicit: true})
			explicit = true
		}
	}
	if cm, ok := r.configMaps[render.TrustedCABundleConfigMap]; ok {
		if cm.Labels[ogxv1beta1.WatchLabel] == "true" {
			sources = append(sources, render.TrustedCABundleSources(cm.Data)...)
		} else {
			r.warn("ConfigMap %s/%s lacks label %s=true: the controller does not see it, so it is not part of the CA bundle",
				s.Namespace, render.TrustedCABundleConfigMap, ogxv1beta1.WatchLabel)
		}
	}
	if len(sources) == 0 {
		return "", nil
	}
	data, _, warnings, err := render.AssembleCABundle(sources)
	if err != nil {
		return "", failed(err)
	}
	for _, w := range warnings {
		r.warn("%v", w)
	}
	if data == "" && explicit {
		r.warn("spec.tls.trust.caCertificates contain no certificates; no CA bundle is mounted")
	}
	return data, nil
}

func joinMissing(items []string) string {
	sort.Strings(items)
	items = uniqueSorted(items)
	if len(items) == 1 {
		return items[0] + " is"
	}
	return strings.Join(items, ", ") + " are"
}

func uniqueSorted(items []string) []string {
	out := items[:0]
	for i, s := range items {
		if i == 0 || s != items[i-1] {
			out = append(out, s)
		}
	}
	return out
}

// cluster holds the ConfigMaps and Secrets of the input that live in the
// OGXServer's namespace, the stand-ins for the controller's watched caches.
type cluster struct {
	namespace  string
	configMaps map[string]*corev1.ConfigMap
	secrets    map[string]*corev1.Secret
}

// place puts an input object into the OGXServer's namespace (objects
// without a namespace land there) and reports whether it belongs there.
func (c *cluster) place(m interface {
	GetNamespace() string
	SetNamespace(string)
	GetName() string
}, kind string, r *renderRun) bool {
	if m.GetNamespace() == "" {
		m.SetNamespace(c.namespace)
	}
	if m.GetNamespace() != c.namespace {
		r.warn("%s %s/%s ignored: it is not in the OGXServer's namespace %s", kind, m.GetNamespace(), m.GetName(), c.namespace)
		return false
	}
	return true
}

// configMap returns a referenced ConfigMap of the input, nil when it is not
// in the input, or the controller's error when it is there without the
// watch label (the controller could not see it).
func (c *cluster) configMap(name, path, prefix string) (*corev1.ConfigMap, error) {
	cm, ok := c.configMaps[name]
	if !ok {
		return nil, nil
	}
	if cm.Labels[ogxv1beta1.WatchLabel] != "true" {
		return nil, failedf("%s %s/%s: exists but lacks label %s=true (referenced by %s)", prefix, c.namespace, name, ogxv1beta1.WatchLabel, path)
	}
	return cm, nil
}

// configMapKey returns one key (data, then binaryData) of a referenced
// ConfigMap; ok is false when the ConfigMap is not in the input.
func (c *cluster) configMapKey(ref ogxv1beta1.ConfigMapKeyRef, path, prefix, what string) (string, bool, error) {
	cm, err := c.configMap(ref.Name, path, prefix)
	if err != nil || cm == nil {
		return "", false, err
	}
	if v, ok := cm.Data[ref.Key]; ok {
		return v, true, nil
	}
	if v, ok := cm.BinaryData[ref.Key]; ok {
		return string(v), true, nil
	}
	return "", false, failedf("failed to find %s key '%s' in ConfigMap %s/%s", what, ref.Key, c.namespace, ref.Name)
}

// secret returns a referenced Secret of the input, nil when absent.
func (c *cluster) secret(name, path, prefix string) (*corev1.Secret, error) {
	sec, ok := c.secrets[name]
	if !ok {
		return nil, nil
	}
	if sec.Labels[ogxv1beta1.WatchLabel] != "true" {
		return nil, failedf("%s: exists but lacks label %s=true (referenced by %s)", prefix, ogxv1beta1.WatchLabel, path)
	}
	return sec, nil
}

// secretKey returns one key of a referenced Secret; ok is false when the
// Secret is not in the input.
func (c *cluster) secretKey(ref ogxv1beta1.SecretKeyRef, path, env string) ([]byte, bool, error) {
	sec, err := c.secret(ref.Name, path, fmt.Sprintf("failed to resolve secret %s/%s for env %s", c.namespace, ref.Name, env))
	if err != nil || sec == nil {
		return nil, false, err
	}
	v, ok := secretValue(sec, ref.Key)
	if !ok {
		return nil, false, failedf("%s", render.MissingSecretKeyMessage(c.namespace, ref.Name, ref.Key, env))
	}
	return v, true, nil
}

// secretValue reads data, then stringData (an input file may use either).
func secretValue(sec *corev1.Secret, key string) ([]byte, bool) {
	if v, ok := sec.Data[key]; ok {
		return v, true
	}
	if v, ok := sec.StringData[key]; ok {
		return []byte(v), true
	}
	return nil, false
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
