package resolve

import (
	"context"
	"errors"
	"fmt"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

// CABundle is the assembled CA bundle of an OGXServer.
type CABundle struct {
	// Data is the content of ca-bundle.crt; empty means no bundle.
	Data string
	// Explicit reports that spec.tls.trust names certificates.
	Explicit bool
	// Warnings are problems with auto-detected keys, which are skipped.
	Warnings []error
	// NotWatched says why the namespace's odh-trusted-ca-bundle, which
	// exists, is not part of the bundle: it lacks the watch label. Empty
	// otherwise. The render command gets it through Warn as well; the
	// controller, which has no Warn, logs it per server (configmap
	// controller).
	NotWatched string
}

// CABundle assembles the bundle from spec.tls.trust.caCertificates (in spec
// order) and the namespace's watched odh-trusted-ca-bundle ConfigMap (keys
// sorted), as the configmap controller writes it and the deployment
// controller expects it (docs/children.md, CA bundle). The same sources
// always give the same bytes.
func (r *Resolver) CABundle(ctx context.Context, s *ogxv1beta1.OGXServer) (CABundle, error) {
	var sources []CASource
	var out CABundle
	if t := s.Spec.TLS; t != nil && t.Trust != nil {
		for i, ref := range t.Trust.CACertificates {
			path := fmt.Sprintf("spec.tls.trust.caCertificates[%d]", i)
			data, err := r.ConfigMapKey(ctx, s.Namespace, ref, path, PrefixCAConfigMap, "CA certificate")
			if r.Partial && absent(err) {
				// Without it the bundle, and so the pods' trust, would be
				// something else than the cluster would get.
				return out, NewUserError(ogxv1beta1.ReasonReferenceNotFound,
					"%s %s/%s: not found in the input (referenced by %s); the CA bundle cannot be rendered without it",
					PrefixCAConfigMap, s.Namespace, ref.Name, path)
			}
			if err != nil {
				return out, err
			}
			sources = append(sources, CASource{Key: ref.Key, Data: data, Explicit: true})
			out.Explicit = true
		}
	}
	cm, err := r.Source.CachedConfigMap(s.Namespace, render.TrustedCABundleConfigMap)
	switch {
	case err == nil:
		sources = append(sources, TrustedCABundleSources(cm.Data)...)
	case errors.Is(err, ErrNotWatched):
		out.NotWatched = fmt.Sprintf("ConfigMap %s/%s lacks label %s=true: the controller does not see it, so it is not part of the CA bundle",
			s.Namespace, render.TrustedCABundleConfigMap, ogxv1beta1.WatchLabel)
		r.warn("%s", out.NotWatched)
	}
	if len(sources) == 0 {
		return out, nil
	}
	data, _, warnings, err := AssembleCABundle(sources)
	if err != nil {
		return out, &UserError{Reason: ogxv1beta1.ReasonInvalidCABundle, Err: err}
	}
	out.Data, out.Warnings = data, warnings
	return out, nil
}
