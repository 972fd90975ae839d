package resolve

import (
	"context"
	"errors"

	corev1 "k8s.io/api/core/v1"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

// The two ways a referenced object can be missing. They need different
// fixes, so they are reported apart (docs/controllers.md, Referenced
// objects).
var (
	// ErrNotFound: the object does not exist (or, for render, is not in
	// the input).
	ErrNotFound = errors.New("not found")
	// ErrNotWatched: the object exists but lacks the ogx.io/watch label, so
	// the controller cannot see it.
	ErrNotWatched = errors.New("not watched")
)

// Source supplies the objects a Resolver reads. A lookup that finds nothing
// returns an error wrapping ErrNotFound or ErrNotWatched; any other error is
// passed on, wrapped, as a transient failure.
type Source interface {
	// ConfigMap and Secret return a referenced object. They may read live
	// to tell ErrNotFound from ErrNotWatched.
	ConfigMap(ctx context.Context, namespace, name string) (*corev1.ConfigMap, error)
	Secret(ctx context.Context, namespace, name string) (*corev1.Secret, error)
	// CachedConfigMap and CachedSecret return what the watched view holds,
	// never reading live: objects read on every pass (the trusted CA
	// bundle, the serving Secret's ca.crt, a generated ConfigMap).
	CachedConfigMap(namespace, name string) (*corev1.ConfigMap, error)
	CachedSecret(namespace, name string) (*corev1.Secret, error)
	// GeneratedConfigMap returns a ConfigMap of a generated config's name
	// that the source shows, to detect a hash collision: render's input
	// files, labelled or not; the controller's watched (labelled) cache,
	// where generated ConfigMaps always are.
	GeneratedConfigMap(namespace, name string) (*corev1.ConfigMap, error)
	// AdoptedPVCs names the PVCs labelled as adopted for the instance.
	AdoptedPVCs(namespace, instance string) ([]string, error)
	// PVC reads one claim (storage adoption's gate).
	PVC(ctx context.Context, namespace, name string) (*corev1.PersistentVolumeClaim, error)
	// HashKey is the key of the secret.hash/referenced HMAC (SecretHash):
	// the controller's cached hash-key Secret (ErrHashKeyPending while it
	// is missing), render's --hash-key-file.
	HashKey() ([]byte, error)
	// ImageOverrides are the valid entries of the operator ConfigMap's
	// image-overrides (render: --image-override).
	ImageOverrides() map[string]string
	// OptionalAPIs reports whether the monitoring and OpenShift security
	// APIs are served.
	OptionalAPIs() (monitoring, openShift bool)
	// GivenBase is a base config that takes precedence over
	// spec.baseConfig (render's --base); ok is false when there is none.
	GivenBase() (base []byte, ok bool)
	// ImageBase reads the base config when spec.baseConfig supplies none:
	// from the image's OCI labels, image resolving the server image. Its
	// errors are reported as they are.
	ImageBase(ctx context.Context, s *ogxv1beta1.OGXServer, image func() (string, error)) (Base, error)
	// PinnedImage is ref, a tag whose image labels hold s's base config,
	// pinned to a digest: ref@<digest>, the image the pods run and the
	// labels are read from (docs/config-generation.md, Digest pinning).
	PinnedImage(ctx context.Context, s *ogxv1beta1.OGXServer, ref string) (string, error)
}

// Base is a base config and where it came from.
type Base struct {
	Config []byte
	// Source is configgen.SourceConfigMap or configgen.SourceOCILabel.
	Source string
	// Digest is the image digest learned while reading its labels.
	Digest string
}
