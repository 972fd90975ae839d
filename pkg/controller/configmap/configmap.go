// Package configmap holds the controller of the ConfigMaps ogx-controller
// writes itself: each OGXServer's CA bundle N-ca-bundle and, in generated
// config mode, the immutable N-config-<h16>; it also deletes the generated
// ConfigMaps no ReplicaSet mounts any more (retention.go). Events of
// watched ConfigMaps and referenced Secrets start its passes.
package configmap

import (
	"context"
	"errors"
	"fmt"

	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/klog/v2"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/caches"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/events"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/worker"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
	"github.com/ogx-k8s/ogx-controller/pkg/resolve"
)

// NewController builds the configmap controller on d: it keeps the CA
// bundle N-ca-bundle (applied when non-empty, deleted when empty) and, in
// generated mode, N-config-<h16>.
func NewController(d *base.Deps) *base.Controller {
	c := base.NewController(base.ControllerConfigMap, d, reconcile)
	c.Watched = watched
	return c
}

// watched: the generated ConfigMap's pass starts on owned and
// referenced ConfigMaps and on referenced Secrets, its generation's inputs,
// and on an unlabelled odh-trusted-ca-bundle, which the CA bundle pass
// reports (logCABundleProblems).
func watched(w *caches.Sources) []*caches.Source {
	return []*caches.Source{w.ConfigMaps, w.Secrets, w.TrustedBundles}
}

func reconcile(ctx context.Context, d *base.Deps, s *ogxv1beta1.OGXServer) (worker.Result, error) {
	if err := caBundle(ctx, d, s); err != nil {
		return worker.Result{}, err
	}
	current, err := generated(ctx, d, s)
	if err != nil {
		return worker.Result{}, err
	}
	collectGenerated(ctx, d, s, current)
	// A pinned image tag is re-checked when due (base.Pins).
	return worker.Result{RequeueAfter: d.Resolver.RecheckIn(s)}, nil
}

func caBundle(ctx context.Context, d *base.Deps, s *ogxv1beta1.OGXServer) error {
	name := render.CABundleName(s.Name)
	b, err := d.Resolver.CABundle(ctx, s)
	logCABundleProblems(ctx, d.Causes, s, b, err)
	logTrustedBundleNotWatched(ctx, d.Causes, s, b, err)
	if err != nil {
		return err
	}
	d.Events.WarnWhile(s, ogxv1beta1.EventEmptyCABundle, "spec.tls.trust.caCertificates contain no certificates; no CA bundle is mounted",
		b.Data == "" && b.Explicit)
	return base.WriteChild(ctx, d, d.Children.ConfigMaps, s, name, b.Data != "",
		func() *corev1ac.ConfigMapApplyConfiguration { return render.CABundleConfigMap(s, b.Data) })
}

// specCurrent reports, later, whether the spec of s is still the server's
// current one: a generator warning's cause holds as long as the spec it was
// generated from.
func specCurrent(d *base.Deps, s *ogxv1beta1.OGXServer) func() bool {
	namespace, name, uid, generation := s.Namespace, s.Name, s.UID, s.Generation
	return func() bool {
		cur, err := d.Caches.Server(namespace, name)
		return err == nil && cur.UID == uid && cur.Generation == generation && cur.DeletionTimestamp == nil
	}
}

// generated writes the generated config ConfigMap when it is not cached.
func generated(ctx context.Context, d *base.Deps, s *ogxv1beta1.OGXServer) (string, error) {
	if s.Spec.ConfigMode() != ogxv1beta1.ConfigModeGenerated {
		return "", nil
	}
	rc, g, err := d.Resolver.RuntimeConfig(ctx, s)
	if err != nil || g == nil {
		return "", err
	}
	name := rc.ConfigMapName
	sc := d.Caches.For(s.Namespace)
	// The resolver has refused a cached ConfigMap of this name with other
	// content (a hash collision): one that is cached holds this config.
	if _, err := sc.ConfigMaps.ConfigMaps(s.Namespace).Get(name); err == nil {
		return name, nil
	}
	res, err := d.Children.ConfigMaps.Converge(ctx, s, name, render.GeneratedConfigMap(s, name, g.ConfigYAML))
	if err != nil {
		return "", err
	}
	if res == events.Created {
		d.Events.Normal(s, ogxv1beta1.EventConfigGenerated, fmt.Sprintf("Generated ConfigMap %s with %d providers and %d resources",
			name, g.ProviderCount, g.ResourceCount))
		for _, w := range g.Warnings {
			d.Events.Warn(s, ogxv1beta1.EventConfigGenerationWarning, w, specCurrent(d, s))
		}
	}
	return name, nil
}

// caBundleTopic is the CauseLog topic of a server's CA bundle problems;
// trustedBundleTopic that of an odh-trusted-ca-bundle left out for lacking
// the watch label, apart so that it is neither hidden by nor hides an
// error of spec.tls.trust.
const (
	caBundleTopic      = "ca-bundle"
	trustedBundleTopic = "trusted-ca-bundle-not-watched"
)

// logCABundleProblems logs what is wrong with a server's CA bundle sources
// once per cause: a referenced key missing or not PEM (a user error, which
// every retry finds again and the worker logs only at V(1)), or keys of
// odh-trusted-ca-bundle skipped as invalid (which fail nothing and would
// otherwise go unreported). Transient errors are not CA problems and leave
// the recorded cause alone.
func logCABundleProblems(ctx context.Context, causes base.CauseLog, s *ogxv1beta1.OGXServer, b resolve.CABundle, err error) {
	var cause string
	switch {
	case err != nil && !resolve.IsUserError(err):
		return
	case err != nil:
		cause = err.Error()
	case len(b.Warnings) > 0:
		cause = errors.Join(b.Warnings...).Error()
	}
	if !causes.Changed(s.UID, caBundleTopic, cause) {
		return
	}
	logger := klog.FromContext(ctx)
	if err != nil {
		logger.Info("CA bundle cannot be assembled; the server keeps its current bundle until this is fixed", "err", err)
		return
	}
	logger.Info("Skipped invalid keys of the trusted CA bundle ConfigMap", "ogxserver", klog.KObj(s),
		"configMap", render.TrustedCABundleConfigMap, "problems", b.Warnings)
}

// logTrustedBundleNotWatched logs, once per server until it is fixed and
// again if it comes back, that the namespace's odh-trusted-ca-bundle lacks
// the watch label and so is not part of the server's CA bundle: nothing
// fails, so without this the missing CAs would go unexplained. A failed
// assembly that stopped before the trusted bundle was looked up (any error
// but an invalid bundle) says nothing about it and leaves the recorded
// cause alone.
func logTrustedBundleNotWatched(ctx context.Context, causes base.CauseLog, s *ogxv1beta1.OGXServer, b resolve.CABundle, err error) {
	if err != nil && b.NotWatched == "" {
		return
	}
	if !causes.Changed(s.UID, trustedBundleTopic, b.NotWatched) {
		return
	}
	klog.FromContext(ctx).Info("Trusted CA bundle ConfigMap not watched; add the label to include it", "ogxserver", klog.KObj(s),
		"configMap", render.TrustedCABundleConfigMap, "label", ogxv1beta1.WatchLabel+"=true", "problem", b.NotWatched)
}
