package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/testcerts"
	"github.com/ogx-k8s/ogx-controller/test/framework"
)

// notWatchedLog is the line the controller logs about an
// odh-trusted-ca-bundle it cannot use for lack of the watch label.
const notWatchedLog = "Trusted CA bundle ConfigMap not watched"

// TestUnlabelledTrustedBundleLoggedOnce: an odh-trusted-ca-bundle without
// the watch label is seen through the controller's metadata-only watch
// (a field-selected list and watch on the real API server), logged once
// per server however many passes follow, and left out of the CA bundle;
// once labelled, it is in the server's <name>-ca-bundle.
func TestUnlabelledTrustedBundleLoggedOnce(t *testing.T) {
	ns := cp.CreateNamespace(t, "trusted")
	kube, ogx := clients(t)
	ctx := t.Context()
	ca, err := testcerts.NewCA("cluster-trust")
	if err != nil {
		t.Fatal(err)
	}
	mustCreate(t, kube, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "odh-trusted-ca-bundle", Namespace: ns},
		Data: map[string]string{"ca-bundle.crt": string(ca.PEM)}})
	bin, err := buildController()
	if err != nil {
		t.Fatalf("building ogx-controller: %v", err)
	}
	user := replicaUsers[0]
	p := startProcessWith(t, bin, user, replicaFlags(ns, user, "0")...)

	if _, err := ogx.OgxV1beta1().OGXServers(ns).Create(ctx, newServer(ns, "trusting"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitReady(t, ogx, ns, "trusting", 2*time.Minute)
	framework.Poll(t, 30*time.Second, "the log of the unlabelled bundle", func(context.Context) (bool, error) {
		return strings.Contains(p.output(), notWatchedLog), nil
	})
	// More passes of the same server: a spec change runs them all.
	updateServer(t, ogx, ns, "trusting", func(s *ogxv1beta1.OGXServer) {
		s.Spec.Workload = &ogxv1beta1.WorkloadSpec{Replicas: ptr.To(int32(2))}
	})
	waitObserved(t, ogx, ns, "trusting", 2, ogxv1beta1.ConditionReady, metav1.ConditionTrue)
	if n := strings.Count(p.output(), notWatchedLog); n != 1 {
		t.Errorf("logged %d times, want once per server", n)
	}
	if _, err := kube.CoreV1().ConfigMaps(ns).Get(ctx, "trusting-ca-bundle", metav1.GetOptions{}); err == nil {
		t.Errorf("an unlabelled trusted bundle made a CA bundle")
	}

	cm, err := kube.CoreV1().ConfigMaps(ns).Get(ctx, "odh-trusted-ca-bundle", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cm.Labels = watched(nil)
	if _, err := kube.CoreV1().ConfigMaps(ns).Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Poll(t, time.Minute, "the server's CA bundle from the labelled trusted bundle", func(ctx context.Context) (bool, error) {
		b, err := kube.CoreV1().ConfigMaps(ns).Get(ctx, "trusting-ca-bundle", metav1.GetOptions{})
		return err == nil && strings.Contains(b.Data["ca-bundle.crt"], strings.TrimSpace(string(ca.PEM))), nil
	})
}
