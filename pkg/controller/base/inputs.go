package base

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/configgen"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/caches"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/events"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/record"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
	"github.com/ogx-k8s/ogx-controller/pkg/resolve"
)

// Resolver is pkg/resolve's Resolver on the informer caches, with the memo
// of generated configs and the optional APIs; every controller asks it for
// its inputs (docs/controllers.md, Inputs).
type Resolver struct {
	*resolve.Resolver
	Memo *ConfigMemo
	APIs *OptionalAPIs
	Pins *Pins
}

// NewResolver builds the resolver every controller of a process shares;
// sink sends the Events of image pins.
func NewResolver(c *caches.Caches, kube kubernetes.Interface, opts Options, records *record.Store, sink *events.Sink) *Resolver {
	apis := &OptionalAPIs{}
	memo := newConfigMemo(records)
	pins := NewPins(records, opts.Generator, sink, max(opts.ImageRecheckInterval, 0))
	src := &cacheSource{caches: c, kube: kube, apis: apis, bases: opts.Generator, pins: pins, operatorNamespace: opts.OperatorNamespace}
	return &Resolver{
		Resolver: &resolve.Resolver{Source: src, Table: opts.Distributions, Memo: memo, Generator: opts.ConfigGenerator,
			OperatorNamespace: opts.OperatorNamespace, ClusterDomain: opts.ClusterDomain, ServerAnyUID: opts.ServerAnyUID},
		Memo: memo, APIs: apis, Pins: pins,
	}
}

// RecheckIn is how long until s's image pin is due for a re-check (0:
// none planned); the controllers that resolve images come back then.
func (r *Resolver) RecheckIn(s *ogxv1beta1.OGXServer) time.Duration { return r.Pins.RecheckIn(s) }

// cacheSource is the controller's resolve.Source: the label-filtered
// caches. On a cache miss of a referenced ConfigMap or Secret one live GET
// tells the user whether the object is missing or only lacks the
// ogx.io/watch label: the two need different fixes.
type cacheSource struct {
	caches            *caches.Caches
	kube              kubernetes.Interface
	apis              *OptionalAPIs
	bases             *Generator
	pins              *Pins
	operatorNamespace string
}

// liveOutcome turns the live GET after a cache miss into resolve's
// ErrNotWatched (it exists) or ErrNotFound.
func liveOutcome(err error) error {
	switch {
	case err == nil:
		return resolve.ErrNotWatched
	case apierrors.IsNotFound(err):
		return resolve.ErrNotFound
	}
	return err
}

func (c *cacheSource) ConfigMap(ctx context.Context, ns, name string) (*corev1.ConfigMap, error) {
	cm, err := c.CachedConfigMap(ns, name)
	if !errors.Is(err, resolve.ErrNotFound) {
		return cm, err
	}
	_, err = c.kube.CoreV1().ConfigMaps(ns).Get(ctx, name, metav1.GetOptions{})
	return nil, liveOutcome(err)
}

func (c *cacheSource) Secret(ctx context.Context, ns, name string) (*corev1.Secret, error) {
	s, err := c.CachedSecret(ns, name)
	if !errors.Is(err, resolve.ErrNotFound) {
		return s, err
	}
	_, err = c.kube.CoreV1().Secrets(ns).Get(ctx, name, metav1.GetOptions{})
	return nil, liveOutcome(err)
}

// notFoundAs maps a NotFound error to resolve.ErrNotFound.
func notFoundAs[T any](obj *T, err error) (*T, error) {
	if apierrors.IsNotFound(err) {
		return nil, resolve.ErrNotFound
	}
	return obj, err
}

// CachedConfigMap and CachedSecret report an unwatched namespace as
// resolve.ErrNotFound. An odh-trusted-ca-bundle the watched cache lacks is
// resolve.ErrNotWatched when the trusted-bundle metadata cache holds it
// unlabelled (caches.Caches.WatchTrustedBundles): it is read on every pass,
// so the two are told apart without a live read.
func (c *cacheSource) CachedConfigMap(ns, name string) (*corev1.ConfigMap, error) {
	sc := c.caches.For(ns)
	if sc == nil {
		return nil, resolve.ErrNotFound
	}
	cm, err := notFoundAs(sc.ConfigMaps.ConfigMaps(ns).Get(name))
	if errors.Is(err, resolve.ErrNotFound) && name == render.TrustedCABundleConfigMap && sc.HasUnwatchedTrustedBundle(ns) {
		return nil, fmt.Errorf("ConfigMap %s/%s: %w", ns, name, resolve.ErrNotWatched)
	}
	return cm, err
}

