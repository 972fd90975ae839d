// Package migrate converts a legacy LlamaStackDistribution into the
// equivalent OGXServer (docs/cli.md, migrate), with the adoption annotations
// set so that applying the result takes over the legacy PVC, Service and
// Ingress instead of starting from nothing.
package migrate

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/ogx-k8s/ogx-controller/config/crd"
	llsdv1alpha1 "github.com/ogx-k8s/ogx-controller/pkg/apis/llamastack/v1alpha1"
	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1/validation"
	"github.com/ogx-k8s/ogx-controller/pkg/crdvalidate"
)

// legacyMountPath is where the legacy operator mounted storage by default.
// A migrated server mounts the adopted volume at the same path, because the
// legacy config.yaml (carried over as overrideConfig) points there.
const legacyMountPath = "/.llama"

// legacyConfigKey is the key of the legacy user ConfigMap holding the config.
const legacyConfigKey = "config.yaml"

// legacyCAKey is the CA bundle key used when the legacy object names none.
const legacyCAKey = "ca-bundle.crt"

// Options tune the conversion.
type Options struct {
	// Name is the OGXServer's name; empty means "<legacy name>-ogx",
	// shortened to fit the 46-character limit. It may not equal the legacy
	// name: adopting objects of the same name would make both operators fight
	// over them.
	Name string
}

// Result is a converted object and what could not be carried over.
type Result struct {
	Server *ogxv1beta1.OGXServer
	// Warnings name every field that was dropped or changed.
	Warnings []string
}

// Error is a legacy object that cannot be converted.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

func errorf(format string, args ...any) error { return &Error{Msg: fmt.Sprintf(format, args...)} }

// Convert maps a LlamaStackDistribution to an OGXServer.
func Convert(l *llsdv1alpha1.LlamaStackDistribution, opts Options) (*Result, error) {
	c := &converter{l: l, res: &Result{}}
	return c.run(opts)
}

type converter struct {
	l   *llsdv1alpha1.LlamaStackDistribution
	res *Result
}

func (c *converter) warn(format string, args ...any) {
	c.res.Warnings = append(c.res.Warnings, fmt.Sprintf(format, args...))
}

func (c *converter) run(opts Options) (*Result, error) {
	l := c.l
	name := opts.Name
	if name == "" {
		name = defaultName(l.Name)
	}
	if name == l.Name {
		return nil, errorf("the OGXServer name must differ from the LlamaStackDistribution name %q (adoption of same-named objects is refused)", l.Name)
	}
	s := &ogxv1beta1.OGXServer{
		TypeMeta: metav1.TypeMeta{APIVersion: ogxv1beta1.SchemeGroupVersion.String(), Kind: "OGXServer"},
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: l.Namespace,
			Annotations: map[string]string{ogxv1beta1.AnnotationAdoptNetworking: l.Name},
		},
	}
	c.res.Server = s
	c.metadata(s)
	srv := &l.Spec.Server
	if err := c.distribution(s, srv.Distribution); err != nil {
		return nil, err
	}
	w, err := c.workload(s, srv)
	if err != nil {
		return nil, err
	}
	if !equality.Semantic.DeepEqual(*w, ogxv1beta1.WorkloadSpec{}) {
		s.Spec.Workload = w
	}
	if err := c.userConfig(s, srv.UserConfig); err != nil {
		return nil, err
	}
	if err := c.caBundle(s, srv.TLSConfig); err != nil {
		return nil, err
	}
	c.network(s, l.Spec.Network)
	// As the API server would: the CRD's schema and CEL rules, then the
	// admission validator.
	if errs, err := schemaErrors(s); err != nil {
		return c.res, err
	} else if len(errs) > 0 {
		return c.res, &ValidationError{Errs: errs.ToAggregate().Error()}
	}
	if errs := validation.Validate(s); len(errs) > 0 {
		return c.res, &ValidationError{Errs: errs.ToAggregate().Error()}
	}
	return c.res, nil
}

// schemaErrors checks the converted OGXServer against the shipped CRD
// offline (pkg/crdvalidate), on a copy: the output keeps only what the
// conversion set, and the API server adds the defaults when it stores it.
func schemaErrors(s *ogxv1beta1.OGXServer) (field.ErrorList, error) {
	def, err := crd.Definition("ogxservers.ogx.io")
	if err != nil {
		return nil, err
	}
	v, err := crdvalidate.New(def, ogxv1beta1.SchemeGroupVersion.Version)
	if err != nil {
		return nil, err
	}
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(s)
	if err != nil {
		return nil, fmt.Errorf("converting the OGXServer for validation: %w", err)
	}
	obj["apiVersion"], obj["kind"] = ogxv1beta1.SchemeGroupVersion.String(), "OGXServer"
	return v.Create(context.Background(), obj), nil
}

// ValidationError means the converted object would not pass admission.
type ValidationError struct{ Errs string }

func (e *ValidationError) Error() string {
	return "the converted OGXServer would be rejected: " + e.Errs
}

// defaultName derives a valid OGXServer name from the legacy name.
func defaultName(legacy string) string {
	const suffix = "-ogx"
	base := legacy
	if max := validation.MaxNameLength - len(suffix); len(base) > max {
		base = strings.TrimRight(base[:max], "-")
	}
	if base == "" || base[0] < 'a' || base[0] > 'z' {
		base = "s" + base
		if len(base) > validation.MaxNameLength-len(suffix) {
			base = strings.TrimRight(base[:validation.MaxNameLength-len(suffix)], "-")
		}
	}
	return base + suffix
}

