package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ogx-k8s/ogx-controller/test/framework"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestRestartRevertsOfflineDrift starts a controller on a namespace whose
// servers and children already exist, as every restart and every new
// leader does: its caches are filled by the initial list (a streaming list
// with client-go's WatchListClient feature), not by watch events. A child
// edited while no controller ran is put back, and nothing else is written.
func TestRestartRevertsOfflineDrift(t *testing.T) {
	ns := cp.CreateNamespace(t, "restart")
	kube, ogx := clients(t)
	ctx := t.Context()

	first := startController(t, ns)
	if _, err := ogx.OgxV1beta1().OGXServers(ns).Create(ctx, newServer(ns, "rs"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitReady(t, ogx, ns, "rs", 2*time.Minute)
	first.cancel()
	<-first.done

	// While no controller runs: a hand edit of a field we own.
	d, err := kube.AppsV1().Deployments(ns).Get(ctx, "rs", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := d.Spec.Template.Spec.Containers[0].Image
	d.Spec.Template.Spec.Containers[0].Image = "example.com/hand-edited:1"
	if _, err := kube.AppsV1().Deployments(ns).Update(ctx, d, metav1.UpdateOptions{FieldManager: "kubectl-edit"}); err != nil {
		t.Fatal(err)
	}

	second := startController(t, ns)
	framework.Poll(t, time.Minute, "the hand edit reverted by the restarted controller", func(ctx context.Context) (bool, error) {
		d, err := kube.AppsV1().Deployments(ns).Get(ctx, "rs", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return d.Spec.Template.Spec.Containers[0].Image == want, nil
	})
	settleWrites(t, second)
	// One write put the image back; the other children were read from the
	// caches as they are and left alone. (The rollout the fix starts is
	// reported in status and an Event.)
	_, log := second.writes.snapshot()
	var writes []string
	for _, l := range log {
		if !strings.Contains(l, "/events") && !strings.HasSuffix(l, "/status") {
			writes = append(writes, l)
		}
	}
	if len(writes) != 1 || !strings.HasSuffix(writes[0], "/deployments/rs") {
		t.Errorf("the restarted controller wrote %q, want one Deployment patch", writes)
	}
}
