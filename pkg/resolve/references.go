package resolve

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

// Message prefixes kept from the upstream operator (docs/controllers.md,
// Referenced objects).
const (
	PrefixConfigMap   = "failed to find referenced ConfigMap"
	PrefixBaseConfig  = "failed to find referenced base ConfigMap"
	PrefixCAConfigMap = "failed to find referenced CA certificate ConfigMap"
)

// absentError is the ReferenceNotFound of a missing object (not of a
// missing key): a Partial resolver may go on without the object.
type absentError struct{ msg string }

func (e *absentError) Error() string        { return e.msg }
func (e *absentError) Is(target error) bool { return target == ErrNotFound }

// absent reports whether err is a referenced object that does not exist.
func absent(err error) bool { return errors.Is(err, ErrNotFound) }

// missingReference turns a failed lookup into the error the user sees.
func missingReference(err error, what, path string) error {
	switch {
	case errors.Is(err, ErrNotWatched):
		return NewUserError(ogxv1beta1.ReasonReferenceNotWatched, "%s: exists but lacks label %s=true (referenced by %s)", what, ogxv1beta1.WatchLabel, path)
	case errors.Is(err, ErrNotFound):
		return &UserError{Reason: ogxv1beta1.ReasonReferenceNotFound, Err: &absentError{fmt.Sprintf("%s: not found (referenced by %s)", what, path)}}
	}
	return fmt.Errorf("%s: %w", what, err)
}

// configMap returns a referenced ConfigMap or a user error naming path.
func (r *Resolver) configMap(ctx context.Context, ns, name, path, prefix string) (*corev1.ConfigMap, error) {
	cm, err := r.Source.ConfigMap(ctx, ns, name)
	if err != nil {
		return nil, missingReference(err, fmt.Sprintf("%s %s/%s", prefix, ns, name), path)
	}
	return cm, nil
}

// ConfigMapKey returns one key of a referenced ConfigMap (data, then
// binaryData); what names the value in the message of a missing key.
func (r *Resolver) ConfigMapKey(ctx context.Context, ns string, ref ogxv1beta1.ConfigMapKeyRef, path, prefix, what string) (string, error) {
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
	return "", NewUserError(ogxv1beta1.ReasonReferenceNotFound, "%s", MissingConfigMapKeyMessage(what, ns, ref.Name, ref.Key))
}

// secretKey returns one key of a referenced Secret; env names the variable
// it feeds, for the message.
func (r *Resolver) secretKey(ctx context.Context, ns string, ref ogxv1beta1.SecretKeyRef, path, env string) ([]byte, error) {
	return r.secretKeyWith(ctx, ns, ref, path, env, MissingSecretKeyMessage)
}

// secretKeyWith is secretKey with the message of a missing key given by
// missing (the serving certificate's reads differently).
func (r *Resolver) secretKeyWith(ctx context.Context, ns string, ref ogxv1beta1.SecretKeyRef, path, env string,
	missing func(ns, name, key, env string) string) ([]byte, error) {
	s, err := r.Source.Secret(ctx, ns, ref.Name)
	if err != nil {
		return nil, missingReference(err, fmt.Sprintf("failed to resolve secret %s/%s for env %s", ns, ref.Name, env), path)
	}
	if v, ok := SecretValue(s, ref.Key); ok {
		return v, nil
	}
	return nil, NewUserError(ogxv1beta1.ReasonReferenceNotFound, "%s", missing(ns, ref.Name, ref.Key, env))
}

// SecretValue reads data, then stringData (an input file may use either).
func SecretValue(sec *corev1.Secret, key string) ([]byte, bool) {
	if v, ok := sec.Data[key]; ok {
		return v, true
	}
	if v, ok := sec.StringData[key]; ok {
		return []byte(v), true
	}
	return nil, false
}
