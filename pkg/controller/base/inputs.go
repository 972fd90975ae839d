package base

import (
	"context"
	"errors"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/caches"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/record"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
	"github.com/ogx-k8s/ogx-controller/pkg/resolve"
)

// OptionalAPIs records what discovery last found (docs/controllers.md,
// Optional APIs).
type OptionalAPIs struct {
	Monitoring atomic.Bool
	OpenShift  atomic.Bool
}

// Resolver is pkg/resolve's Resolver on the informer caches,
// with the state it needs in this process: the memo of generated configs
// (status reads it, the generating controllers fill it) and the optional
// APIs. It is shared and read-only; every controller that needs an input
// asks it, so no controller reads another controller's child to decide its
// own.
type Resolver struct {
	*resolve.Resolver
	Memo *ConfigMemo
	APIs *OptionalAPIs
}

// NewResolver builds the resolver every controller of a process shares.
func NewResolver(c *caches.Caches, kube kubernetes.Interface, opts Options, records *record.Store) *Resolver {
	apis := &OptionalAPIs{}
	memo := newConfigMemo(records)
	src := &cacheSource{caches: c, kube: kube, apis: apis, bases: opts.Generator, operatorNamespace: opts.OperatorNamespace}
	return &Resolver{
		Resolver: &resolve.Resolver{Source: src, Table: opts.Distributions, Memo: memo, Generator: opts.ConfigGenerator,
			OperatorNamespace: opts.OperatorNamespace, ClusterDomain: opts.ClusterDomain},
		Memo: memo, APIs: apis,
	}
}

// cacheSource is the controller's resolve.Source: the label-filtered
// caches. On a cache miss of a referenced ConfigMap or Secret it makes one
// live GET so the user learns whether the object does not exist or only
// lacks the ogx.io/watch label: the two need different fixes.
type cacheSource struct {
	caches            *caches.Caches
	kube              kubernetes.Interface
	apis              *OptionalAPIs
	bases             *Generator
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

// cacheOutcome maps a lister's NotFound (or an unwatched namespace) to
// resolve.ErrNotFound.
func cacheOutcome[T any](obj *T, err error) (*T, error) {
	if apierrors.IsNotFound(err) {
		return nil, resolve.ErrNotFound
	}
	return obj, err
}

func (c *cacheSource) CachedConfigMap(ns, name string) (*corev1.ConfigMap, error) {
	sc := c.caches.For(ns)
	if sc == nil {
		return nil, resolve.ErrNotFound
	}
	return cacheOutcome(sc.ConfigMaps.ConfigMaps(ns).Get(name))
}

func (c *cacheSource) CachedSecret(ns, name string) (*corev1.Secret, error) {
	sc := c.caches.For(ns)
	if sc == nil {
		return nil, resolve.ErrNotFound
	}
	return cacheOutcome(sc.Secrets.Secrets(ns).Get(name))
}

// GeneratedConfigMap reads the watched cache, which holds the generated
// ConfigMaps (they carry the watch label).
func (c *cacheSource) GeneratedConfigMap(ns, name string) (*corev1.ConfigMap, error) {
	return c.CachedConfigMap(ns, name)
}

// AdoptedPVCs reads the adopted-PVC cache (selected by the adopted-from
// label alone), so a PVC adopted by the upstream operator without our
// managed-by label is seen as well.
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
	pvc, err := c.kube.CoreV1().PersistentVolumeClaims(ns).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, resolve.ErrNotFound
	}
	return pvc, err
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

func (c *cacheSource) OptionalAPIs() (monitoring, openShift bool) {
	return c.apis.Monitoring.Load(), c.apis.OpenShift.Load()
}

// GivenBase: the controller has no base besides spec.baseConfig and the
// image's labels.
func (c *cacheSource) GivenBase() ([]byte, bool) { return nil, false }

// ImageBase reads the base config from the image's labels through the
// shared, time-bounded resolutions of the Generator.
func (c *cacheSource) ImageBase(ctx context.Context, _ *ogxv1beta1.OGXServer, image func() (string, error)) (resolve.Base, error) {
	return c.bases.imageBase(ctx, image)
}
