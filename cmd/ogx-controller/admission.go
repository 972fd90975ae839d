package main

import (
	"context"
	"fmt"

	"k8s.io/client-go/kubernetes"

	"github.com/ogx-k8s/ogx-controller/pkg/admission"
	"github.com/ogx-k8s/ogx-controller/pkg/metrics"
	"github.com/ogx-k8s/ogx-controller/pkg/webhookcerts"
)

// startAdmission starts the admission server unless --admission-bind-address
// is 0.
func startAdmission(ctx context.Context, o *options, m *metrics.Metrics) (*admission.Server, error) {
	if o.admissionAddr == "0" || o.admissionAddr == "" {
		return nil, nil
	}
	minTLS, err := admission.ParseTLSVersion(o.tlsMinVersion)
	if err != nil {
		return nil, err
	}
	srv, err := admission.NewServer(admission.ServerOptions{Addr: o.admissionAddr, CertDir: o.admissionCertDir,
		MinTLSVersion: minTLS, EnableHTTP2: o.enableHTTP2,
		Handler: admission.NewHandler(admission.HandlerOptions{Observe: func(r admission.Review) {
			m.ObserveAdmission(string(r.Operation), r.Allowed, r.Code, r.Duration)
		}})})
	if err != nil {
		return nil, err
	}
	if err := srv.Start(ctx); err != nil {
		return nil, fmt.Errorf("starting the admission server: %w", err)
	}
	return srv, nil
}

// startWebhookCerts starts writing the self-managed serving pair into the
// admission cert dir, unless admission is disabled or
// --admission-cert-management is external; the returned Manager's
// RunLeader is for the leader.
func startWebhookCerts(ctx context.Context, o *options, kube kubernetes.Interface, adm *admission.Server) (*webhookcerts.Manager, error) {
	if adm == nil || o.admissionCertManagement != "self" {
		return nil, nil
	}
	certs, err := webhookcerts.New(webhookcerts.Options{
		Kube:                     kube,
		Namespace:                o.operatorNamespace,
		SecretName:               o.admissionCertSecret,
		ServiceName:              o.admissionServiceName,
		ClusterDomain:            o.clusterDomain,
		WebhookConfigurationName: o.admissionWebhookConfig,
		CertDir:                  o.admissionCertDir,
	})
	if err != nil {
		return nil, err
	}
	go certs.RunReplica(ctx, webhookcerts.DefaultInterval)
	return certs, nil
}

// stopAdmission stops the admission server last, draining in-flight reviews.
func stopAdmission(srv *admission.Server) {
	if srv != nil {
		stopServer(srv, admission.ShutdownTimeout)
	}
}
