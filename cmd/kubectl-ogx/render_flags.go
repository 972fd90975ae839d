package main

import (
	"errors"
	"flag"
	"io"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/ogx-k8s/ogx-controller/pkg/configgen/oci"
	"github.com/ogx-k8s/ogx-controller/pkg/resolve"
)

// The flags of `kubectl ogx render` and the checks that refuse a run
// before anything is read.

// renderOptions are the parsed flags of `kubectl ogx render`.
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
	serverAnyUID      bool
	hashKeyFile       string
	validate          bool
	output            string
}

// newRenderOCIResolver builds the resolver of --fetch-base; tests may
// replace it.
var newRenderOCIResolver = oci.NewResolver

func (r *renderRun) parseFlags(args []string) error {
	o := &r.opts
	fs := flag.NewFlagSet("kubectl ogx render", flag.ContinueOnError)
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
	fs.BoolVar(&o.assumeOpenShift, "assume-openshift", false, "assume the cluster serves security.openshift.io (with --server-any-uid, adds the RoleBinding)")
	fs.StringVar(&o.hashKeyFile, "hash-key-file", "",
		"file holding the cluster's hash key (the data key \"key\" of Secret ogx-controller-hash-key in the operator's namespace), so secret.hash/referenced is the operator's")
	fs.BoolVar(&o.serverAnyUID, "server-any-uid", false, "render as an operator run with --server-any-uid: no runAsNonRoot on the pods, and the anyuid RoleBinding with --assume-openshift")
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
	if err := o.check(fs.Args()); err != nil {
		return err
	}
	if err := r.parseImageOverrides(); err != nil {
		return err
	}
	if o.fetchBase {
		res, err := newRenderOCIResolver(oci.Options{Platform: o.platform, DetailedErrors: true})
		if err != nil {
			return usageErr("--base-config-platform: %v", err)
		}
		r.oci = res
	} else if o.platform != "" {
		r.warn("--base-config-platform has no effect without --fetch-base")
	}
	return nil
}

// check refuses arguments and flag combinations render cannot run with.
func (o *renderOptions) check(args []string) error {
	const usage = "usage: kubectl ogx render -f FILE [-f FILE ...] [--base FILE|-] [--only all|config] [flags]"
	if len(args) > 0 {
		return usageErr("unexpected arguments %q; %s", args, usage)
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
	overrides, problems := resolve.ImageOverrides(string(data))
	if len(problems) > 0 {
		return usageErr("--image-override: %s", strings.Join(problems, "; "))
	}
	r.overrides = overrides
	return nil
}
