package v1beta1

import (
	networkingv1 "k8s.io/api/networking/v1"
)

// NetworkSpec configures how the server listens and who may reach it.
type NetworkSpec struct {
	// Port is the server port: container port, Service port "http", probes and
	// env OGX_PORT.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	// +kubebuilder:default:=8321
	Port int32 `json:"port,omitempty"`
	// TLS makes the server terminate TLS itself with the certificate of a
	// Secret; probes, the Service URL and the Ingress switch to HTTPS.
	// +optional
	TLS *ServerTLSSpec `json:"tls,omitempty"`
	// ExternalAccess manages an Ingress named <name>-ingress.
	// +optional
	ExternalAccess *ExternalAccessSpec `json:"externalAccess,omitempty"`
	// Policy configures the managed NetworkPolicy <name>-network-policy. When
	// absent, a NetworkPolicy with the default rules is managed.
	// +optional
	Policy *NetworkPolicySpec `json:"policy,omitempty"`
}

// ServerTLSSpec names the serving certificate.
type ServerTLSSpec struct {
	// SecretName is a Secret with keys tls.crt and tls.key (normally of type
	// kubernetes.io/tls) carrying the label ogx.io/watch: "true". It is mounted
	// at /etc/ogx-tls/server.
	// +required
	// +kubebuilder:validation:MinLength=1
	SecretName string `json:"secretName"`
}

// ExternalAccessSpec exposes the server outside the cluster.
//
// +kubebuilder:validation:XValidation:rule="!has(self.hostname) || self.hostname.size() > 0",message="hostname must not be empty if specified"
type ExternalAccessSpec struct {
	// Enabled manages an Ingress for the server; false deletes an owned one.
	// +optional
	// +kubebuilder:default:=false
	Enabled bool `json:"enabled,omitempty"`
	// Hostname is the Ingress rule host and the host of status.externalURL.
	// +optional
	Hostname string `json:"hostname,omitempty"`
}

// NetworkPolicySpec configures the managed NetworkPolicy.
//
// Default ingress rules (the server port from this namespace, the controller's
// namespace and the OpenShift ingress policy group; the metrics port from the
// OpenShift monitoring policy group) always come first. Whenever egress is
// enforced a DNS egress rule is appended after the user's egress rules, so
// that enabling egress never breaks name resolution.
type NetworkPolicySpec struct {
	// Enabled manages the NetworkPolicy; false deletes an owned one.
	// +optional
	// +kubebuilder:default:=true
	Enabled *bool `json:"enabled,omitempty"`
	// PolicyTypes are the enforced directions, honoured as given. When empty,
	// Ingress is enforced, and Egress too when egress rules exist.
	// +optional
	// +kubebuilder:validation:items:Enum=Ingress;Egress
	PolicyTypes []networkingv1.PolicyType `json:"policyTypes,omitempty"`
	// Ingress rules, appended after the default rules.
	// +optional
	Ingress []networkingv1.NetworkPolicyIngressRule `json:"ingress,omitempty"`
	// Egress rules; the DNS rule is appended after them when egress is
	// enforced.
	// +optional
	Egress []networkingv1.NetworkPolicyEgressRule `json:"egress,omitempty"`
}

// OutboundTLSSpec configures TLS for connections the server makes.
type OutboundTLSSpec struct {
	// Trust adds CA certificates to the ones the server trusts.
	// +optional
	Trust *TrustSpec `json:"trust,omitempty"`
	// Identity is a client certificate and key for mutual TLS towards
	// providers and backends, mounted at /etc/ogx-tls/client.
	// +optional
	Identity *ClientIdentitySpec `json:"identity,omitempty"`
}

// TrustSpec lists CA certificates to trust.
type TrustSpec struct {
	// CACertificates are ConfigMap keys holding PEM certificates. They are
	// concatenated, in a deterministic order, into the ConfigMap
	// <name>-ca-bundle mounted into the server (env SSL_CERT_FILE).
	// +optional
	// +kubebuilder:validation:MinItems=1
	CACertificates []ConfigMapKeyRef `json:"caCertificates,omitempty"`
}

// ClientIdentitySpec is the server's client certificate.
type ClientIdentitySpec struct {
	// Cert is the PEM client certificate, in a ConfigMap.
	// +required
	Cert ConfigMapKeyRef `json:"cert"`
	// Key is the PEM private key, in a Secret.
	// +required
	Key SecretKeyRef `json:"key"`
}
