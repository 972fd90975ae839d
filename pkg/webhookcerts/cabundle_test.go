package webhookcerts

import (
	"bytes"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stesting "k8s.io/client-go/testing"
)

func TestSyncCABundle(t *testing.T) {
	f := newFixture(t)
	ctx := f.ctx

	// Neither Secret nor configuration: nothing to do, no error.
	if changed, err := f.m.SyncCABundle(ctx); err != nil || changed {
		t.Fatalf("SyncCABundle without a Secret = %v, %v", changed, err)
	}
	s := f.ensure(t, true)
	if changed, err := f.m.SyncCABundle(ctx); err != nil || changed {
		t.Fatalf("SyncCABundle without a configuration = %v, %v", changed, err)
	}
	want := webhookConfiguration()
	if _, err := f.kube.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx, want, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	f.kube.ClearActions()
	if changed, err := f.m.SyncCABundle(ctx); err != nil || !changed {
		t.Fatalf("SyncCABundle = %v, %v; want a change", changed, err)
	}
	if w := f.writes(); len(w) != 1 || w[0].GetVerb() != "patch" {
		t.Fatalf("writes = %v, want one patch", w)
	}
	got := f.webhookConfiguration(t)
	for i, wh := range got.Webhooks {
		if !bytes.Equal(wh.ClientConfig.CABundle, s.Data[CACertKey]) {
			t.Errorf("webhook %s has caBundle %q", wh.Name, wh.ClientConfig.CABundle)
		}
		// Nothing else changed.
		wh.ClientConfig.CABundle = nil
		if wh.Name != want.Webhooks[i].Name || wh.ClientConfig.Service == nil || *wh.ClientConfig.Service.Path != *want.Webhooks[i].ClientConfig.Service.Path {
			t.Errorf("webhook %d = %+v", i, wh)
		}
	}

	f.kube.ClearActions()
	if changed, err := f.m.SyncCABundle(ctx); err != nil || changed {
		t.Fatalf("second SyncCABundle = %v, %v; want no change", changed, err)
	}
	f.expectNoWrites(t)

	// Only the webhook that differs is patched.
	got.Webhooks[1].ClientConfig.CABundle = []byte("stale")
	if _, err := f.kube.AdmissionregistrationV1().ValidatingWebhookConfigurations().Update(ctx, got, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	f.kube.ClearActions()
	if changed, err := f.m.SyncCABundle(ctx); err != nil || !changed {
		t.Fatalf("SyncCABundle = %v, %v; want a change", changed, err)
	}
	w := f.writes()
	if len(w) != 1 {
		t.Fatalf("writes = %v", w)
	}
	patch := string(w[0].(k8stesting.PatchAction).GetPatch())
	if !bytes.Contains([]byte(patch), []byte(`"b.ogx.io"`)) || bytes.Contains([]byte(patch), []byte(`"a.ogx.io"`)) {
		t.Errorf("patch %s should name b.ogx.io only", patch)
	}
	if !bytes.Equal(f.webhookConfiguration(t).Webhooks[1].ClientConfig.CABundle, s.Data[CACertKey]) {
		t.Error("webhook b.ogx.io not repaired")
	}

	// A ca.crt that does not parse is not published.
	if _, err := f.kube.CoreV1().Secrets(testNS).Patch(ctx, DefaultSecretName, "application/merge-patch+json",
		[]byte(`{"data":{"ca.crt":"Z2FyYmFnZQ=="}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	f.kube.ClearActions()
	if _, err := f.m.SyncCABundle(ctx); err == nil {
		t.Error("SyncCABundle published an invalid ca.crt")
	}
	f.expectNoWrites(t)
}
