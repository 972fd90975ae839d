package main

// Reading and decoding render's input: --base and the -f documents
// (docs/cli.md, render, Inputs).

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	llsdv1alpha1 "github.com/ogx-k8s/ogx-controller/pkg/apis/llamastack/v1alpha1"
	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/configgen"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

// readInputs reads --base and the -f documents: exactly one OGXServer plus
// ConfigMaps and Secrets standing in for cluster objects.
func (r *renderRun) readInputs() error {
	if err := r.readBase(); err != nil {
		return err
	}
	if r.opts.hashKeyFile != "" {
		key, err := os.ReadFile(r.opts.hashKeyFile)
		if err != nil {
			return usageErr("--hash-key-file: %v", err)
		}
		if len(key) == 0 {
			return usageErr("--hash-key-file: %s is empty", r.opts.hashKeyFile)
		}
		r.hashKey = key
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
	serverSchema, err := crdSchema(serverCRD, ogxv1beta1.SchemeGroupVersion.Version)
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
			if unknown := serverSchema.UnknownFields(d.obj.Object); len(unknown) > 0 {
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
			return in, usageErr("LlamaStackDistribution %s: use kubectl ogx migrate first", id)
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
	r.src = &fileSource{namespace: s.Namespace, configMaps: map[string]*corev1.ConfigMap{}, secrets: map[string]*corev1.Secret{},
		overrides: r.overrides, monitoring: r.opts.assumeMonitoring, openShift: r.opts.assumeOpenShift,
		base: r.baseBytes, hashKey: r.hashKey, oci: r.oci, warn: r.warn}
	if err := placeEach(r, in.configMaps, r.src.configMaps, "ConfigMap"); err != nil {
		return err
	}
	return placeEach(r, in.secrets, r.src.secrets, "Secret")
}

// placeEach files the input objects of one kind that belong to the
// server's namespace under their names; a name given twice is a usage
// error.
func placeEach[O metav1.Object](r *renderRun, objs []O, into map[string]O, kind string) error {
	for _, o := range objs {
		if !r.inNamespace(o, kind) {
			continue
		}
		if _, dup := into[o.GetName()]; dup {
			return usageErr("%s %s/%s is given twice", kind, o.GetNamespace(), o.GetName())
		}
		into[o.GetName()] = o
	}
	return nil
}

// inNamespace puts an input object into the OGXServer's namespace (objects
// without a namespace land there) and reports whether it belongs there.
func (r *renderRun) inNamespace(m metav1.Object, kind string) bool {
	ns := r.server.Namespace
	if m.GetNamespace() == "" {
		m.SetNamespace(ns)
	}
	if m.GetNamespace() != ns {
		r.warn("%s %s/%s ignored: it is not in the OGXServer's namespace %s", kind, m.GetNamespace(), m.GetName(), ns)
		return false
	}
	return true
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
