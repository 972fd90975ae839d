package main

import (
	"fmt"
	"os"

	"github.com/google/uuid"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/ogx-k8s/ogx-controller/pkg/fence"
	"github.com/ogx-k8s/ogx-controller/pkg/generated/clientset/versioned"
	"github.com/ogx-k8s/ogx-controller/pkg/metrics"
)

// restConfig builds the client configuration. The user agent names the
// process identity, so that the API server's audit log tells replicas
// apart even when they share a ServiceAccount (docs/high-availability.md).
func restConfig(o *options, identity string) (*rest.Config, error) {
	var cfg *rest.Config
	var err error
	if o.kubeconfig != "" {
		cfg, err = clientcmd.BuildConfigFromFlags("", o.kubeconfig)
	} else {
		cfg, err = rest.InClusterConfig()
	}
	if err != nil {
		return nil, fmt.Errorf("building client config: %w", err)
	}
	cfg.QPS, cfg.Burst = float32(o.qps), o.burst
	// Uncompressed responses, as the control plane's own controllers ask:
	// the API server gzips a watch-list stream for a client that accepts
	// it, for the life of the watch, once per watcher, and the operator
	// inflates every event; next to an API server in the same cluster that
	// is CPU on both ends for bandwidth nobody is short of
	// (docs/performance.md, Client limits and workers).
	cfg.DisableCompression = true
	cfg.UserAgent = fmt.Sprintf("ogx-controller/%s (%s)", o.operatorVersion, identity)
	return cfg, nil
}

// clients are the API clients of the process. Every one counts its writes
// (ogx_controller_writes_total).
type clients struct {
	// kube, ogx and events carry the controllers' requests: their writes
	// pass the fence, when there is one.
	kube   kubernetes.Interface
	ogx    versioned.Interface
	events kubernetes.Interface
	// metadata lists and watches object metadata only: the caches' watch
	// of odh-trusted-ca-bundle ConfigMaps whatever their labels.
	metadata metadata.Interface
	// lease carries only the Lease's requests, which must never be
	// refused by the fence they refresh; a client of its own, so neither a
	// burst of controller requests nor a flood of metrics requests waits
	// in front of a renewal on a shared rate limiter.
	lease kubernetes.Interface
	// reviews carries the metrics endpoint's TokenReviews and
	// SubjectAccessReviews, which every replica makes and which store
	// nothing: unfenced, with a budget of their own.
	reviews kubernetes.Interface
}

// leaseQPS and leaseBurst limit the lease client: a renewal every retry
// period (2 s), a few more while acquiring.
const leaseQPS, leaseBurst = 5, 10

// reviewsQPS and reviewsBurst limit the reviews client: decisions are
// cached per token and user, so only new tokens cost a review, and the
// metrics server answers 503 past its in-flight cap instead of queueing.
const reviewsQPS, reviewsBurst = 5, 10

func newClients(o *options, m *metrics.Metrics, identity string, f *fence.Fence) (*clients, error) {
	base, err := restConfig(o, identity)
	if err != nil {
		return nil, err
	}
	base.Wrap(m.WrapTransport)
	c := &clients{}
	if c.lease, err = limitedClient(base, leaseQPS, leaseBurst); err != nil {
		return nil, err
	}
	if c.reviews, err = limitedClient(base, reviewsQPS, reviewsBurst); err != nil {
		return nil, err
	}
	cfg := rest.CopyConfig(base)
	if f != nil {
		cfg.Wrap(f.WrapTransport)
	}
	if c.kube, err = kubernetes.NewForConfig(withProtobuf(cfg)); err != nil {
		return nil, err
	}
	if c.ogx, err = versioned.NewForConfig(cfg); err != nil {
		return nil, err
	}
	if c.metadata, err = metadata.NewForConfig(cfg); err != nil {
		return nil, err
	}
	// Events get a client of their own: its rate limiter never delays a
	// child or status write. The sink's own budget (--event-qps) decides
	// what is sent, so this client's limiter only backs it up.
	eventsCfg := rest.CopyConfig(cfg)
	eventsCfg.QPS, eventsCfg.Burst = float32(o.eventQPS), o.eventBurst
	if c.events, err = kubernetes.NewForConfig(withProtobuf(eventsCfg)); err != nil {
		return nil, err
	}
	return c, nil
}

// limitedClient is a client on a copy of cfg with a rate limiter of its
// own.
func limitedClient(cfg *rest.Config, qps float32, burst int) (kubernetes.Interface, error) {
	c := rest.CopyConfig(cfg)
	c.QPS, c.Burst = qps, burst
	return kubernetes.NewForConfig(withProtobuf(c))
}

// withProtobuf is a copy of cfg that sends and reads protobuf, for
// clients of built-in kinds only: the API server serves custom resources
// as JSON alone, so the OGXServer and dynamic clients keep cfg's JSON.
// Decoding the watch streams of Deployments, ConfigMaps and Secrets is
// most of the caches' CPU, and protobuf decodes several times cheaper.
func withProtobuf(cfg *rest.Config) *rest.Config {
	c := rest.CopyConfig(cfg)
	c.ContentType = runtime.ContentTypeProtobuf
	c.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
	return c
}

// processIdentity is the pod name (HOSTNAME in a pod) plus a per-process
// UUID, so a restarted pod never reuses its predecessor's identity.
func processIdentity() string {
	hostname := os.Getenv("HOSTNAME")
	if hostname == "" {
		hostname, _ = os.Hostname()
	}
	return hostname + "_" + uuid.NewString()
}
