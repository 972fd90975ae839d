package admission

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"

	"github.com/ogx-k8s/ogx-controller/pkg/admission"
	"github.com/ogx-k8s/ogx-controller/pkg/admission/admissiontest"
	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1/validation"
)

const unknownDistribution = `unknown distribution "nope"; available distributions: meta-reference-gpu, postgres-demo, remote-vllm, starter`

// TestShippedManifests checks config/webhook against docs/admission.md,
// Registration, and has the API server validate the objects (dry run).
func TestShippedManifests(t *testing.T) {
	vwc := shippedWebhookConfiguration(t)
	if vwc.Name != "ogx-controller-validating-webhook-configuration" || len(vwc.Webhooks) != 1 {
		t.Fatalf("configuration %q with %d webhooks", vwc.Name, len(vwc.Webhooks))
	}
	wh := vwc.Webhooks[0]
	svc := wh.ClientConfig.Service
	switch {
	case wh.Name != admission.WebhookName:
		t.Errorf("webhook name %q", wh.Name)
	case svc == nil || svc.Name != "ogx-k8s-operator-webhook-service" || svc.Namespace != "ogx-system" ||
		svc.Path == nil || *svc.Path != admission.ValidatePath || svc.Port == nil || *svc.Port != 443:
		t.Errorf("clientConfig.service = %+v", svc)
	case wh.ClientConfig.URL != nil:
		t.Error("clientConfig has a URL")
	case wh.FailurePolicy == nil || *wh.FailurePolicy != admissionregistrationv1.Fail:
		t.Error("failurePolicy is not Fail")
	case wh.SideEffects == nil || *wh.SideEffects != admissionregistrationv1.SideEffectClassNone:
		t.Error("sideEffects is not None")
	case wh.MatchPolicy == nil || *wh.MatchPolicy != admissionregistrationv1.Equivalent:
		t.Error("matchPolicy is not Equivalent")
	case wh.TimeoutSeconds == nil || *wh.TimeoutSeconds != 10:
		t.Error("timeoutSeconds is not 10")
	case strings.Join(wh.AdmissionReviewVersions, ",") != "v1":
		t.Errorf("admissionReviewVersions = %v", wh.AdmissionReviewVersions)
	case wh.NamespaceSelector != nil || wh.ObjectSelector != nil:
		t.Error("the shipped webhook has a selector")
	case len(wh.Rules) != 1:
		t.Errorf("rules = %+v", wh.Rules)
	}
	if len(wh.Rules) == 1 {
		r := wh.Rules[0]
		if strings.Join(r.APIGroups, ",") != "ogx.io" || strings.Join(r.APIVersions, ",") != "v1beta1" ||
			strings.Join(r.Resources, ",") != "ogxservers" || r.Scope == nil || *r.Scope != admissionregistrationv1.NamespacedScope ||
			len(r.Operations) != 2 || r.Operations[0] != admissionregistrationv1.Create || r.Operations[1] != admissionregistrationv1.Update {
			t.Errorf("rule = %+v", r)
		}
	}
	dryRun := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldValidation: metav1.FieldValidationStrict}
	if _, err := kube.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(t.Context(), vwc, dryRun); err != nil {
		t.Errorf("API server rejects the webhook configuration: %v", err)
	}

	data, err := os.ReadFile(filepath.Join(moduleRoot, "config", "webhook", "service.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	service := &corev1.Service{}
	if err := yaml.UnmarshalStrict(data, service); err != nil {
		t.Fatalf("decoding service.yaml: %v", err)
	}
	if service.Name != svc.Name || service.Namespace != svc.Namespace || len(service.Spec.Ports) != 1 ||
		service.Spec.Ports[0].Port != 443 || service.Spec.Ports[0].TargetPort.IntValue() != 9443 || len(service.Spec.Selector) == 0 {
		t.Errorf("service = %+v", service)
	}
	// The Service is namespaced: validate it in a test namespace.
	service.Namespace = cp.CreateNamespace(t, "svc")
	if _, err := kube.CoreV1().Services(service.Namespace).Create(t.Context(), service, dryRun); err != nil {
		t.Errorf("API server rejects the Service: %v", err)
	}

	kust, err := os.ReadFile(filepath.Join(moduleRoot, "config", "webhook", "kustomization.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var k struct {
		Resources []string `json:"resources"`
	}
	if err := yaml.Unmarshal(kust, &k); err != nil || strings.Join(k.Resources, ",") != "manifests.yaml,service.yaml" {
		t.Errorf("kustomization resources = %v (%v)", k.Resources, err)
	}
}

func TestInvalidCreatesAreDenied(t *testing.T) {
	e := newEnv(t)
	e.register(t)
	long := strings.Repeat("a", validation.MaxNameLength+1)
	tests := []struct {
		name    string
		obj     *ogxv1beta1.OGXServer
		message string
		causes  []cause
	}{
		{name: "A1 unknown distribution", obj: newServer("a1", func(s *ogxv1beta1.OGXServer) { s.Spec.Distribution.Name = ptr("nope") }),
			message: `spec.distribution.name: Invalid value: "nope": ` + unknownDistribution,
			causes:  []cause{{metav1.CauseTypeFieldValueInvalid, "spec.distribution.name"}}},
		{name: "A2 duplicate provider IDs", obj: newServer("a2", func(s *ogxv1beta1.OGXServer) {
			s.Spec.Providers = &ogxv1beta1.ProvidersSpec{Inference: &ogxv1beta1.InferenceProviders{Remote: &ogxv1beta1.RemoteInferenceProviders{
				Vllm: []ogxv1beta1.VLLMProvider{{Endpoint: "http://a"}, {Endpoint: "http://b"}}}}}
		}),
			message: `spec.providers.inference.remote.vllm[1]: Invalid value: "remote-vllm": duplicate provider ID "remote-vllm" (first defined at spec.providers.inference.remote.vllm[0])`,
			causes:  []cause{{metav1.CauseTypeFieldValueInvalid, "spec.providers.inference.remote.vllm[1]"}}},
		{name: "A7 name too long", obj: newServer(long),
			message: `metadata.name: Invalid value: "` + long + `": must be no more than 46 characters so that every child object name fits in 63 characters`,
			causes:  []cause{{metav1.CauseTypeFieldValueInvalid, "metadata.name"}}},
		{name: "several errors", obj: newServer("multi", func(s *ogxv1beta1.OGXServer) {
			s.Spec.Distribution.Name = ptr("nope")
			s.Annotations = map[string]string{ogxv1beta1.AnnotationAdoptStorage: "multi"}
			s.Spec.Providers = &ogxv1beta1.ProvidersSpec{Inference: &ogxv1beta1.InferenceProviders{Remote: &ogxv1beta1.RemoteInferenceProviders{
				Custom: []ogxv1beta1.CustomProvider{{ID: "c", Type: "remote::"}}}}}
		}),
			message: `[spec.distribution.name: Invalid value: "nope": ` + unknownDistribution +
				`, metadata.annotations[ogx.io/adopt-storage]: Invalid value: "multi": adoption annotation value must not equal the CR name; same-name adoption causes resource conflicts` +
				`, spec.providers.inference.remote.custom[0].type: Invalid value: "remote::": must name a provider after the 'remote::' or 'inline::' prefix]`,
			causes: []cause{
				{metav1.CauseTypeFieldValueInvalid, "spec.distribution.name"},
				{metav1.CauseTypeFieldValueInvalid, "metadata.annotations[ogx.io/adopt-storage]"},
				{metav1.CauseTypeFieldValueInvalid, "spec.providers.inference.remote.custom[0].type"},
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.servers.Create(t.Context(), tc.obj, metav1.CreateOptions{})
			expectDenied(t, err, tc.obj.Name, tc.message, tc.causes...)
			if _, err := e.servers.Get(t.Context(), tc.obj.Name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				t.Errorf("denied object exists (get: %v)", err)
			}
		})
	}
}

func TestValidCreatesAreAdmitted(t *testing.T) {
	e := newEnv(t)
	e.register(t)
	for _, obj := range []*ogxv1beta1.OGXServer{
		newServer("minimal"),
		newServer("by-image", func(s *ogxv1beta1.OGXServer) {
			s.Spec.Distribution = ogxv1beta1.DistributionSpec{Image: ptr("quay.io/example/ogx:1.0")}
		}),
		newServer("with-providers", func(s *ogxv1beta1.OGXServer) {
			s.Annotations = map[string]string{ogxv1beta1.AnnotationAdoptStorage: "legacy", ogxv1beta1.AnnotationAdoptNetworking: ""}
			s.Spec.Providers = &ogxv1beta1.ProvidersSpec{Inference: &ogxv1beta1.InferenceProviders{Remote: &ogxv1beta1.RemoteInferenceProviders{
				Vllm: []ogxv1beta1.VLLMProvider{{Endpoint: "http://a"}, {ID: "second", Endpoint: "http://b"}}}}}
			s.Spec.Resources = &ogxv1beta1.ResourcesSpec{Models: []ogxv1beta1.ModelSpec{{Name: "m", Provider: "second"}}}
		}),
		newServer(strings.Repeat("b", validation.MaxNameLength)),
	} {
		if _, err := e.servers.Create(t.Context(), obj, metav1.CreateOptions{}); err != nil {
			t.Errorf("creating %s: %v", obj.Name, err)
		}
	}
}

// With generateName the API server generates the name before admission,
// so the final name is what is checked.
func TestGeneratedNameIsChecked(t *testing.T) {
	e := newEnv(t)
	e.register(t)

	ok := newServer("")
	ok.GenerateName = "gen-"
	created, err := e.servers.Create(t.Context(), ok, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating with generateName: %v", err)
	}
	if !strings.HasPrefix(created.Name, "gen-") {
		t.Errorf("generated name %q", created.Name)
	}

	tooLong := newServer("")
	// 42 characters and 5 random ones: one more than allowed.
	tooLong.GenerateName = strings.Repeat("g", validation.MaxNameLength-5) + "-"
	_, err = e.servers.Create(t.Context(), tooLong, metav1.CreateOptions{})
	var status apierrors.APIStatus
	if err == nil || !apierrors.IsInvalid(err) {
		t.Fatalf("create = %v, want an Invalid denial", err)
	}
	_ = errors.As(err, &status)
	st := status.Status()
	name := st.Details.Name
	if len(name) != len(tooLong.GenerateName)+5 || !strings.HasPrefix(name, tooLong.GenerateName) {
		t.Fatalf("details.name = %q, want the generated name", name)
	}
	expectDenied(t, err, name, `metadata.name: Invalid value: "`+name+`": must be no more than 46 characters so that every child object name fits in 63 characters`,
		cause{metav1.CauseTypeFieldValueInvalid, "metadata.name"})
}

func TestUpdatesAreValidated(t *testing.T) {
	e := newEnv(t)
	e.register(t)
	ctx := t.Context()
	obj, err := e.servers.Create(ctx, newServer("upd"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}

	bad := obj.DeepCopy()
	bad.Spec.Distribution.Name = ptr("nope")
	_, err = e.servers.Update(ctx, bad, metav1.UpdateOptions{})
	expectDenied(t, err, "upd", `spec.distribution.name: Invalid value: "nope": `+unknownDistribution,
		cause{metav1.CauseTypeFieldValueInvalid, "spec.distribution.name"})

	// A patch is an UPDATE too.
	_, err = e.servers.Patch(ctx, "upd", types.MergePatchType,
		[]byte(`{"metadata":{"annotations":{"ogx.io/adopt-networking":"upd"}}}`), metav1.PatchOptions{})
	expectDenied(t, err, "upd", `metadata.annotations[ogx.io/adopt-networking]: Invalid value: "upd": adoption annotation value must not equal the CR name; same-name adoption causes resource conflicts`,
		cause{metav1.CauseTypeFieldValueInvalid, "metadata.annotations[ogx.io/adopt-networking]"})

	got, err := e.servers.Get(ctx, "upd", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.ResourceVersion != obj.ResourceVersion {
		t.Errorf("denied updates changed the object")
	}

	good := got.DeepCopy()
	good.Labels = map[string]string{"team": "ml"}
	good.Spec.Distribution.Name = ptr("remote-vllm")
	if _, err := e.servers.Update(ctx, good, metav1.UpdateOptions{}); err != nil {
		t.Errorf("valid update: %v", err)
	}
}

// Objects stored before the webhook (or while it was bypassed) can still
// have their status written and their finalizers removed, while ordinary
// updates are validated.
func TestInvalidStoredObjectCanBeFinalized(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	invalid := newServer("legacy", func(s *ogxv1beta1.OGXServer) {
		s.Spec.Distribution.Name = ptr("nope")
		s.Finalizers = []string{"ogx.io/test-finalizer"}
	})
	if _, err := e.servers.Create(ctx, invalid, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating before registration: %v", err)
	}
	e.register(t)

	obj, err := e.servers.Get(ctx, "legacy", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	labelled := obj.DeepCopy()
	labelled.Labels = map[string]string{"x": "y"}
	_, err = e.servers.Update(ctx, labelled, metav1.UpdateOptions{})
	expectDenied(t, err, "legacy", `spec.distribution.name: Invalid value: "nope": `+unknownDistribution,
		cause{metav1.CauseTypeFieldValueInvalid, "spec.distribution.name"})

	obj.Status.Phase = "Failed"
	if obj, err = e.servers.UpdateStatus(ctx, obj, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("status update of an invalid object: %v", err)
	}

	if err := e.servers.Delete(ctx, "legacy", metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete: %v", err)
	}
	obj, err = e.servers.Get(ctx, "legacy", metav1.GetOptions{})
	if err != nil || obj.DeletionTimestamp == nil {
		t.Fatalf("after delete: %v, deletionTimestamp %v", err, obj.GetDeletionTimestamp())
	}
	obj.Finalizers = nil
	if _, err := e.servers.Update(ctx, obj, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("removing the finalizer of a terminating invalid object: %v", err)
	}
	poll(t, "the object to be deleted", func() bool {
		_, err := e.servers.Get(ctx, "legacy", metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	}, nil)
}

func TestCertificateRotationWithoutRestart(t *testing.T) {
	e := newEnv(t)
	e.register(t)
	ctx := t.Context()
	first, err := e.servedCert()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.servers.Create(ctx, newServer("before"), metav1.CreateOptions{}); err != nil {
		t.Fatalf("create before rotation: %v", err)
	}

	second := e.rotate(t)
	var served error
	poll(t, "the rotated certificate to be served", func() bool {
		got, err := e.servedCert()
		served = err
		return err == nil && admissiontest.SameCertificate(got, second.Leaf)
	}, func() string { return "last handshake error: " + errString(served) })
	if admissiontest.SameCertificate(first, second.Leaf) {
		t.Fatal("rotation issued the same certificate")
	}
	if !e.server.Ready() {
		t.Error("server not ready after rotation")
	}

	// The API server keeps calling the webhook: valid objects pass,
	// invalid ones are still denied by it.
	if _, err := e.servers.Create(ctx, newServer("after"), metav1.CreateOptions{}); err != nil {
		t.Errorf("create after rotation: %v", err)
	}
	_, err = e.servers.Create(ctx, newServer("after-bad", func(s *ogxv1beta1.OGXServer) { s.Spec.Distribution.Name = ptr("nope") }), metav1.CreateOptions{})
	expectDenied(t, err, "after-bad", `spec.distribution.name: Invalid value: "nope": `+unknownDistribution,
		cause{metav1.CauseTypeFieldValueInvalid, "spec.distribution.name"})
}

func TestStoppedServerFailsClosed(t *testing.T) {
	e := newEnv(t)
	e.register(t)
	ctx := t.Context()
	if err := e.server.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if e.server.Ready() {
		t.Error("Ready after Shutdown")
	}
	var last error
	poll(t, "creates to fail with the webhook unreachable", func() bool {
		_, last = e.servers.Create(ctx, newServer("unchecked"), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		return last != nil && strings.Contains(last.Error(), failedCall)
	}, func() string { return "last error: " + errString(last) })
	if !apierrors.IsInternalError(last) {
		t.Errorf("error %v is not an internal error", last)
	}
	_, err := e.servers.Create(ctx, newServer("unchecked"), metav1.CreateOptions{})
	if err == nil || !strings.Contains(err.Error(), failedCall) {
		t.Errorf("create with the server stopped = %v, want %q", err, failedCall)
	}
	if _, err := e.servers.Get(ctx, "unchecked", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("object stored although the webhook was down (get: %v)", err)
	}
}