func (c *cacheSource) CachedSecret(ns, name string) (*corev1.Secret, error) {
	if sc := c.caches.For(ns); sc != nil {
		return notFoundAs(sc.Secrets.Secrets(ns).Get(name))
	}
	return nil, resolve.ErrNotFound
}

// GeneratedConfigMap reads the watched cache, which holds the generated
// ConfigMaps (they carry the watch label).
func (c *cacheSource) GeneratedConfigMap(ns, name string) (*corev1.ConfigMap, error) {
	return c.CachedConfigMap(ns, name)
}

// AdoptedPVCs reads the adopted-PVC cache, which also holds PVCs the
// upstream operator adopted without our managed-by label.
func (c *cacheSource) AdoptedPVCs(ns, instance string) ([]string, error) {
	list, err := CachedAdoptedPVCs(c.caches, ns, instance)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(list))
	for _, p := range list {
		names = append(names, p.Name)
	}
	return names, nil
}

// PVC reads live: the PVC to adopt is not labelled for any cache yet.
func (c *cacheSource) PVC(ctx context.Context, ns, name string) (*corev1.PersistentVolumeClaim, error) {
	return notFoundAs(c.kube.CoreV1().PersistentVolumeClaims(ns).Get(ctx, name, metav1.GetOptions{}))
}

// ImageOverrides reads the image-overrides of the operator ConfigMap;
// invalid entries are ignored here (the event is emitted where the
// ConfigMap is watched).
func (c *cacheSource) ImageOverrides() map[string]string {
	cm, err := c.caches.OperatorConfigMap.ConfigMaps(c.operatorNamespace).Get(render.OperatorConfigMapName)
	if err != nil {
		return nil
	}
	o, _ := resolve.ImageOverrides(cm.Data[render.ImageOverridesKey])
	return o
}

// HashKey reads the key of the cached hash-key Secret; the leader creates
// it (Manager), and its events enqueue every server.
func (c *cacheSource) HashKey() ([]byte, error) {
	sec, err := c.caches.HashKeys.Secrets(c.operatorNamespace).Get(render.HashKeySecretName)
	if err != nil {
		return nil, resolve.ErrHashKeyPending
	}
	if len(sec.Data[render.HashKeyDataKey]) == 0 {
		return nil, fmt.Errorf("Secret %s/%s has no data key %q: delete it and ogx-controller creates it anew",
			c.operatorNamespace, render.HashKeySecretName, render.HashKeyDataKey)
	}
	return sec.Data[render.HashKeyDataKey], nil
}

func (c *cacheSource) OptionalAPIs() (monitoring, openShift bool) {
	return c.apis.Monitoring.Load(), c.apis.OpenShift.Load()
}

// GivenBase: the controller has no base besides spec.baseConfig and the
// image's labels.
func (c *cacheSource) GivenBase() ([]byte, bool) { return nil, false }

// PinnedImage pins ref to its digest (Pins).
func (c *cacheSource) PinnedImage(ctx context.Context, s *ogxv1beta1.OGXServer, ref string) (string, error) {
	return c.pins.Image(ctx, s, ref)
}

// ImageBase reads the base config from the image's labels (Generator); a
// registry failure is a BaseConfigUnavailable user error, a resolution
// under way a DeferredError.
func (c *cacheSource) ImageBase(ctx context.Context, s *ogxv1beta1.OGXServer, image func() (string, error)) (resolve.Base, error) {
	img, err := image()
	if err != nil {
		return resolve.Base{}, err
	}
	res, err := c.bases.ociBase(ctx, s.Namespace, img)
	if deferred := (*DeferredError)(nil); errors.As(err, &deferred) {
		return resolve.Base{}, err
	}
	if err != nil {
		return resolve.Base{}, &resolve.UserError{Reason: ogxv1beta1.ReasonBaseConfigUnavailable, Err: err}
	}
	return resolve.Base{Config: res.Config, Source: configgen.SourceOCILabel, Digest: res.Digest}, nil
}
