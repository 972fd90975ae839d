package webhookcerts

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	"k8s.io/klog/v2"
)

// EnsureSecret makes the Secret hold a valid CA and serving certificate,
// creating, renewing or repairing them as needed, and reports whether it
// wrote. A Secret that is already fine is not written. Only the leader
// calls it. A write that races another writer is retried on a fresh read.
func (m *Manager) EnsureSecret(ctx context.Context) (bool, error) {
	var changed bool
	err := retry.OnError(retry.DefaultRetry, func(err error) bool {
		return apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err)
	}, func() error {
		var err error
		changed, err = m.ensureSecret(ctx)
		return err
	})
	if err != nil {
		return false, fmt.Errorf("webhookcerts: ensuring Secret %s: %w", m.secretRef(), err)
	}
	return changed, nil
}

func (m *Manager) ensureSecret(ctx context.Context) (bool, error) {
	logger := klog.FromContext(ctx)
	api := m.opts.Kube.CoreV1().Secrets(m.opts.Namespace)
	cur, err := api.Get(ctx, m.opts.SecretName, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		cur = nil
	case err != nil:
		return false, fmt.Errorf("reading: %w", err)
	case cur.Annotations[CertManagerAnnotation] != "":
		return false, ErrExternallyManaged
	}
	var data map[string][]byte
	if cur != nil {
		data = cur.Data
	}
	p, err := makePlan(data, m.opts.Now(), m.sub)
	if err != nil {
		return false, err
	}
	if cur != nil && !p.changed(data) {
		logger.V(4).Info("Webhook certificate Secret is current", "secret", m.secretRef())
		return false, nil
	}
	if err := m.writeSecret(ctx, cur, p.data); err != nil {
		return false, err
	}
	bundle, _ := parseCertificates(p.data[CACertKey])
	logger.Info("Wrote the webhook certificate Secret", "secret", m.secretRef(), "created", cur == nil,
		"caReason", p.caReason, "servingReason", p.servingReason,
		"ca", p.ca.Subject.CommonName, "caNotAfter", p.ca.NotAfter.UTC().Format(time.RFC3339),
		"trustedCAs", len(bundle), "prunedCAs", p.pruned,
		"servingSerial", p.serving.SerialNumber.String(), "servingNotAfter", p.serving.NotAfter.UTC().Format(time.RFC3339))
	return true, nil
}

// writeSecret creates the Secret with data when cur is nil, else merges
// data into it.
func (m *Manager) writeSecret(ctx context.Context, cur *corev1.Secret, data map[string][]byte) error {
	api := m.opts.Kube.CoreV1().Secrets(m.opts.Namespace)
	if cur == nil {
		_, err := api.Create(ctx, &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: m.opts.SecretName, Namespace: m.opts.Namespace,
				Labels: map[string]string{ManagedByLabel: FieldManager}},
			Type: corev1.SecretTypeTLS,
			Data: data,
		}, metav1.CreateOptions{FieldManager: FieldManager})
		if err != nil {
			return fmt.Errorf("creating: %w", err)
		}
		return nil
	}
	// A merge patch of the four keys; the resourceVersion makes it fail
	// with a conflict if the Secret changed since it was read.
	meta := map[string]any{"labels": map[string]string{ManagedByLabel: FieldManager}}
	if cur.ResourceVersion != "" {
		meta["resourceVersion"] = cur.ResourceVersion
	}
	body, err := json.Marshal(map[string]any{"metadata": meta, "data": data})
	if err != nil {
		return fmt.Errorf("encoding patch: %w", err)
	}
	if _, err := api.Patch(ctx, m.opts.SecretName, types.MergePatchType, body,
		metav1.PatchOptions{FieldManager: FieldManager}); err != nil {
		return fmt.Errorf("patching: %w", err)
	}
	return nil
}
