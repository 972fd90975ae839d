package main

import (
	"context"
	"fmt"

	"k8s.io/client-go/kubernetes"

	"github.com/ogx-k8s/ogx-controller/pkg/admission"
	"github.com/ogx-k8s/ogx-controller/pkg/metrics"
)

// startMetrics starts the /metrics listener unless --metrics-bind-address
// is 0: HTTPS with TokenReview/SubjectAccessReview unless --metrics-secure
// is false.
func startMetrics(ctx context.Context, o *options, kube kubernetes.Interface, m *metrics.Metrics) (*metrics.Server, error) {
	if o.metricsAddr == metrics.DisabledAddr || o.metricsAddr == "" {
		return nil, nil
	}
	minTLS, err := admission.ParseTLSVersion(o.tlsMinVersion)
	if err != nil {
		return nil, err
	}
	srv, err := metrics.NewServer(metrics.Options{Addr: o.metricsAddr, Secure: o.metricsSecure, CertDir: o.metricsCertDir,
		MinTLSVersion: minTLS, EnableHTTP2: o.enableHTTP2, Kube: kube, Metrics: m})
	if err != nil {
		return nil, err
	}
	if err := srv.Start(ctx); err != nil {
		return nil, fmt.Errorf("starting the metrics server: %w", err)
	}
	return srv, nil
}

// stopMetrics stops the metrics listener.
func stopMetrics(srv *metrics.Server) {
	if srv != nil {
		stopServer(srv, metrics.ShutdownTimeout)
	}
}
