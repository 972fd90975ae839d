package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/generated/clientset/versioned"
	"github.com/ogx-k8s/ogx-controller/test/framework"
)

func watched(labels map[string]string) map[string]string {
	out := map[string]string{ogxv1beta1.WatchLabel: "true"}
	for k, v := range labels {
		out[k] = v
	}
	return out
}

// TestNetworkScalingAndTrust turns on every optional child at once, checks
// their content, proves that editing a referenced CA ConfigMap rolls the pods
// exactly once and that nothing is written while idle, then removes each
// spec section and sees its child go.
func TestNetworkScalingAndTrust(t *testing.T) {
	ns := cp.CreateNamespace(t, "network")
	kube, ogx := clients(t)
	ctx := t.Context()
	ctrl := startController(t, ns)

	caPEM := testCA(t, "ca.example")
	srvCert, srvKey := testCert(t, "net-service."+ns+".svc")
	idCert, idKey := testCert(t, "client.example")
	mustCreate(t, kube, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "corp-ca", Namespace: ns, Labels: watched(nil)},
		Data: map[string]string{"ca.crt": string(caPEM)}})
	mustCreate(t, kube, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "serving", Namespace: ns, Labels: watched(nil)},
		Type: corev1.SecretTypeTLS, Data: map[string][]byte{"tls.crt": srvCert, "tls.key": srvKey}})
	mustCreate(t, kube, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "client-cert", Namespace: ns, Labels: watched(nil)},
		Data: map[string]string{"tls.crt": string(idCert)}})
	mustCreate(t, kube, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "client-key", Namespace: ns, Labels: watched(nil)},
		Data: map[string][]byte{"tls.key": idKey}})

	s := newServer(ns, "net")
	port := intstr.FromInt32(5432)
	replicas, maxReplicas := int32(2), int32(4)
	s.Spec.Network = &ogxv1beta1.NetworkSpec{
		Port:           8321,
		TLS:            &ogxv1beta1.ServerTLSSpec{SecretName: "serving"},
		ExternalAccess: &ogxv1beta1.ExternalAccessSpec{Enabled: true, Hostname: "llm.example.com"},
		Policy: &ogxv1beta1.NetworkPolicySpec{
			Ingress: []networkingv1.NetworkPolicyIngressRule{{From: []networkingv1.NetworkPolicyPeer{{
				NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"team": "search"}}}}}},
			Egress: []networkingv1.NetworkPolicyEgressRule{{Ports: []networkingv1.NetworkPolicyPort{{Port: &port}}}},
		},
	}
	s.Spec.TLS = &ogxv1beta1.OutboundTLSSpec{
		Trust:    &ogxv1beta1.TrustSpec{CACertificates: []ogxv1beta1.ConfigMapKeyRef{{Name: "corp-ca", Key: "ca.crt"}}},
		Identity: &ogxv1beta1.ClientIdentitySpec{Cert: ogxv1beta1.ConfigMapKeyRef{Name: "client-cert", Key: "tls.crt"}, Key: ogxv1beta1.SecretKeyRef{Name: "client-key", Key: "tls.key"}},
	}
	s.Spec.Workload = &ogxv1beta1.WorkloadSpec{Replicas: &replicas, Autoscaling: &ogxv1beta1.AutoscalingSpec{MaxReplicas: maxReplicas}}
	// Server TLS switches config generation on; this test is about the
	// children, so an override config keeps generation out of the way.
	mustCreate(t, kube, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "run-config", Namespace: ns, Labels: watched(nil)},
		Data: map[string]string{"config.yaml": "version: 2\nserver:\n  tls_certfile: /etc/ogx-tls/server/tls.crt\n"}})
	s.Spec.OverrideConfig = &ogxv1beta1.ConfigMapKeyRef{Name: "run-config", Key: "config.yaml"}
	if _, err := ogx.OgxV1beta1().OGXServers(ns).Create(ctx, s, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	got := waitReady(t, ogx, ns, "net", 2*time.Minute)
	if got.Status.ExternalURL == nil || *got.Status.ExternalURL != "https://llm.example.com" {
		t.Errorf("externalURL = %v, want https://llm.example.com", got.Status.ExternalURL)
	}
	if !strings.HasPrefix(got.Status.ServiceURL, "https://") {
		t.Errorf("serviceURL = %q, want https with server TLS", got.Status.ServiceURL)
	}

	// NetworkPolicy: defaults first, the user rule after them, egress with
	// the DNS rule appended.
	np, err := kube.NetworkingV1().NetworkPolicies(ns).Get(ctx, "net-network-policy", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(np.Spec.Ingress) != 3 || np.Spec.Ingress[2].From[0].NamespaceSelector.MatchLabels["team"] != "search" {
		t.Errorf("ingress rules = %+v, want rule A, rule B, then the user rule", np.Spec.Ingress)
	}
	if fmt.Sprint(np.Spec.PolicyTypes) != "[Ingress Egress]" || len(np.Spec.Egress) != 2 {
		t.Errorf("policyTypes %v egress %d, want [Ingress Egress] and user rule + DNS rule", np.Spec.PolicyTypes, len(np.Spec.Egress))
	}
	// HPA, PDB, Ingress.
	hpa, err := kube.AutoscalingV2().HorizontalPodAutoscalers(ns).Get(ctx, "net-hpa", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if *hpa.Spec.MinReplicas != 2 || hpa.Spec.MaxReplicas != 4 || hpa.Spec.Metrics[0].Resource.Target.AverageUtilization == nil ||
		*hpa.Spec.Metrics[0].Resource.Target.AverageUtilization != 80 {
		t.Errorf("HPA spec = %+v", hpa.Spec)
	}
	pdb, err := kube.PolicyV1().PodDisruptionBudgets(ns).Get(ctx, "net-pdb", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if pdb.Spec.MaxUnavailable == nil || pdb.Spec.MaxUnavailable.IntValue() != 1 {
		t.Errorf("PDB spec = %+v, want maxUnavailable 1 by default for a multi-pod server", pdb.Spec)
	}
	ing, err := kube.NetworkingV1().Ingresses(ns).Get(ctx, "net-ingress", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ing.Spec.Rules[0].Host != "llm.example.com" || len(ing.Spec.TLS) != 1 || ing.Spec.TLS[0].SecretName != "serving" {
		t.Errorf("Ingress spec = %+v", ing.Spec)
	}
	// CA bundle, TLS and identity mounted, with content-hash annotations.
	bundle, err := kube.CoreV1().ConfigMaps(ns).Get(ctx, "net-ca-bundle", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(bundle.Data["ca-bundle.crt"], "BEGIN CERTIFICATE") {
		t.Errorf("ca-bundle.crt = %q", bundle.Data["ca-bundle.crt"])
	}
	d, err := kube.AppsV1().Deployments(ns).Get(ctx, "net", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ann := d.Spec.Template.Annotations
	for _, k := range []string{"configmap.hash/ca-bundle", "secret.hash/tls", "secret.hash/identity", "configmap.hash/user-config"} {
		if ann[k] == "" {
			t.Errorf("pod template lacks annotation %s: %v", k, ann)
		}
	}
	if d.Spec.Replicas == nil || *d.Spec.Replicas < 2 {
		t.Errorf("Deployment replicas = %v, want the HPA's count (at least 2)", d.Spec.Replicas)
	}
	if p := d.Spec.Template.Spec.Containers[0].ReadinessProbe; p == nil || p.HTTPGet.Scheme != corev1.URISchemeHTTPS {
		t.Errorf("readiness probe = %+v, want HTTPS with server TLS", p)
	}

	// Idle with every kind present: nothing is written.
	settleWrites(t, ctrl)
	before, _ := ctrl.writes.snapshot()
	observe(10 * time.Second)
	if after, log := ctrl.writes.snapshot(); after != before {
		t.Errorf("idle controller sent %d writes: %v", after-before, log[before:])
	}

	// Editing the CA ConfigMap rolls the pods exactly once: one new
	// ReplicaSet (a replica change by the HPA bumps the generation but
	// creates no ReplicaSet).
	caHash := ann["configmap.hash/ca-bundle"]
	rsBefore := replicaSets(t, kube, ns, "net")
	ca2 := testCA(t, "ca2.example")
	cm, _ := kube.CoreV1().ConfigMaps(ns).Get(ctx, "corp-ca", metav1.GetOptions{})
	cm.Data["ca.crt"] = string(ca2)
	if _, err := kube.CoreV1().ConfigMaps(ns).Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Poll(t, 30*time.Second, "the new CA bundle rolled out", func(ctx context.Context) (bool, error) {
		d, err := kube.AppsV1().Deployments(ns).Get(ctx, "net", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return d.Spec.Template.Annotations["configmap.hash/ca-bundle"] != caHash, nil
	})
	waitReady(t, ogx, ns, "net", time.Minute)
	settleWrites(t, ctrl)
	if rsAfter := replicaSets(t, kube, ns, "net"); rsAfter != rsBefore+1 {
		t.Errorf("ReplicaSets went %d → %d after one CA edit, want exactly one rollout", rsBefore, rsAfter)
	}
	d, _ = kube.AppsV1().Deployments(ns).Get(ctx, "net", metav1.GetOptions{})
	// A label-only edit of the CA ConfigMap does not roll.
	cm, _ = kube.CoreV1().ConfigMaps(ns).Get(ctx, "corp-ca", metav1.GetOptions{})
	cm.Labels["unrelated"] = "x"
	if _, err := kube.CoreV1().ConfigMaps(ns).Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	settleWrites(t, ctrl)
	if d2, _ := kube.AppsV1().Deployments(ns).Get(ctx, "net", metav1.GetOptions{}); d2.Generation != d.Generation {
		t.Errorf("a label edit of the CA ConfigMap rolled the Deployment")
	}

	// Removing each section deletes its child.
	updateServer(t, ogx, ns, "net", func(cur *ogxv1beta1.OGXServer) {
		disabled := false
		cur.Spec.Network.ExternalAccess = nil
		cur.Spec.Network.Policy = &ogxv1beta1.NetworkPolicySpec{Enabled: &disabled}
		cur.Spec.TLS.Trust = nil
		one := int32(1)
		cur.Spec.Workload = &ogxv1beta1.WorkloadSpec{Replicas: &one}
	})
	for what, get := range map[string]func(context.Context) error{
		"Ingress": func(ctx context.Context) error {
			_, err := kube.NetworkingV1().Ingresses(ns).Get(ctx, "net-ingress", metav1.GetOptions{})
			return err
		},
		"NetworkPolicy": func(ctx context.Context) error {
			_, err := kube.NetworkingV1().NetworkPolicies(ns).Get(ctx, "net-network-policy", metav1.GetOptions{})
			return err
		},
		"HPA": func(ctx context.Context) error {
			_, err := kube.AutoscalingV2().HorizontalPodAutoscalers(ns).Get(ctx, "net-hpa", metav1.GetOptions{})
			return err
		},
		"PDB": func(ctx context.Context) error {
			_, err := kube.PolicyV1().PodDisruptionBudgets(ns).Get(ctx, "net-pdb", metav1.GetOptions{})
			return err
		},
		"CA bundle": func(ctx context.Context) error {
			_, err := kube.CoreV1().ConfigMaps(ns).Get(ctx, "net-ca-bundle", metav1.GetOptions{})
			return err
		},
	} {
		waitGone(t, 30*time.Second, what, get)
	}
	got = waitReady(t, ogx, ns, "net", time.Minute)
	if got.Status.ExternalURL != nil {
		t.Errorf("externalURL = %q after external access was turned off, want absent", *got.Status.ExternalURL)
	}
	d, _ = kube.AppsV1().Deployments(ns).Get(ctx, "net", metav1.GetOptions{})
	if d.Spec.Replicas == nil || *d.Spec.Replicas != 1 {
		t.Errorf("replicas after autoscaling was removed = %v, want 1", d.Spec.Replicas)
	}
}

// replicaSets counts the ReplicaSets of an OGXServer's Deployment: one per
// pod template it ever rolled out.
func replicaSets(t *testing.T, kube kubernetes.Interface, ns, name string) int {
	t.Helper()
	list, err := kube.AppsV1().ReplicaSets(ns).List(t.Context(), metav1.ListOptions{LabelSelector: "app.kubernetes.io/instance=" + name})
	if err != nil {
		t.Fatal(err)
	}
	return len(list.Items)
}

// TestReferenceDiagnosis: a missing referenced Secret and an unlabelled one
// produce different, precise conditions; adding the label recovers.
func TestReferenceDiagnosis(t *testing.T) {
	ns := cp.CreateNamespace(t, "refs")
	kube, ogx := clients(t)
	ctx := t.Context()
	startController(t, ns)
	mustCreate(t, kube, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "run-config", Namespace: ns, Labels: watched(nil)},
		Data: map[string]string{"config.yaml": "version: 2\n"}})
	s := newServer(ns, "refs")
	s.Spec.OverrideConfig = &ogxv1beta1.ConfigMapKeyRef{Name: "run-config", Key: "config.yaml"}
	s.Spec.Network = &ogxv1beta1.NetworkSpec{TLS: &ogxv1beta1.ServerTLSSpec{SecretName: "serving"}}
	if _, err := ogx.OgxV1beta1().OGXServers(ns).Create(ctx, s, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitCondition(t, ogx, ns, "refs", "Ready", "ReferenceNotFound",
		"failed to resolve secret "+ns+"/serving for env OGX_TLS_CERTFILE: not found (referenced by spec.network.tls.secretName)")
	framework.Poll(t, 30*time.Second, "a ReferenceNotFound Warning event", func(ctx context.Context) (bool, error) {
		evs, err := kube.EventsV1().Events(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		for _, e := range evs.Items {
			if e.Reason == "ReferenceNotFound" && e.Type == corev1.EventTypeWarning && e.Regarding.Name == "refs" &&
				strings.Contains(e.Note, "not found (referenced by spec.network.tls.secretName)") {
				return true, nil
			}
		}
		return false, nil
	})
	crt, key := testCert(t, "refs")
	sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "serving", Namespace: ns},
		Type: corev1.SecretTypeTLS, Data: map[string][]byte{"tls.crt": crt, "tls.key": key}}
	mustCreate(t, kube, sec)
	// Creating an unlabelled Secret is invisible to the label-filtered
	// cache; a later pass (retry) finds it live and reports the label.
	waitCondition(t, ogx, ns, "refs", "Ready", "ReferenceNotWatched",
		"failed to resolve secret "+ns+"/serving for env OGX_TLS_CERTFILE: exists but lacks label ogx.io/watch=true (referenced by spec.network.tls.secretName)")
	got, _ := ogx.OgxV1beta1().OGXServers(ns).Get(ctx, "refs", metav1.GetOptions{})
	if c := apimeta.FindStatusCondition(got.Status.Conditions, "Stalled"); c == nil || c.Status != metav1.ConditionTrue || got.Status.Phase != ogxv1beta1.PhaseFailed {
		t.Errorf("phase %s Stalled %+v, want Failed and Stalled=True", got.Status.Phase, c)
	}
	sec, _ = kube.CoreV1().Secrets(ns).Get(ctx, "serving", metav1.GetOptions{})
	sec.Labels = watched(nil)
	if _, err := kube.CoreV1().Secrets(ns).Update(ctx, sec, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitReady(t, ogx, ns, "refs", time.Minute)
	// The override config does not configure server TLS: one Warning says
	// how to.
	framework.Poll(t, 30*time.Second, "a ServerTLSNotConfigured Warning event", func(ctx context.Context) (bool, error) {
		evs, err := kube.EventsV1().Events(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		for _, e := range evs.Items {
			if e.Reason == "ServerTLSNotConfigured" && e.Regarding.Name == "refs" && strings.Contains(e.Note, "${env.OGX_TLS_CERTFILE}") {
				return true, nil
			}
		}
		return false, nil
	})
}

// waitCondition waits until condition typ has the reason and message.
func waitCondition(t *testing.T, ogx versioned.Interface, ns, name, typ, reason, message string) {
	t.Helper()
	var last string
	framework.Poll(t, 90*time.Second, fmt.Sprintf("%s reason %s", typ, reason), func(ctx context.Context) (bool, error) {
		s, err := ogx.OgxV1beta1().OGXServers(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		c := apimeta.FindStatusCondition(s.Status.Conditions, typ)
		if c == nil {
			return false, nil
		}
		last = c.Reason + ": " + c.Message
		return c.Reason == reason && c.Message == message, nil
	})
	_ = last
}

// settleWrites waits until the controller has sent no write for 3 s.
func settleWrites(t *testing.T, r *running) {
	t.Helper()
	prev, stable := -1, 0
	framework.Poll(t, time.Minute, "the controller to settle", func(context.Context) (bool, error) {
		n, _ := r.writes.snapshot()
		if n == prev {
			stable++
		} else {
			stable, prev = 0, n
		}
		return stable >= 12, nil
	})
}

func mustCreate[T interface{ GetName() string }](t *testing.T, kube kubernetes.Interface, obj T) {
	t.Helper()
	var err error
	switch o := any(obj).(type) {
	case *corev1.ConfigMap:
		_, err = kube.CoreV1().ConfigMaps(o.Namespace).Create(t.Context(), o, metav1.CreateOptions{})
	case *corev1.Secret:
		_, err = kube.CoreV1().Secrets(o.Namespace).Create(t.Context(), o, metav1.CreateOptions{})
	default:
		t.Fatalf("mustCreate: unsupported %T", obj)
	}
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("creating %s: %v", obj.GetName(), err)
	}
}
