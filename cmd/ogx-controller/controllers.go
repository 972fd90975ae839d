package main

import (
	"cmp"
	"crypto/x509"
	"fmt"
	"os"
	"strings"

	"github.com/ogx-k8s/ogx-controller/pkg/configgen/oci"
	"github.com/ogx-k8s/ogx-controller/pkg/controller"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/probe"
	"github.com/ogx-k8s/ogx-controller/pkg/metrics"
	"github.com/ogx-k8s/ogx-controller/pkg/resolve"
)

// newManager builds the controllers from the flags.
func newManager(o *options, c *clients, m *metrics.Metrics, identity string) (*controller.Manager, error) {
	gen, err := newGenerator(o)
	if err != nil {
		return nil, err
	}
	return controller.NewManager(c.kube, c.ogx, base.Options{
		Generator: gen,
		// 0 means "never" on the command line and "the default" in Options.
		ImageRecheckInterval: cmp.Or(o.imageRecheckInterval, -1),
		WatchNamespaces:      o.watchNamespaces,
		OperatorNamespace:    o.operatorNamespace,
		OperatorVersion:      o.operatorVersion,
		ClusterDomain:        o.clusterDomain,
		ServerAnyUID:         o.serverAnyUID,
		Workers:              o.workers,
		StatusWorkers:        o.statusWorkers,
		ProbeEnabled:         o.serverProbe,
		ProbeInterval:        o.probeInterval,
		Prober:               probe.NewHTTPProber(o.probeTimeout, o.probeDialAddress),
		Distributions:        resolve.NewDistributionTable(os.Getenv),
		CacheSyncTimeout:     o.cacheSyncTimeout,
		DiscoveryInterval:    o.discoveryInterval,
		TakeoverManagers:     splitList(o.takeoverManagers),
		Identity:             identity,
		Metrics:              m,
		EventsClient:         c.events,
		Metadata:             c.metadata,
		EventQPS:             o.eventQPS,
		EventBurst:           o.eventBurst,
		ShutdownTimeout:      o.shutdownTimeout,
	})
}

// splitList splits a comma-separated flag value, dropping empty items.
func splitList(v string) []string {
	out := []string{}
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// newGenerator builds the config generator with a registry client for OCI
// base-config labels.
func newGenerator(o *options) (*base.Generator, error) {
	var roots *x509.CertPool
	if o.registryCAFile != "" {
		var err error
		if roots, err = oci.LoadCAPool(o.registryCAFile); err != nil {
			return nil, fmt.Errorf("--registry-ca-file: %w", err)
		}
	}
	r, err := oci.NewResolver(oci.Options{Platform: o.basePlatform, Timeout: o.ociTimeout, RootCAs: roots,
		InsecureHosts: o.insecureRegistry, Client: oci.NewHTTPClient(roots),
		TokenHosts: append([]string{oci.DefaultTokenHost}, o.registryTokenHost...), AllowedRegistries: o.allowedRegistry})
	if err != nil {
		return nil, err
	}
	return base.NewGenerator(r, o.resolutionsPerNamespace, o.resolutions), nil
}
