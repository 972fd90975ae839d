package controller

import (
	"context"
	"fmt"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/render"
)

// caBundle is the assembled CA bundle of an OGXServer.
type caBundle struct {
	// data is the content of ca-bundle.crt; empty means no bundle.
	data string
	// explicit reports that spec.tls.trust names certificates.
	explicit bool
	// warnings are problems with auto-detected keys, which are skipped.
	warnings []error
}

// caBundle assembles the bundle from spec.tls.trust.caCertificates (in spec
// order) and the namespace's odh-trusted-ca-bundle ConfigMap when the cache
// holds it (keys sorted), as the configmap controller writes it and the
// deployment controller expects it. The same sources always give the same
// bytes.
func (r *resolver) caBundle(ctx context.Context, s *ogxv1beta1.OGXServer) (caBundle, error) {
	var sources []render.CASource
	var out caBundle
	if t := s.Spec.TLS; t != nil && t.Trust != nil {
		for i, ref := range t.Trust.CACertificates {
			path := fmt.Sprintf("spec.tls.trust.caCertificates[%d]", i)
			data, err := r.refs.configMapKey(ctx, s.Namespace, ref, path, prefixCAConfigMap, "CA certificate")
			if err != nil {
				return out, err
			}
			sources = append(sources, render.CASource{Key: ref.Key, Data: data, Explicit: true})
			out.explicit = true
		}
	}
	if sc := r.caches.For(s.Namespace); sc != nil {
		if cm, err := sc.configMaps.ConfigMaps(s.Namespace).Get(render.TrustedCABundleConfigMap); err == nil {
			sources = append(sources, render.TrustedCABundleSources(cm.Data)...)
		}
	}
	if len(sources) == 0 {
		return out, nil
	}
	data, _, warnings, err := render.AssembleCABundle(sources)
	if err != nil {
		return out, &UserError{Reason: ReasonInvalidCABundle, Err: err}
	}
	out.data, out.warnings = data, warnings
	return out, nil
}
