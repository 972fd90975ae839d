package main

import (
	"context"

	corev1 "k8s.io/api/core/v1"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/configgen"
	"github.com/ogx-k8s/ogx-controller/pkg/configgen/oci"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
	"github.com/ogx-k8s/ogx-controller/pkg/resolve"
)

// fileSource is render's resolve.Source: the ConfigMaps and Secrets of the
// input files in the OGXServer's namespace stand in for the controller's
// watched caches, the flags for the operator ConfigMap, discovery and the
// registry (docs/cli.md, render). What the input lacks is not found; what
// it holds without the ogx.io/watch label is not watched, as the controller
// would see it.
type fileSource struct {
	namespace  string
	configMaps map[string]*corev1.ConfigMap
	secrets    map[string]*corev1.Secret

	overrides             map[string]string
	monitoring, openShift bool
	base                  []byte // --base, nil when not given
	hashKey               []byte // --hash-key-file, nil when not given
	oci                   *oci.Resolver
	pinned                map[string]string // PinnedImage's answers, by tag
	warn                  func(format string, args ...any)
}

// watched is the outcome of a lookup in the input.
func watched[T any](obj *T, ok bool, labels map[string]string) (*T, error) {
	switch {
	case !ok:
		return nil, resolve.ErrNotFound
	case labels[ogxv1beta1.WatchLabel] != "true":
		return nil, resolve.ErrNotWatched
	}
	return obj, nil
}

func (f *fileSource) CachedConfigMap(ns, name string) (*corev1.ConfigMap, error) {
	cm, ok := f.configMaps[name]
	if ns != f.namespace || !ok {
		return nil, resolve.ErrNotFound
	}
	return watched(cm, ok, cm.Labels)
}

func (f *fileSource) CachedSecret(ns, name string) (*corev1.Secret, error) {
	sec, ok := f.secrets[name]
	if ns != f.namespace || !ok {
		return nil, resolve.ErrNotFound
	}
	return watched(sec, ok, sec.Labels)
}

func (f *fileSource) ConfigMap(_ context.Context, ns, name string) (*corev1.ConfigMap, error) {
	return f.CachedConfigMap(ns, name)
}

func (f *fileSource) Secret(_ context.Context, ns, name string) (*corev1.Secret, error) {
	return f.CachedSecret(ns, name)
}

// GeneratedConfigMap is any ConfigMap of the input by that name: one the
// cluster holds would collide whatever its labels.
func (f *fileSource) GeneratedConfigMap(ns, name string) (*corev1.ConfigMap, error) {
	if cm, ok := f.configMaps[name]; ok && ns == f.namespace {
		return cm, nil
	}
	return nil, resolve.ErrNotFound
}

// AdoptedPVCs: PVCs adopted earlier exist only in a cluster.
func (f *fileSource) AdoptedPVCs(string, string) ([]string, error) { return nil, nil }

func (f *fileSource) PVC(context.Context, string, string) (*corev1.PersistentVolumeClaim, error) {
	return nil, resolve.ErrNotFound
}

func (f *fileSource) ImageOverrides() map[string]string { return f.overrides }

func (f *fileSource) OptionalAPIs() (monitoring, openShift bool) { return f.monitoring, f.openShift }

// HashKey is --hash-key-file's content. Without it the HMAC is keyed with
// nothing, and the annotation differs from the operator's, which is said.
func (f *fileSource) HashKey() ([]byte, error) {
	if f.hashKey == nil {
		f.warn("%s is keyed with an empty key: pass --hash-key-file for the value the operator writes", render.AnnotationSecretHash)
	}
	return f.hashKey, nil
}

func (f *fileSource) GivenBase() ([]byte, bool) { return f.base, f.base != nil }

// PinnedImage resolves ref's digest with --fetch-base, as the controller
// pins it (docs/config-generation.md, Digest pinning); the labels read
// then are what ImageBase finds in the resolver's cache. Without the flag
// no registry is asked and the tag is left as written (docs/cli.md).
func (f *fileSource) PinnedImage(ctx context.Context, s *ogxv1beta1.OGXServer, ref string) (string, error) {
	if image, ok := f.pinned[ref]; ok {
		return image, nil // one answer per tag and render: it is asked more than once
	}
	if f.pinned == nil {
		f.pinned = map[string]string{}
	}
	if f.oci == nil {
		f.pinned[ref] = ref
		return ref, nil
	}
	res, err := f.oci.Resolve(ctx, ref)
	if err != nil {
		return "", err
	}
	f.pinned[ref] = oci.PinnedImage(ref, res.Digest)
	return f.pinned[ref], nil
}

// ImageBase reads the image's OCI labels with --fetch-base, and otherwise
// says how to supply a base config.
func (f *fileSource) ImageBase(ctx context.Context, s *ogxv1beta1.OGXServer, image func() (string, error)) (resolve.Base, error) {
	ref := s.Spec.BaseConfig
	if f.oci == nil {
		if ref != nil {
			return resolve.Base{}, failedf("no base config: pass --base, include ConfigMap %s in the input, or pass --fetch-base", ref.Name)
		}
		return resolve.Base{}, failedf("no base config: pass --base, set spec.baseConfig and include its ConfigMap in the input, or pass --fetch-base")
	}
	if ref != nil {
		f.warn("ConfigMap %s/%s of spec.baseConfig is not in the input; using the image's OCI labels instead (the controller would report the ConfigMap as not found)", s.Namespace, ref.Name)
	}
	img, err := image()
	if err != nil {
		return resolve.Base{}, err
	}
	res, err := f.oci.Resolve(ctx, img)
	if err != nil {
		return resolve.Base{}, err
	}
	for _, w := range res.Warnings {
		f.warn("%s", w)
	}
	return resolve.Base{Config: res.Config, Source: configgen.SourceOCILabel, Digest: res.Digest}, nil
}
