package status

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/klog/v2"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/caches"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/probe"
	"github.com/ogx-k8s/ogx-controller/pkg/metrics"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

// maxConcurrentProbes bounds the server probes in flight: a probe waits on
// the network for up to its timeout, and a fleet's worth at once would be a
// burst of connections for nothing.
const maxConcurrentProbes = 16

// probe returns the last probe result of the server (nil before the first)
// and, when a probe is due (once per interval, or at once when the available
// replicas or the Deployment's generation changed), starts one in the
// background: its result enqueues the key, and the pass that follows
// reports it (docs/status.md, Server probe).
func (c *Controller) probe(ctx context.Context, s *ogxv1beta1.OGXServer, d *appsv1.Deployment) *probe.Result {
	trigger := fmt.Sprintf("%d/%d", d.Status.AvailableReplicas, d.Generation)
	prev, has, due := c.probes.Due(s.UID, trigger, c.d.Opts.Clock.Now())
	if due {
		c.startProbe(ctx, s, trigger, c.probeTarget(s))
	}
	if !has {
		return nil
	}
	return &prev
}

// probeTarget is the server's Service URL, over TLS with the Secret's CA when
// server TLS is on.
func (c *Controller) probeTarget(s *ogxv1beta1.OGXServer) probe.Target {
	t := probe.Target{BaseURL: serviceURL(s, c.d.Resolver.ClusterDomain)}
	if tlsSpec := s.Spec.ServerTLS(); tlsSpec != nil {
		t.TLS = true
		t.ServerName = fmt.Sprintf("%s.%s.svc", render.ServiceName(s.Name), s.Namespace)
		if sec, err := c.d.Caches.For(s.Namespace).Secrets.Secrets(s.Namespace).Get(tlsSpec.SecretName); err == nil {
			t.CA = sec.Data["ca.crt"]
		}
	}
	return t
}

// startProbe probes in the background unless a probe of the server is
// already in flight; at most maxConcurrentProbes run at once.
func (c *Controller) startProbe(ctx context.Context, s *ogxv1beta1.OGXServer, trigger string, t probe.Target) {
	if !c.probes.Begin(s.UID) {
		return
	}
	key, uid := caches.Key(s.Namespace, s.Name), s.UID
	logger := klog.FromContext(ctx)
	go func() {
		defer c.probes.End(uid)
		select {
		case c.probeSlots <- struct{}{}:
		case <-ctx.Done():
			return
		}
		r := c.d.Opts.Prober.Probe(ctx, t)
		<-c.probeSlots
		if ctx.Err() != nil {
			return
		}
		if r.Healthy {
			c.d.Opts.Metrics.CountProbe(metrics.ProbeSuccess)
		} else {
			c.d.Opts.Metrics.CountProbe(metrics.ProbeFailure)
		}
		c.probes.Store(uid, trigger, c.d.Opts.Clock.Now(), r)
		logger.V(5).Info("Probed server", "ogxserver", key, "healthy", r.Healthy)
		c.Enqueue(key)
	}()
}

// Probes is the probe state of every server (for tests that wait for probes
// in flight).
func (c *Controller) Probes() *probe.State { return c.probes }