func (c *converter) distribution(s *ogxv1beta1.OGXServer, d llsdv1alpha1.DistributionType) error {
	switch {
	case d.Image != "":
		img := d.Image
		s.Spec.Distribution.Image = &img
	case d.Name != "":
		if _, ok := ogxv1beta1.Distributions()[d.Name]; !ok {
			return errorf("spec.server.distribution.name %q is not an OGX distribution (available: %s); set spec.server.distribution.image in the legacy object, or edit the output",
				d.Name, strings.Join(ogxv1beta1.DistributionNames(), ", "))
		}
		n := d.Name
		s.Spec.Distribution.Name = &n
	default:
		return errorf("spec.server.distribution names neither a name nor an image")
	}
	return nil
}

// metadata carries the legacy object's labels over and names each of its
// annotations, which may mean something only to the legacy operator, in a
// warning (kubectl's last-applied copy aside).
func (c *converter) metadata(s *ogxv1beta1.OGXServer) {
	if len(c.l.Labels) > 0 {
		s.Labels = maps.Clone(c.l.Labels)
	}
	for _, k := range slices.Sorted(maps.Keys(c.l.Annotations)) {
		if k != corev1.LastAppliedConfigAnnotation {
			c.warn("metadata.annotations[%s] not carried over: copy it to the OGXServer if ogx-controller or your tools should see it", k)
		}
	}
}

func (c *converter) sameNamespace(field, ns string) error {
	if ns != "" && c.l.Namespace == "" {
		// The output carries no namespace either: applied elsewhere, the
		// reference would break.
		return errorf("%s.configMapNamespace is %q but the LlamaStackDistribution has no metadata.namespace; add metadata.namespace: %s to it (an OGXServer references objects of its own namespace only)",
			field, ns, ns)
	}
	if ns != "" && ns != c.l.Namespace {
		return errorf("%s is in namespace %q; an OGXServer only references objects of its own namespace %q (copy it there first)",
			field, ns, c.l.Namespace)
	}
	return nil
}

func (c *converter) userConfig(s *ogxv1beta1.OGXServer, u *llsdv1alpha1.UserConfigSpec) error {
	if u == nil {
		return nil
	}
	if err := c.sameNamespace("spec.server.userConfig", u.ConfigMapNamespace); err != nil {
		return err
	}
	s.Spec.OverrideConfig = &ogxv1beta1.ConfigMapKeyRef{Name: u.ConfigMapName, Key: legacyConfigKey}
	c.warn("ConfigMap %s must carry the label %s: \"true\" for ogx-controller to see it", u.ConfigMapName, ogxv1beta1.WatchLabel)
	return nil
}

func (c *converter) caBundle(s *ogxv1beta1.OGXServer, t *llsdv1alpha1.TLSConfig) error {
	if t == nil || t.CABundle == nil {
		return nil
	}
	b := t.CABundle
	if err := c.sameNamespace("spec.server.tlsConfig.caBundle", b.ConfigMapNamespace); err != nil {
		return err
	}
	keys := b.ConfigMapKeys
	if len(keys) == 0 {
		keys = []string{legacyCAKey}
	}
	trust := &ogxv1beta1.TrustSpec{}
	for _, k := range keys {
		trust.CACertificates = append(trust.CACertificates, ogxv1beta1.ConfigMapKeyRef{Name: b.ConfigMapName, Key: k})
	}
	s.Spec.TLS = &ogxv1beta1.OutboundTLSSpec{Trust: trust}
	c.warn("ConfigMap %s must carry the label %s: \"true\" for ogx-controller to see it", b.ConfigMapName, ogxv1beta1.WatchLabel)
	return nil
}

func (c *converter) network(s *ogxv1beta1.OGXServer, n *llsdv1alpha1.NetworkSpec) {
	if n == nil {
		return
	}
	net := s.Spec.Network
	if net == nil {
		net = &ogxv1beta1.NetworkSpec{}
	}
	if n.ExposeRoute {
		net.ExternalAccess = &ogxv1beta1.ExternalAccessSpec{Enabled: true}
	}
	if a := n.AllowedFrom; a != nil && (len(a.Namespaces) > 0 || len(a.Labels) > 0) {
		var peers []networkingv1.NetworkPolicyPeer
		for _, ns := range a.Namespaces {
			sel := &metav1.LabelSelector{}
			if ns != "*" {
				sel.MatchLabels = map[string]string{corev1.LabelMetadataName: ns}
			}
			peers = append(peers, networkingv1.NetworkPolicyPeer{NamespaceSelector: sel})
		}
		for _, key := range a.Labels {
			peers = append(peers, networkingv1.NetworkPolicyPeer{NamespaceSelector: &metav1.LabelSelector{
				MatchExpressions: []metav1.LabelSelectorRequirement{{Key: key, Operator: metav1.LabelSelectorOpExists}},
			}})
		}
		net.Policy = &ogxv1beta1.NetworkPolicySpec{Ingress: []networkingv1.NetworkPolicyIngressRule{{From: peers}}}
	}
	if *net != (ogxv1beta1.NetworkSpec{}) {
		s.Spec.Network = net
	}
}
