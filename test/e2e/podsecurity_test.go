package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
)

// TestRestrictedNamespaceAdmitsServerPods: in a namespace enforcing the
// restricted Pod Security Standard, the API server admits the pods of a
// default OGXServer (they run as non-root, docs/security.md), so its
// Deployment becomes Available and the server Ready. Without runAsNonRoot
// the ReplicaSet's pod creates are refused and the server never gets there.
func TestRestrictedNamespaceAdmitsServerPods(t *testing.T) {
	ns := cp.CreateNamespace(t, "restricted")
	kube, ogx := clients(t)
	ctx := t.Context()
	nsObj, err := kube.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if nsObj.Labels == nil {
		nsObj.Labels = map[string]string{}
	}
	nsObj.Labels["pod-security.kubernetes.io/enforce"] = "restricted"
	if _, err := kube.CoreV1().Namespaces().Update(ctx, nsObj, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	startController(t, ns)
	if _, err := ogx.OgxV1beta1().OGXServers(ns).Create(ctx, newServer(ns, "strict"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if !t.Failed() {
			return
		}
		// Say why: the ReplicaSet controller's FailedCreate Events carry
		// the Pod Security violation.
		evs, err := kube.CoreV1().Events(ns).List(context.Background(), metav1.ListOptions{
			FieldSelector: fields.OneTermEqualSelector("reason", "FailedCreate").String()})
		if err == nil {
			for _, e := range evs.Items {
				if strings.Contains(e.Message, "violates PodSecurity") {
					t.Logf("%s %s: %s", e.InvolvedObject.Kind, e.InvolvedObject.Name, e.Message)
				}
			}
		}
	}()
	waitReady(t, ogx, ns, "strict", 2*time.Minute)
	pods, err := kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "app.kubernetes.io/instance=strict"})
	if err != nil {
		t.Fatal(err)
	}
	if len(pods.Items) == 0 {
		t.Fatal("no server pod was admitted")
	}
	if sc := pods.Items[0].Spec.SecurityContext; sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot {
		t.Errorf("pod securityContext %+v lacks runAsNonRoot", sc)
	}
}
