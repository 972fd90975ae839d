package e2e

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/configgen/oci/ocitest"
	"github.com/ogx-k8s/ogx-controller/test/framework"
)

// pinRepo and pinTag name the moving tag of TestImageDigestIsPinned, the
// shape of most distributions' default (docs/config-generation.md).
const pinRepo, pinTag = "ogx/distribution-starter", "latest"

// TestImageDigestIsPinned: a server whose base config comes from the
// labels of starter:latest runs on latest@A. When the tag moves to B,
// nothing moves on its own: a rescheduled pod comes back on @A, and neither
// a restart of the leader nor a failover writes a Deployment or ConfigMap
// or resolves the tag again. Asking for a re-check with the
// ogx.io/recheck-image annotation rolls the server to @B, says so in status
// and in exactly one ImageDigestChanged Event.
func TestImageDigestIsPinned(t *testing.T) {
	ns := cp.CreateNamespace(t, "digestpin")
	kube, ogx := clients(t)
	ctx := t.Context()
	reg := ocitest.New()
	t.Cleanup(reg.Close)
	digestA, err := reg.Push(pinRepo, pinTag, baseConfigYAML)
	if err != nil {
		t.Fatal(err)
	}
	leader, follower := startReplicas(t, kube, ns)
	t.Logf("leader: %s", leader.user)

	image := reg.Image(pinRepo, pinTag)
	if _, err := ogx.OgxV1beta1().OGXServers(ns).Create(ctx, labelledServer(ns, "pinned", image), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	got := waitReady(t, ogx, ns, "pinned", 2*time.Minute)
	onA := image + "@" + digestA
	if rd := got.Status.ResolvedDistribution; rd == nil || rd.Image != onA || rd.ConfigSource != "oci-label" {
		t.Fatalf("status.resolvedDistribution = %+v, want image %s from oci-label", rd, onA)
	}
	if img := deploymentImage(t, kube, ns, "pinned"); img != onA {
		t.Fatalf("Deployment image = %s, want %s", img, onA)
	}
	first := waitPodOn(t, kube, ns, "pinned", onA, "")

	// The tag moves. From here until the re-check is asked for, nothing of
	// the server may be written and the tag may not be resolved again.
	moved := time.Now()
	resolutions := reg.TagRequests(pinRepo, pinTag)
	digestB, err := reg.Push(pinRepo, pinTag, strings.Replace(baseConfigYAML, "image_name: starter", "image_name: starter-b", 1))
	if err != nil {
		t.Fatal(err)
	}
	if digestB == digestA {
		t.Fatal("the pushed image has the digest of the first: the test would prove nothing")
	}

	// A rescheduled pod runs the pinned digest, not what the tag names now.
	if err := kube.CoreV1().Pods(ns).Delete(ctx, first, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitPodOn(t, kube, ns, "pinned", onA, first)
	// The status of the new pod may still be written; from the hand-over
	// on, nothing may be.
	framework.Poll(t, time.Minute, "the new pod available", func(ctx context.Context) (bool, error) {
		d, err := kube.AppsV1().Deployments(ns).Get(ctx, "pinned", metav1.GetOptions{})
		return err == nil && d.Status.AvailableReplicas == 1 && d.Status.Replicas == 1, err
	})
	waitReady(t, ogx, ns, "pinned", time.Minute)
	observe(2 * time.Second)
	handover := time.Now()

	// The leader stops; the follower takes over; a fresh replica starts and
	// takes over in turn: two hand-overs, each with a cold cache.
	fresh := failover(t, kube, ns, leader, follower)
	last := fresh
	failover(t, kube, ns, follower, fresh)
	framework.Poll(t, 30*time.Second, "the last leader to be ready", func(context.Context) (bool, error) {
		return readyz(last.health) == http.StatusOK, nil
	})
	// A new leader's first passes run as soon as its caches sync: wait for
	// its log to show the server's status pass, then give the passes it
	// starts time to write if they were going to.
	framework.Poll(t, 30*time.Second, "the last leader's first status pass", func(context.Context) (bool, error) {
		return strings.Contains(last.output(), `"Pass finished" controller="status" ogxserver="`+ns+`/pinned"`), nil
	})
	observe(3 * time.Second)
	if img := deploymentImage(t, kube, ns, "pinned"); img != onA {
		t.Errorf("after restart and failover the Deployment image = %s, want %s", img, onA)
	}
	// After the tag moved no child and no generated ConfigMap is written;
	// after the hand-over nothing of the namespace but Leases is, not even
	// status.
	for _, user := range replicaUsers {
		for _, e := range auditWrites(t, user) {
			if e.Namespace() != ns || e.Resource() == "leases" {
				continue
			}
			if e.StageTimestamp.After(handover) || (e.StageTimestamp.After(moved) && !strings.HasPrefix(e.Resource(), "ogxservers") && e.Resource() != "events") {
				t.Errorf("%s wrote after the tag moved, before a re-check was asked for: %s", user, e)
			}
		}
	}
	if n := reg.TagRequests(pinRepo, pinTag); n != resolutions {
		t.Errorf("the tag was resolved %d more times after it moved; want none before a re-check", n-resolutions)
	}

	// Asking for a re-check rolls the server to the new digest.
	updateServer(t, ogx, ns, "pinned", func(s *ogxv1beta1.OGXServer) {
		if s.Annotations == nil {
			s.Annotations = map[string]string{}
		}
		s.Annotations[ogxv1beta1.AnnotationRecheckImage] = "first"
	})
	onB := image + "@" + digestB
	framework.Poll(t, time.Minute, "the server on "+onB, func(ctx context.Context) (bool, error) {
		s, err := ogx.OgxV1beta1().OGXServers(ns).Get(ctx, "pinned", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		rd := s.Status.ResolvedDistribution
		return rd != nil && rd.Image == onB && rd.LastHandledRecheck == "first", nil
	})
	if img := deploymentImage(t, kube, ns, "pinned"); img != onB {
		t.Errorf("after the re-check the Deployment image = %s, want %s", img, onB)
	}
	waitPodOn(t, kube, ns, "pinned", onB, "")
	waitEvent(t, kube, ns, "pinned", ogxv1beta1.EventImageDigestChanged, digestB)
	// One Event, sent once: a second one (or a repeat of it) would show up
	// within a few status passes.
	observe(3 * time.Second)
	evs := eventsOf(t, kube, ns, "pinned", ogxv1beta1.EventImageDigestChanged)
	if len(evs) != 1 || evs[0].Series != nil {
		t.Fatalf("ImageDigestChanged Events = %q (series %v), want exactly one", notes(evs), len(evs) > 0 && evs[0].Series != nil)
	}
	if note := evs[0].Note; !strings.Contains(note, digestA) || !strings.Contains(note, digestB) {
		t.Errorf("the Event does not name both digests: %q", note)
	}
}

// TestPinnedTagRecheckedByInterval: with --image-recheck-interval, a moved
// tag reaches its server without anyone asking, once the interval has
// passed, with the same Event as a requested re-check.
func TestPinnedTagRecheckedByInterval(t *testing.T) {
	ns := cp.CreateNamespace(t, "recheck")
	kube, ogx := clients(t)
	reg := ocitest.New()
	t.Cleanup(reg.Close)
	digestA, err := reg.Push(pinRepo, pinTag, baseConfigYAML)
	if err != nil {
		t.Fatal(err)
	}
	bin, err := buildController()
	if err != nil {
		t.Fatalf("building ogx-controller: %v", err)
	}
	user := replicaUsers[0]
	startProcessWith(t, bin, user, replicaFlags(ns, user, "0", "--image-recheck-interval=3s")...)
	image := reg.Image(pinRepo, pinTag)
	if _, err := ogx.OgxV1beta1().OGXServers(ns).Create(t.Context(), labelledServer(ns, "interval", image), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitReady(t, ogx, ns, "interval", 2*time.Minute)
	if img := deploymentImage(t, kube, ns, "interval"); img != image+"@"+digestA {
		t.Fatalf("Deployment image = %s, want %s", img, image+"@"+digestA)
	}
	digestB, err := reg.Push(pinRepo, pinTag, strings.Replace(baseConfigYAML, "image_name: starter", "image_name: starter-b", 1))
	if err != nil {
		t.Fatal(err)
	}
	framework.Poll(t, time.Minute, "the Deployment on the moved tag's digest", func(ctx context.Context) (bool, error) {
		d, err := kube.AppsV1().Deployments(ns).Get(ctx, "interval", metav1.GetOptions{})
		return err == nil && d.Spec.Template.Spec.Containers[0].Image == image+"@"+digestB, err
	})
	waitEvent(t, kube, ns, "interval", ogxv1beta1.EventImageDigestChanged, digestB)
	// Later re-checks find the same digest: no second Event.
	observe(4 * time.Second)
	if evs := eventsOf(t, kube, ns, "interval", ogxv1beta1.EventImageDigestChanged); len(evs) != 1 || evs[0].Series != nil {
		t.Errorf("ImageDigestChanged Events = %q, want exactly one", notes(evs))
	}
}

// labelledServer is an OGXServer whose config is generated from the labels
// of image: it names the image and one provider, and no base ConfigMap.
func labelledServer(ns, name, image string) *ogxv1beta1.OGXServer {
	return &ogxv1beta1.OGXServer{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: ogxv1beta1.OGXServerSpec{
			Distribution: ogxv1beta1.DistributionSpec{Image: &image},
			Providers: &ogxv1beta1.ProvidersSpec{Inference: &ogxv1beta1.InferenceProviders{Remote: &ogxv1beta1.RemoteInferenceProviders{
				Vllm: []ogxv1beta1.VLLMProvider{{Endpoint: "http://vllm:8000/v1"}}}}},
		},
	}
}

// failover stops the leader with SIGTERM, waits for the follower to hold
// the Lease and starts a fresh replica, as the leader's user, to follow it.
func failover(t *testing.T, kube kubernetes.Interface, ns string, leader, follower *replica) *replica {
	t.Helper()
	if err := leader.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := exited(t, leader.process, 30*time.Second); code != 0 {
		t.Fatalf("%s exited %d after SIGTERM, want 0", leader.user, code)
	}
	framework.Poll(t, 30*time.Second, follower.user+" to take the Lease", func(ctx context.Context) (bool, error) {
		h, _, err := leaseHolder(ctx, kube, ns)
		return strings.HasPrefix(h, follower.user+"_"), err
	})
	bin, err := buildController()
	if err != nil {
		t.Fatalf("building ogx-controller: %v", err)
	}
	fresh := &replica{user: leader.user, health: framework.FreeAddr(t)}
	fresh.process = startProcessWith(t, bin, fresh.user, replicaFlags(ns, fresh.user, fresh.health)...)
	return fresh
}

// deploymentImage is the image of the server's Deployment's first
// container.
func deploymentImage(t *testing.T, kube kubernetes.Interface, ns, name string) string {
	t.Helper()
	d, err := kube.AppsV1().Deployments(ns).Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return d.Spec.Template.Spec.Containers[0].Image
}

// waitPodOn waits for a live pod of the server's Deployment, other than the
// pod named not, that runs image, and returns its name.
func waitPodOn(t *testing.T, kube kubernetes.Interface, ns, name, image, not string) string {
	t.Helper()
	var found string
	var seen []string
	framework.Poll(t, time.Minute, fmt.Sprintf("a pod of %s on %s", name, image), func(ctx context.Context) (bool, error) {
		d, err := kube.AppsV1().Deployments(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		pods, err := kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: metav1.FormatLabelSelector(d.Spec.Selector)})
		if err != nil {
			return false, err
		}
		seen = seen[:0]
		for _, p := range pods.Items {
			seen = append(seen, p.Name+"="+podImage(&p))
			if p.Name != not && p.DeletionTimestamp == nil && podImage(&p) == image {
				found = p.Name
				return true, nil
			}
		}
		return false, nil
	})
	if found == "" {
		t.Fatalf("pods seen: %q", seen)
	}
	return found
}

func podImage(p *corev1.Pod) string {
	if len(p.Spec.Containers) == 0 {
		return ""
	}
	return p.Spec.Containers[0].Image
}
