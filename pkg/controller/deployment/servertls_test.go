package deployment

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/controllertest"
)

func TestOverrideSetsServerTLS(t *testing.T) {
	for text, want := range map[string]bool{
		"version: 2\nserver:\n  tls_certfile: ${env.OGX_TLS_CERTFILE}\n": true,
		"version: 2\nserver:\n  port: 8321\n":                            false,
		"version: 2\n":                                                   false,
		"server:\n  tls_certfile: \"\"\n":                                false,
		"{not yaml":                                                      false,
	} {
		if got := overrideSetsServerTLS(text); got != want {
			t.Errorf("overrideSetsServerTLS(%q) = %v, want %v", text, got, want)
		}
	}
}

// TestServerTLSWarningOncePerConfig: ServerTLSNotConfigured is sent once
// while an override config without server.tls_certfile is used with server
// TLS, again for another config, and not again when a read of the config
// fails (the cause is unknown then, not gone).
func TestServerTLSWarningOncePerConfig(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "override", Namespace: controllertest.Namespace,
		Labels: map[string]string{ogxv1beta1.WatchLabel: "true"}},
		Data: map[string]string{"config.yaml": "version: 2\nserver:\n  port: 8321\n"}}
	s := controllertest.Server(controllertest.Namespace, controllertest.Name, controllertest.UID, func(sp *ogxv1beta1.OGXServerSpec) {
		sp.OverrideConfig = &ogxv1beta1.ConfigMapKeyRef{Name: "override", Key: "config.yaml"}
		sp.Network = &ogxv1beta1.NetworkSpec{TLS: &ogxv1beta1.ServerTLSSpec{SecretName: "tls"}}
	})
	e := controllertest.Started(t, base.Options{}, []runtime.Object{cm}, s)
	e.Deps.Events.Lead()
	warnings := func() int {
		n := 0
		for _, ev := range e.Deps.Events.Queued() {
			if ev.Reason == "ServerTLSNotConfigured" {
				n++
			}
		}
		return n
	}
	warnServerTLS(e.Ctx, e.Deps.Resolver, e.Deps.Events, s, "sha256:a")
	warnServerTLS(e.Ctx, e.Deps.Resolver, e.Deps.Events, s, "sha256:a")
	if n := warnings(); n != 1 {
		t.Fatalf("%d Warnings for one config, want 1", n)
	}
	missing := s.DeepCopy()
	missing.Spec.OverrideConfig = &ogxv1beta1.ConfigMapKeyRef{Name: "override", Key: "absent"}
	warnServerTLS(e.Ctx, e.Deps.Resolver, e.Deps.Events, missing, "sha256:a")
	warnServerTLS(e.Ctx, e.Deps.Resolver, e.Deps.Events, s, "sha256:a")
	if n := warnings(); n != 0 {
		t.Errorf("%d Warnings after a failed read of the same config, want 0", n)
	}
	warnServerTLS(e.Ctx, e.Deps.Resolver, e.Deps.Events, s, "sha256:b")
	if n := warnings(); n != 1 {
		t.Errorf("%d Warnings for another config, want 1", n)
	}
}
