package controller

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/render"
)

// Message prefixes kept from the upstream operator (docs/controllers.md,
// Referenced objects).
const (
	prefixConfigMap   = "failed to find referenced ConfigMap"
	prefixBaseConfig  = "failed to find referenced base ConfigMap"
	prefixCAConfigMap = "failed to find referenced CA certificate ConfigMap"
)

// references reads referenced ConfigMaps and Secrets from the label-filtered
// caches. On a cache miss it makes one live GET so the user learns whether
// the object does not exist or only lacks the ogx.io/watch label: the two
// need different fixes.
type references struct {
	caches *Caches
	kube   kubernetes.Interface
}

// configMap returns a referenced ConfigMap or a user error naming path.
func (r *references) configMap(ctx context.Context, ns, name, path, prefix string) (*corev1.ConfigMap, error) {
	if sc := r.caches.For(ns); sc != nil {
		if cm, err := sc.configMaps.ConfigMaps(ns).Get(name); err == nil {
			return cm, nil
		} else if !apierrors.IsNotFound(err) {
			return nil, err
		}
	}
	_, err := r.kube.CoreV1().ConfigMaps(ns).Get(ctx, name, metav1.GetOptions{})
	return nil, missingReference(err, fmt.Sprintf("%s %s/%s", prefix, ns, name), path)
}

// secret returns a referenced Secret or a user error naming path. prefix is
// the start of the message, e.g. "failed to resolve secret NS/name for env X".
func (r *references) secret(ctx context.Context, ns, name, path, prefix string) (*corev1.Secret, error) {
	if sc := r.caches.For(ns); sc != nil {
		if s, err := sc.secrets.Secrets(ns).Get(name); err == nil {
			return s, nil
		} else if !apierrors.IsNotFound(err) {
			return nil, err
		}
	}
	_, err := r.kube.CoreV1().Secrets(ns).Get(ctx, name, metav1.GetOptions{})
	return nil, missingReference(err, prefix, path)
}

// missingReference turns the live GET after a cache miss into the error the
// user sees.
func missingReference(liveErr error, what, path string) error {
	switch {
	case liveErr == nil:
		return NewUserError(ReasonReferenceNotWatched, "%s: exists but lacks label %s=true (referenced by %s)", what, ogxv1beta1.WatchLabel, path)
	case apierrors.IsNotFound(liveErr):
		return NewUserError(ReasonReferenceNotFound, "%s: not found (referenced by %s)", what, path)
	}
	return fmt.Errorf("%s: %w", what, liveErr)
}

// configMapKey returns one key of a referenced ConfigMap (data or binaryData).
func (r *references) configMapKey(ctx context.Context, ns string, ref ogxv1beta1.ConfigMapKeyRef, path, prefix, what string) (string, error) {
	cm, err := r.configMap(ctx, ns, ref.Name, path, prefix)
	if err != nil {
		return "", err
	}
	if v, ok := cm.Data[ref.Key]; ok {
		return v, nil
	}
	if v, ok := cm.BinaryData[ref.Key]; ok {
		return string(v), nil
	}
	return "", NewUserError(ReasonReferenceNotFound, "%s", render.MissingConfigMapKeyMessage(what, ns, ref.Name, ref.Key))
}

// secretKey returns one key of a referenced Secret; env names the variable
// it feeds, for the message.
func (r *references) secretKey(ctx context.Context, ns string, ref ogxv1beta1.SecretKeyRef, path, env string) ([]byte, error) {
	return r.secretKeyWith(ctx, ns, ref, path, env, render.MissingSecretKeyMessage)
}

// secretKeyWith is secretKey with the message of a missing key given by
// missing (the serving certificate's reads differently).
func (r *references) secretKeyWith(ctx context.Context, ns string, ref ogxv1beta1.SecretKeyRef, path, env string,
	missing func(ns, name, key, env string) string) ([]byte, error) {
	s, err := r.secret(ctx, ns, ref.Name, path, fmt.Sprintf("failed to resolve secret %s/%s for env %s", ns, ref.Name, env))
	if err != nil {
		return nil, err
	}
	v, ok := s.Data[ref.Key]
	if !ok {
		if sv, ok2 := s.StringData[ref.Key]; ok2 {
			return []byte(sv), nil
		}
		return nil, NewUserError(ReasonReferenceNotFound, "%s", missing(ns, ref.Name, ref.Key, env))
	}
	return v, nil
}
