package webhookcerts

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	"k8s.io/klog/v2"
)

// SyncCABundle sets clientConfig.caBundle of every webhook of the
// ValidatingWebhookConfiguration to the Secret's ca.crt and reports whether
// it wrote. Webhooks that already carry it are not touched. A missing
// Secret or configuration is not an error: it is logged and the next call
// tries again. Only the leader calls it.
func (m *Manager) SyncCABundle(ctx context.Context) (bool, error) {
	bundle, found, err := m.secretCABundle(ctx)
	if err != nil || !found {
		return false, err
	}
	name := m.opts.WebhookConfigurationName
	var changed bool
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		var err error
		changed, err = m.patchCABundle(ctx, bundle)
		return err
	})
	if err != nil {
		return false, fmt.Errorf("webhookcerts: syncing the caBundle of ValidatingWebhookConfiguration %s: %w", name, err)
	}
	return changed, nil
}

// secretCABundle reads ca.crt from the Secret and checks that it parses;
// found is false while there is no Secret.
func (m *Manager) secretCABundle(ctx context.Context) (bundle []byte, found bool, err error) {
	sec, err := m.opts.Kube.CoreV1().Secrets(m.opts.Namespace).Get(ctx, m.opts.SecretName, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		klog.FromContext(ctx).V(2).Info("No webhook certificate Secret yet; the caBundle waits", "secret", m.secretRef())
		return nil, false, nil
	case err != nil:
		return nil, false, fmt.Errorf("webhookcerts: reading Secret %s: %w", m.secretRef(), err)
	case sec.Annotations[CertManagerAnnotation] != "":
		return nil, false, fmt.Errorf("webhookcerts: Secret %s: %w", m.secretRef(), ErrExternallyManaged)
	}
	bundle = sec.Data[CACertKey]
	if _, err := parseCertificates(bundle); err != nil {
		return nil, false, fmt.Errorf("webhookcerts: %s of Secret %s: %w", CACertKey, m.secretRef(), err)
	}
	return bundle, true, nil
}

// patchCABundle reads the webhook configuration and patches the caBundle
// of every webhook that does not carry bundle, with the resourceVersion it
// read as a precondition; it reports whether it wrote. A missing
// configuration is logged once and not an error.
func (m *Manager) patchCABundle(ctx context.Context, bundle []byte) (bool, error) {
	logger := klog.FromContext(ctx)
	name := m.opts.WebhookConfigurationName
	api := m.opts.Kube.AdmissionregistrationV1().ValidatingWebhookConfigurations()
	vwc, err := api.Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		if !m.configMissing.Swap(true) {
			logger.Info("ValidatingWebhookConfiguration not found; its caBundle is set once it exists",
				"configuration", name)
		}
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("reading: %w", err)
	}
	m.configMissing.Store(false)
	var patched []map[string]any
	var names []string
	for _, wh := range vwc.Webhooks {
		if !bytes.Equal(wh.ClientConfig.CABundle, bundle) {
			patched = append(patched, map[string]any{"name": wh.Name, "clientConfig": map[string]any{"caBundle": bundle}})
			names = append(names, wh.Name)
		}
	}
	if len(patched) == 0 {
		logger.V(4).Info("Webhook caBundle is current", "configuration", name)
		return false, nil
	}
	// A strategic merge patch: webhooks merge by name, so only the
	// caBundle of the listed entries changes.
	meta := map[string]any{}
	if vwc.ResourceVersion != "" {
		meta["resourceVersion"] = vwc.ResourceVersion
	}
	body, err := json.Marshal(map[string]any{"metadata": meta, "webhooks": patched})
	if err != nil {
		return false, fmt.Errorf("encoding patch: %w", err)
	}
	if _, err := api.Patch(ctx, name, types.StrategicMergePatchType, body,
		metav1.PatchOptions{FieldManager: FieldManager}); err != nil {
		return false, fmt.Errorf("patching: %w", err)
	}
	logger.Info("Updated the webhook caBundle", "configuration", name, "webhooks", names)
	return true, nil
}
